// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
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
class PipelineFileWatcher : public QObject {
    Q_OBJECT
public:
    explicit PipelineFileWatcher(SplitDocument *document, QObject *parent = nullptr);

    bool isEnabled() const { return m_enabled; }
    void setEnabled(bool enabled);
    QString watchedPath() const { return m_path; }

Q_SIGNALS:
    // A change was seen and the document reloaded (`ok` false: the new text has errors).
    void reloaded(const QString &path, bool ok);

private:
    void follow();
    void changed(const QString &path);
    void reloadNow();

    SplitDocument *m_document;
    QFileSystemWatcher *m_watcher;
    QTimer m_settle;
    QString m_path;
    bool m_enabled = true;
};

} // namespace splitscope
