// SPDX-License-Identifier: MIT
#include "PipelineFileWatcher.h"

#include "SplitDocument.h"

#include <QFileInfo>
#include <QFileSystemWatcher>

#include <utility>

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
    // A rename over the file, or a file that appears, shows up as a change of its directory.
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this](const QString &) {
        for (const QString &path : m_paths) {
            if (!m_watcher->files().contains(path) && QFileInfo::exists(path))
                changed(path);
        }
    });
    connect(document, &SplitDocument::pipelineReset, this, &PipelineFileWatcher::follow);
    connect(document, &SplitDocument::loadFailed, this, &PipelineFileWatcher::follow);
    follow();
}

void PipelineFileWatcher::setEnabled(bool enabled)
{
    m_enabled = enabled;
    follow();
}

void PipelineFileWatcher::follow()
{
    QStringList paths;
    if (m_enabled) {
        paths << m_document->failedPath();
        if (m_document->hasPipeline() && m_document->source().path != m_document->failedPath())
            paths << m_document->source().path;
        paths.removeAll(QString());
    }
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!m_watcher->directories().isEmpty())
        m_watcher->removePaths(m_watcher->directories());
    m_paths = paths;
    for (const QString &path : paths) {
        if (QFileInfo::exists(path))
            m_watcher->addPath(path);
        const QString directory = QFileInfo(path).absolutePath();
        if (QFileInfo::exists(directory) && !m_watcher->directories().contains(directory))
            m_watcher->addPath(directory);
    }
}

void PipelineFileWatcher::changed(const QString &path)
{
    if (!m_paths.contains(path))
        return;
    if (!m_changed.contains(path))
        m_changed << path;
    m_settle.start();
}

void PipelineFileWatcher::reloadNow()
{
    const QStringList changed = std::exchange(m_changed, {});
    // Re-arm first: a replaced file is a new inode the old watch does not see.
    for (const QString &path : changed) {
        if (QFileInfo::exists(path) && !m_watcher->files().contains(path))
            m_watcher->addPath(path);
    }
    // The file that failed comes first: it is retried, and replaces the open pipeline
    // when it loads now. Else the open pipeline's file is read again if it changed.
    const QString failed = m_document->failedPath();
    if (!failed.isEmpty() && changed.contains(failed)) {
        const bool ok = m_document->retryFailed();
        Q_EMIT reloaded(failed, ok);
        return;
    }
    const QString open = m_document->hasPipeline() ? m_document->source().path : QString();
    if (!open.isEmpty() && changed.contains(open)) {
        const bool ok = m_document->reloadOpenPipeline();
        Q_EMIT reloaded(open, ok);
    }
}

} // namespace splitscope
