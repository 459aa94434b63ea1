// SPDX-License-Identifier: MIT
#include "Events.h"

#include <cmath>
#include <cstdio>

namespace splitscope::engine {

namespace {

// The length of the UTF-8 sequence that starts `text` (1 to 4), or 0 when its first
// byte does not start a valid one (a stray continuation byte, an overlong form, a
// surrogate, a code point past U+10FFFF, a truncated sequence).
std::size_t utf8SequenceLength(std::string_view text)
{
    if (text.empty())
        return 0;
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80)
        return 1;
    std::size_t length = 0;
    // The range of the second byte (RFC 3629's table): the narrow ranges exclude
    // overlong forms, surrogates and code points past U+10FFFF.
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0)
            low = 0xA0;
        else if (lead == 0xED)
            high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0)
            low = 0x90;
        else if (lead == 0xF4)
            high = 0x8F;
    } else {
        return 0;
    }
    if (text.size() < length || byte(1) < low || byte(1) > high)
        return 0;
    for (std::size_t i = 2; i < length; ++i) {
        if (byte(i) < 0x80 || byte(i) > 0xBF)
            return 0;
    }
    return length;
}

} // namespace

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
        const std::size_t length = utf8SequenceLength(text.substr(i));
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
