// SPDX-License-Identifier: MIT
#include "NameIndex.h"

namespace splitscope {

void NameIndex::reserve(std::size_t count)
{
    std::size_t capacity = 16;
    while (capacity < count * 2)
        capacity *= 2;
    if (capacity <= m_slots.size())
        return;
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(capacity, Slot{});
    const std::size_t mask = capacity - 1;
    for (const Slot &slot : old) {
        if (slot.id < 0)
            continue;
        std::size_t i = slot.hash & mask;
        while (m_slots[i].id >= 0)
            i = (i + 1) & mask;
        m_slots[i] = slot;
    }
}

} // namespace splitscope
