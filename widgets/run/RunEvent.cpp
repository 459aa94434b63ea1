// SPDX-License-Identifier: MIT
#include "RunEvent.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace splitscope {

namespace {

struct KindName {
    const char *name;
    RunEvent::Kind kind;
};

constexpr KindName kKinds[] = {{"start", RunEvent::Kind::Start}, {"stage", RunEvent::Kind::Stage},
    {"unit", RunEvent::Kind::Unit}, {"progress", RunEvent::Kind::Progress}, {"step", RunEvent::Kind::Step},
    {"epoch", RunEvent::Kind::Epoch}, {"checkpoint", RunEvent::Kind::Checkpoint}, {"memory", RunEvent::Kind::Memory},
    {"log", RunEvent::Kind::Log}, {"warning", RunEvent::Kind::Warning}, {"error", RunEvent::Kind::Error},
    {"done", RunEvent::Kind::Done}};

} // namespace

std::optional<RunEvent> RunEvent::parse(QByteArrayView line, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = parseError.error != QJsonParseError::NoError
                ? QStringLiteral("not JSON (%1 at offset %2)").arg(parseError.errorString()).arg(parseError.offset)
                : QStringLiteral("not a JSON object");
        return std::nullopt;
    }
    RunEvent event;
    event.fields = doc.object();
    const QJsonValue name = event.fields.value(QLatin1String("event"));
    if (!name.isString()) {
        if (error)
            *error = QStringLiteral("no \"event\" name");
        return std::nullopt;
    }
    event.name = name.toString();
    event.time = event.fields.value(QLatin1String("time")).toDouble();
    for (const KindName &k : kKinds) {
        if (event.name == QLatin1String(k.name)) {
            event.kind = k.kind;
            break;
        }
    }
    return event;
}

double RunEvent::number(const char *key, double fallback) const
{
    const QJsonValue v = fields.value(QLatin1String(key));
    return v.isDouble() ? v.toDouble() : fallback;
}

qint64 RunEvent::integer(const char *key, qint64 fallback) const
{
    const QJsonValue v = fields.value(QLatin1String(key));
    return v.isDouble() ? static_cast<qint64>(v.toDouble()) : fallback;
}

QString RunEvent::text(const char *key) const
{
    return fields.value(QLatin1String(key)).toString();
}

} // namespace splitscope
