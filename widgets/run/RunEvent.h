// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace splitscope {

// One JSON Lines event of `splitscope-cli train --events jsonl`; the schema is
// documented at the top of core/engine/Events.h (read it with this). Fields the
// GUI does not know are kept in `fields` and otherwise ignored, as the schema asks.
struct RunEvent {
    enum class Kind { Start, Stage, Unit, Progress, Step, Epoch, Checkpoint, Memory, Log, Warning, Error, Done, Other };

    Kind kind = Kind::Other;
    QString name;       // the "event" field as written
    double time = 0;    // seconds since the worker's run started
    QJsonObject fields; // the whole object

    // Parses one line (without its newline). nullopt with `error` for a line that is
    // not a JSON object with a string "event".
    static std::optional<RunEvent> parse(QByteArrayView line, QString *error = nullptr);

    double number(const char *key, double fallback = 0) const;
    qint64 integer(const char *key, qint64 fallback = 0) const;
    QString text(const char *key) const;
};

} // namespace splitscope
