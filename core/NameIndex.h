// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace splitscope {

// An open-addressing hash index from names to the ids of a caller-owned list of
// names (id = position in the list; any container whose `names[id]` converts to
// std::string_view). It stores only ids and hashes, so it copies and moves with its
// owner; every call gets the list. Built for interning millions of short param
// names: one probe sequence per lookup, no node allocations (std::unordered_map
// took most of a 10^6-unit graph build).
class NameIndex {
public:
    // Returns the id of `name` if present; otherwise appends it to `names` and returns the new id.
    std::int32_t intern(std::string_view name, std::vector<std::string> &names)
    {
        grow();
        const std::uint32_t hash = hashOf(name);
        const std::size_t slot = slotFor(name, hash, names);
        if (m_slots[slot].id >= 0)
            return m_slots[slot].id;
        const auto id = static_cast<std::int32_t>(names.size());
        names.emplace_back(name);
        m_slots[slot] = Slot{id, hash};
        ++m_count;
        return id;
    }

    // Indexes names[id] unless an equal name is indexed already; returns the id the
    // name maps to afterwards (the first id with that name wins).
    template <typename Names>
    std::int32_t insertExisting(std::int32_t id, const Names &names)
    {
        grow();
        const std::string_view name = names[id];
        const std::uint32_t hash = hashOf(name);
        const std::size_t slot = slotFor(name, hash, names);
        if (m_slots[slot].id >= 0)
            return m_slots[slot].id;
        m_slots[slot] = Slot{id, hash};
        ++m_count;
        return id;
    }

    // The id of `name`, or -1.
    template <typename Names>
    std::int32_t find(std::string_view name, const Names &names) const
    {
        if (m_slots.empty())
            return -1;
        return m_slots[slotFor(name, hashOf(name), names)].id;
    }

    void reserve(std::size_t count);

private:
    // The hash sits beside the id so that a probe rejects most non-matching slots
    // without touching the names (one cache miss per probe instead of three).
    struct Slot {
        std::int32_t id = -1; // -1 = empty
        std::uint32_t hash = 0;
    };

    static std::uint32_t hashOf(std::string_view name)
    {
        const std::size_t h = std::hash<std::string_view>{}(name);
        return static_cast<std::uint32_t>(h ^ (h >> 32));
    }

    template <typename Names>
    std::size_t slotFor(std::string_view name, std::uint32_t hash, const Names &names) const
    {
        const std::size_t mask = m_slots.size() - 1;
        std::size_t i = hash & mask;
        while (true) {
            const Slot &slot = m_slots[i];
            if (slot.id < 0 || (slot.hash == hash && std::string_view(names[slot.id]) == name))
                return i;
            i = (i + 1) & mask;
        }
    }

    void grow()
    {
        if ((m_count + 1) * 2 > m_slots.size())
            reserve(m_slots.empty() ? 8 : m_slots.size());
    }

    std::vector<Slot> m_slots; // size is a power of two (or 0)
    std::size_t m_count = 0;
};

} // namespace splitscope
