// SPDX-License-Identifier: MIT
#include "RunHistory.h"

#include "core/AtomicFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>

namespace splitscope {

RunHistory::RunHistory(QObject *parent) : QObject(parent) {}

QString RunHistory::defaultPath()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("run-history.json"));
}

bool RunHistory::open(const QString &path, QString *error)
{
    Q_EMIT aboutToReset();
    m_runs.clear();
    m_path = path;
    m_writable = true;
    m_saveError.clear();
    auto fail = [&](const QString &why) {
        // Keep the file as it is: the user's runs may be recoverable from it.
        m_writable = false;
        m_saveError = tr("%1 %2; new runs are kept in memory only, the file is left as it is.")
                          .arg(QDir::toNativeSeparators(path), why);
        if (error)
            *error = m_saveError;
        Q_EMIT reset();
        return false;
    };
    QFile file(path);
    if (path.isEmpty() || !file.exists()) {
        Q_EMIT reset();
        return true;
    }
    if (!file.open(QIODevice::ReadOnly))
        return fail(tr("cannot be read (%1)").arg(file.errorString()));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(tr("is not JSON (%1 at offset %2)").arg(parseError.errorString()).arg(parseError.offset));
    const QJsonObject root = doc.object();
    if (root.value(QLatin1String("format")).toString() != QLatin1String(kFormat))
        return fail(tr("is not a Splitscope run history (\"format\" is not \"%1\")").arg(QLatin1String(kFormat)));
    const QJsonArray runs = root.value(QLatin1String("runs")).toArray();
    for (qsizetype i = 0; i < runs.size(); ++i) {
        QString why;
        auto session = RunSession::fromJson(runs.at(i).toObject(), &why);
        if (!session)
            return fail(tr("runs[%1]: %2").arg(i).arg(why));
        m_runs.push_back(std::move(session));
    }
    Q_EMIT reset();
    return true;
}

int RunHistory::indexOf(const QString &id) const
{
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        if (m_runs[i]->id() == id)
            return static_cast<int>(i);
    }
    return -1;
}

void RunHistory::add(std::shared_ptr<const RunSession> session)
{
    if (!session)
        return;
    // A resumed launch keeps its id: its entry is replaced, and moves to the newest place
    // (the launch ended last), so that one launch is one row however often it was resumed.
    const int earlier = indexOf(session->id());
    if (earlier >= 0) {
        Q_EMIT aboutToRemove(earlier);
        m_runs.erase(m_runs.begin() + earlier);
        Q_EMIT removed(earlier);
    }
    while (count() >= kMaxRuns)
        remove(0);
    Q_EMIT aboutToAdd(count());
    m_runs.push_back(std::move(session));
    Q_EMIT added(count() - 1);
    save();
}

void RunHistory::remove(int index)
{
    if (index < 0 || index >= count())
        return;
    Q_EMIT aboutToRemove(index);
    m_runs.erase(m_runs.begin() + index);
    Q_EMIT removed(index);
    save();
}

void RunHistory::clear()
{
    Q_EMIT aboutToReset();
    m_runs.clear();
    Q_EMIT reset();
    save();
}

void RunHistory::save()
{
    if (m_path.isEmpty() || !m_writable)
        return;
    QJsonArray runs;
    for (const auto &r : m_runs)
        runs.append(r->toJson());
    const QJsonObject root{{QStringLiteral("format"), QLatin1String(kFormat)}, {QStringLiteral("runs"), runs}};
    const QByteArray bytes = QJsonDocument(root).toJson(QJsonDocument::Compact);
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    std::string error;
    if (!writeFileAtomically(m_path.toStdString(), std::string_view(bytes.constData(), bytes.size()), &error)) {
        m_saveError = QString::fromStdString(error);
        Q_EMIT saveFailed(m_saveError);
        return;
    }
    m_saveError.clear();
}

} // namespace splitscope
