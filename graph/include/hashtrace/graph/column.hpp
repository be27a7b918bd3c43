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

// While one lives, the pool keeps its free pages even when no column is in
// use: a run analysed in time shards frees each shard's columns just before
// the next shard takes as many again, and pages handed back to the kernel in
// between come back from it zeroed, at a cost (a fifth of such a run's CPU
// went to clearing pages).
class KeepPooledMemory {
public:
    KeepPooledMemory() noexcept { detail::PagePool::shared().hold(); }
    ~KeepPooledMemory() { detail::PagePool::shared().let_go(); }
    KeepPooledMemory(const KeepPooledMemory&) = delete;
    KeepPooledMemory& operator=(const KeepPooledMemory&) = delete;
};

}  // namespace hashtrace::graph
