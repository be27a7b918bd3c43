// time_order.hpp - the stable time order of a time column and applying it
// to the other columns (sort_by_time; load's merge, for files far out of
// time order).
#pragma once

#include "hashtrace/graph/detail/huge_pages.hpp"
#include "hashtrace/graph/sample_set.hpp"

#include <cstdint>
#include <vector>

namespace hashtrace::graph::detail {

// Sample indices in time order, ties in index order.
std::vector<SampleIndex> time_order(const std::vector<std::int64_t>& time);

template <typename T>
void permute(std::vector<T>& column, const std::vector<SampleIndex>& order) {
    std::vector<T> sorted = vector_on_huge_pages<T>(column.size());
    for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = column[order[i]];
    column.swap(sorted);
}

}  // namespace hashtrace::graph::detail
