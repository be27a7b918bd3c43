// hashtrace/graph/column.hpp - the storage of SampleSet's and Graph's
// columns: a std::vector whose large buffers come from a pool of 2 MiB pages
// that the stages of an analysis hand on to each other
// (detail/page_pool.hpp says why).
//
// One difference from std::vector<T>: resize(n) and Column<T>(n) leave new
// elements of trivial types uninitialised, like `new T[n]`; give a value
// (resize(n, T{}), Column<T>(n, T{})) to have them set.
#pragma once

#include "hashtrace/graph/detail/column_allocator.hpp"

#include <vector>

namespace hashtrace::graph {

template <typename T>
using Column = std::vector<T, detail::ColumnAllocator<T>>;

// Returns the pool's free pages to the system: the pool keeps what the
// stages freed for the next analysis in this process; a long-running program
// that analyses once in a while can give it back in between.
inline void release_pooled_memory() noexcept { detail::PagePool::shared().release_free(); }

}  // namespace hashtrace::graph
