// SPDX-License-Identifier: MIT
#include "PipelineFileWatcher.h"

#include "SplitDocument.h"

#include <QFileInfo>
#include <QFileSystemWatcher>

namespace splitscope {

namespace {

constexpr int kSettleMs = 150; // a save in several writes settles well within this

} // namespace

PipelineFileWatcher::PipelineFileWatcher(SplitDocument *document, QObject *parent)
    : QObject(parent), m_document(document), m_watcher(new QFileSystemWatcher(this))
{
    m_settle.setSingleShot(true);
    m_settle.setInterval(kSettleMs);
    connect(&m_settle, &QTimer::timeout, this, &PipelineFileWatcher::reloadNow);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &PipelineFileWatcher::changed);
    // A rename over the file shows up as a change of its directory.
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this](const QString &) {
        if (!m_path.isEmpty() && !m_watcher->files().contains(m_path) && QFileInfo::exists(m_path))
            changed(m_path);
    });
    connect(document, &SplitDocument::pipelineReset, this, &PipelineFileWatcher::follow);
    follow();
}

void PipelineFileWatcher::setEnabled(bool enabled)
{
    m_enabled = enabled;
    follow();
}

void PipelineFileWatcher::follow()
{
    const QString path = (m_enabled && m_document->hasPipeline()) ? m_document->source().path : QString();
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!m_watcher->directories().isEmpty())
        m_watcher->removePaths(m_watcher->directories());
    m_path = path;
    if (path.isEmpty())
        return;
    if (QFileInfo::exists(path))
        m_watcher->addPath(path);
    m_watcher->addPath(QFileInfo(path).absolutePath());
}

void PipelineFileWatcher::changed(const QString &path)
{
    if (path != m_path)
        return;
    m_settle.start();
}

void PipelineFileWatcher::reloadNow()
{
    if (m_path.isEmpty() || m_document->source().path != m_path)
        return;
    // Re-arm first: a replaced file is a new inode the old watch does not see.
    if (QFileInfo::exists(m_path) && !m_watcher->files().contains(m_path))
        m_watcher->addPath(m_path);
    const bool ok = m_document->reload();
    Q_EMIT reloaded(m_path, ok);
}

} // namespace splitscope
