// SPDX-License-Identifier: MIT
#include "GraphLayout.h"

namespace splitscope {

int GraphLayout::nodeIndex(UnitId unit) const
{
    // Requests list the units in pipeline order, then the loss: try the direct slot first.
    if (unit >= 0 && unit < static_cast<UnitId>(nodes.size()) && nodes[unit].unit == unit)
        return unit;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].unit == unit)
            return static_cast<int>(i);
    }
    return -1;
}

} // namespace splitscope
