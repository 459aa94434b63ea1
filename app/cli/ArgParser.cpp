// SPDX-License-Identifier: MIT
#include "ArgParser.h"

#include <charconv>
#include <limits>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <sstream>

namespace splitscope::cli {

void ArgParser::option(const std::string &name, const std::string &valueName, const std::string &help)
{
    m_specs[name] = Spec{valueName.empty() ? std::string("VALUE") : valueName, help};
    m_order.push_back(name);
}

void ArgParser::flag(const std::string &name, const std::string &help)
{
    m_specs[name] = Spec{std::string(), help};
    m_order.push_back(name);
}

void ArgParser::positional(const std::string &name, const std::string &help, bool required)
{
    m_positionalSpecs.emplace_back(name, help);
    m_positionalRequired.push_back(required);
}

bool ArgParser::parse(const std::vector<std::string> &args)
{
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
            std::string name = arg.substr(2);
            std::optional<std::string> inlineValue;
            if (const auto eq = name.find('='); eq != std::string::npos) {
                inlineValue = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            const auto spec = m_specs.find(name);
            if (spec == m_specs.end()) {
                m_error = "unknown flag --" + name;
                return false;
            }
            const bool repeated = m_values.count(name) > 0;
            if (spec->second.valueName.empty()) {
                if (inlineValue) {
                    m_error = "--" + name + " takes no value";
                    return false;
                }
                if (repeated) {
                    m_error = "--" + name + " is given more than once";
                    return false;
                }
                m_values[name] = "1";
                continue;
            }
            std::string value;
            if (inlineValue) {
                value = *inlineValue; // --name=--x is explicit: the value may start with dashes
            } else if (i + 1 < args.size()) {
                // "--output --check" means a forgotten value, not a file named --check.
                if (args[i + 1].compare(0, 2, "--") == 0) {
                    m_error = "--" + name + ": missing value (next argument is " + args[i + 1] + ")";
                    return false;
                }
                value = args[++i];
            } else {
                m_error = "--" + name + " needs a value (" + spec->second.valueName + ")";
                return false;
            }
            // The last one silently winning hides a typo or a stale line in a script.
            if (repeated) {
                m_error = "--" + name + " is given more than once ('" + m_values[name] + "', then '" + value + "')";
                return false;
            }
            m_values[name] = value;
        } else if (arg == "--") {
            for (++i; i < args.size(); ++i)
                m_positionals.push_back(args[i]);
        } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
            m_error = "unknown flag " + arg + " (flags start with two dashes)";
            return false;
        } else {
            m_positionals.push_back(arg);
        }
    }
    std::size_t required = 0;
    for (const bool r : m_positionalRequired)
        required += r ? 1 : 0;
    if (m_positionals.size() < required) {
        m_error = "missing " + m_positionalSpecs[m_positionals.size()].first;
        return false;
    }
    if (m_positionals.size() > m_positionalSpecs.size()) {
        m_error = "unexpected argument '" + m_positionals[m_positionalSpecs.size()] + "'";
        return false;
    }
    return true;
}

std::optional<std::string> ArgParser::value(const std::string &name) const
{
    const auto it = m_values.find(name);
    if (it == m_values.end())
        return std::nullopt;
    return it->second;
}

std::string ArgParser::valueOr(const std::string &name, const std::string &fallback) const
{
    return value(name).value_or(fallback);
}

bool ArgParser::intValue(const std::string &name, long long &out, long long minimum, long long maximum)
{
    const auto v = value(name);
    if (!v)
        return true;
    long long parsed = 0;
    const auto res = std::from_chars(v->data(), v->data() + v->size(), parsed);
    const bool whole = res.ptr == v->data() + v->size();
    if (res.ec != std::errc() || !whole) {
        if (res.ec != std::errc::result_out_of_range || !whole) {
            m_error = "--" + name + ": '" + *v + "' is not an integer";
            return false;
        }
        // An integer all the same, beyond even long long: out of range, whichever side.
        parsed = v->front() == '-' ? std::numeric_limits<long long>::min() : std::numeric_limits<long long>::max();
    }
    if (parsed < minimum || parsed > maximum) {
        m_error = "--" + name + ": " + *v + " is out of range [" + std::to_string(minimum) + ", "
            + std::to_string(maximum) + "]";
        return false;
    }
    out = parsed;
    return true;
}

bool ArgParser::doubleValue(const std::string &name, double &out)
{
    const auto v = value(name);
    if (!v)
        return true;
    double parsed = 0;
    const auto res = std::from_chars(v->data(), v->data() + v->size(), parsed);
    if (res.ec == std::errc::result_out_of_range && res.ptr == v->data() + v->size()) {
        // A number all the same: too small for a double reads as 0 (as in JSON and
        // Python); too large is said as such, not as "not a number".
        const double magnitude = std::strtod(v->c_str(), nullptr);
        if (std::isinf(magnitude)) {
            m_error = "--" + name + ": '" + *v + "' is too large a number";
            return false;
        }
        parsed = magnitude;
    } else if (res.ec != std::errc() || res.ptr != v->data() + v->size()) {
        m_error = "--" + name + ": '" + *v + "' is not a number";
        return false;
    }
    out = parsed;
    return true;
}

int ArgParser::usageError(const std::string &command, const std::string &message) const
{
    // Beyond this many flags the usage text would bury the message.
    constexpr std::size_t kLongUsage = 16;
    std::fprintf(stderr, "splitscope-cli %s: %s\n", command.c_str(), message.c_str());
    if (m_order.size() <= kLongUsage)
        std::fprintf(stderr, "%s", usage("splitscope-cli " + command).c_str());
    else
        std::fprintf(stderr, "(see 'splitscope-cli %s --help')\n", command.c_str());
    return 2;
}

std::string ArgParser::usage(const std::string &program) const
{
    std::ostringstream out;
    out << "usage: " << program;
    for (std::size_t i = 0; i < m_positionalSpecs.size(); ++i)
        out << (m_positionalRequired[i] ? " " : " [") << m_positionalSpecs[i].first
            << (m_positionalRequired[i] ? "" : "]");
    out << " [flags]\n";
    for (const auto &p : m_positionalSpecs)
        out << "  " << p.first << "\n      " << p.second << "\n";
    for (const auto &name : m_order) {
        const Spec &spec = m_specs.at(name);
        out << "  --" << name << (spec.valueName.empty() ? "" : " " + spec.valueName) << "\n      " << spec.help << "\n";
    }
    return out.str();
}

} // namespace splitscope::cli
