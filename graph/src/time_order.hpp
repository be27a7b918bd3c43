// time_order.hpp - the stable time order of a time column and applying it
// to the other columns (sort_by_time; load's merge, for files far out of
// time order).
#pragma once

#include "hashtrace/graph/sample_set.hpp"

#include <cstdint>
#include <span>

namespace hashtrace::graph::detail {

// Sample indices in time order, ties in index order.
Column<SampleIndex> time_order(std::span<const std::int64_t> time);

template <typename T>
void permute(Column<T>& column, std::span<const SampleIndex> order) {
    Column<T> sorted(column.size());
    for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = column[order[i]];
    column.swap(sorted);
}

}  // namespace hashtrace::graph::detail
