// SPDX-License-Identifier: MIT
#include "Events.h"

#include "core/Utf8.h"

#include <cmath>
#include <cstdio>

namespace splitscope::engine {

std::string jsonQuote(std::string_view text)
{
    static const char *kHex = "0123456789abcdef";
    // Split at the bytes that are not UTF-8; the core quotes the valid runs.
    std::string out = "\"";
    std::size_t runStart = 0;
    std::size_t i = 0;
    auto flushRun = [&]() {
        const std::string quoted = splitscope::jsonQuote(text.substr(runStart, i - runStart));
        out.append(quoted, 1, quoted.size() - 2);
    };
    while (i < text.size()) {
        const std::size_t length = splitscope::utf8SequenceLength(text, i);
        if (length > 0) {
            i += length;
            continue;
        }
        flushRun();
        const auto u = static_cast<unsigned char>(text[i]);
        out += "\\udc";
        out += kHex[u >> 4];
        out += kHex[u & 15];
        runStart = ++i;
    }
    flushRun();
    return out + "\"";
}

std::string jsonNumber(double value)
{
    if (!std::isfinite(value))
        return "null";
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", value);
    return text;
}

std::string jsonStringArray(const std::vector<std::string> &items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? "," : "") + jsonQuote(items[i]);
    return out + "]";
}

Event::Event(std::string name)
    : m_name(std::move(name))
{
}

Event &Event::set(const std::string &key, double value)
{
    return setRaw(key, jsonNumber(value));
}

Event &Event::set(const std::string &key, std::int64_t value)
{
    return setRaw(key, std::to_string(value));
}

Event &Event::set(const std::string &key, std::uint64_t value)
{
    return setRaw(key, std::to_string(value));
}

Event &Event::set(const std::string &key, bool value)
{
    return setRaw(key, value ? "true" : "false");
}

Event &Event::set(const std::string &key, const std::string &value)
{
    return setRaw(key, jsonQuote(value));
}

Event &Event::setRaw(const std::string &key, std::string json)
{
    for (auto &field : m_fields) {
        if (field.first == key) {
            field.second = std::move(json);
            return *this;
        }
    }
    m_fields.emplace_back(key, std::move(json));
    return *this;
}

Event &Event::text(std::string line)
{
    m_text = std::move(line);
    return *this;
}

std::string Event::json(double time) const
{
    std::string out = "{\"event\":" + jsonQuote(m_name) + ",\"time\":" + jsonNumber(std::round(time * 1000) / 1000);
    for (const auto &[key, value] : m_fields)
        out += "," + jsonQuote(key) + ":" + value;
    return out + "}";
}

EventSink::EventSink(EventCallback callback)
    : m_callback(std::move(callback))
    , m_start(std::chrono::steady_clock::now())
{
}

double EventSink::elapsed() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void EventSink::emit(const Event &event)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_callback)
        return;
    EventRecord record;
    record.time = elapsed();
    record.name = event.name();
    record.json = event.json(record.time);
    if (m_rank >= 0)
        record.json.insert(record.json.size() - 1, ",\"rank\":" + std::to_string(m_rank));
    record.text = event.humanText();
    m_callback(record);
}

void EventSink::log(const std::string &message)
{
    emit(Event(events::kLog).set("message", message).text(message));
}

void EventSink::warning(const std::string &code, const std::string &message)
{
    emit(Event(events::kWarning).set("code", code).set("message", message).text("warning: " + message));
}

} // namespace splitscope::engine
