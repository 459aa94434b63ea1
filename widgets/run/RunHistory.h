// SPDX-License-Identifier: MIT
#pragma once

#include "RunSession.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace splitscope {

// The launches of the past, newest last: each one's configuration, stages,
// durations, peak memory, final loss, output paths and (thinned) chart series, so
// that two can be compared later. Persisted as one JSON file
// ({"format": "splitscope.runs/1", "runs": [...]}), rewritten atomically after each
// change. A file that cannot be read is never overwritten: the history then lives
// in memory, and saveError() says why.
//
// Lives on the GUI thread.
class RunHistory : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxRuns = 200; // the oldest go first beyond this
    static constexpr const char *kFormat = "splitscope.runs/1";

    explicit RunHistory(QObject *parent = nullptr);

    // <app data>/run-history.json.
    static QString defaultPath();
    // Where the history is kept; empty: in memory only (tests, screenshots).
    QString path() const { return m_path; }
    // Sets the file and reads it (a missing file is an empty history). False with
    // `error` when it exists but cannot be read; it is then left alone.
    bool open(const QString &path, QString *error = nullptr);
    QString saveError() const { return m_saveError; }

    const std::vector<std::shared_ptr<const RunSession>> &runs() const { return m_runs; }
    int count() const { return static_cast<int>(m_runs.size()); }
    std::shared_ptr<const RunSession> run(int index) const { return m_runs.at(static_cast<std::size_t>(index)); }
    int indexOf(const QString &id) const; // -1 when absent

    // Appends `session`; one with the id of an entry (a resumed launch) replaces it.
    void add(std::shared_ptr<const RunSession> session);
    void remove(int index);
    void clear();

Q_SIGNALS:
    void aboutToReset();
    void reset();
    void aboutToAdd(int index);
    void added(int index);
    void aboutToRemove(int index);
    void removed(int index);
    void saveFailed(const QString &error);

private:
    void save();

    QString m_path;
    bool m_writable = true;
    QString m_saveError;
    std::vector<std::shared_ptr<const RunSession>> m_runs;
};

} // namespace splitscope
