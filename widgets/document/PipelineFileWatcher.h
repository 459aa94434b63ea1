// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QStringList>
#include <QTimer>

class QFileSystemWatcher;

namespace splitscope {

class SplitDocument;

// Reloads the document when its file changes on disk, so that editing the JSON in
// an editor makes the graph follow. Editors often save by writing a new file and
// renaming it over the old one, which ends a watch; the watcher re-arms itself on
// the path after every change. Changes are debounced (kSettleMs) so that a save
// that writes in several chunks reloads once. A reload that fails keeps the open
// pipeline (SplitDocument's rule) and the watch goes on.
//
// A file whose load failed (SplitDocument::failedPath(): at startup, or opened with
// errors) is followed too, also while it does not exist yet: when it changes, it
// is loaded again, and it replaces the open pipeline once it loads.
class PipelineFileWatcher : public QObject {
    Q_OBJECT
public:
    explicit PipelineFileWatcher(SplitDocument *document, QObject *parent = nullptr);

    bool isEnabled() const { return m_enabled; }
    void setEnabled(bool enabled);
    // The files followed (absolute): the one whose last load failed, then the open
    // pipeline's when it is another; empty when disabled or there is no file.
    QStringList watchedPaths() const { return m_paths; }

Q_SIGNALS:
    // A change was seen and the document reloaded (`ok` false: the new text has
    // errors, or the file is gone).
    void reloaded(const QString &path, bool ok);

private:
    void follow();
    void changed(const QString &path);
    void reloadNow();

    SplitDocument *m_document;
    QFileSystemWatcher *m_watcher;
    QTimer m_settle;
    QStringList m_paths;
    QStringList m_changed; // seen changing since the last reload
    bool m_enabled = true;
};

} // namespace splitscope
