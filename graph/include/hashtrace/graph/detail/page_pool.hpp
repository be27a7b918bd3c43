// hashtrace/graph/detail/page_pool.hpp - large buffers on 2 MiB pages, kept
// when freed and handed to the next large allocation.
//
// Why: the stages of an analysis each allocate large buffers and free them
// for the next stage (the loader's chunk columns, the join's edge lists).
// Unmapped and mapped again, every page was new to the process and the
// kernel zeroed it as it was first touched: a 4M-sample analysis faulted in
// ~490 MB for its 230 MB peak, and `clear_page_erms` took 14% of its CPU.
// Kept here instead, a freed buffer is already in place for the next one.
//
// Regions are multiples of 2 MiB on 2 MiB boundaries, advised for huge pages
// (huge_pages.hpp) before their first touch; adjacent free regions merge, and
// a request takes the smallest free region that holds it (else a new range,
// into which scattered free pages are moved). Free pages are kept while
// something taken from the pool is still in use (within an analysis, its
// SampleSet) or the pool is held (hold(): a run analysed in time shards,
// between its shards), and returned to the system when the last of it is
// given back, or by release_free().
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace hashtrace::graph::detail {

class PagePool {
public:
    // The process's pool, which every Column allocates from.
    static PagePool& shared();

    PagePool();
    ~PagePool();
    PagePool(const PagePool&) = delete;
    PagePool& operator=(const PagePool&) = delete;

    // At least `bytes` (> 0), 2 MiB-aligned; the content is whatever the
    // previous user left there. Throws std::bad_alloc.
    void* take(std::size_t bytes);
    // The same, all zero: only what earlier users touched is cleared, as
    // fresh pages come zeroed from the kernel.
    void* take_zeroed(std::size_t bytes);
    // Gives back what take returned for `bytes`; the last region in use
    // given back releases the free ones, unless the pool is held.
    void give(void* p, std::size_t bytes) noexcept;
    // While held (hold() more often than let_go()), free pages are kept even
    // when nothing is in use; the last let_go() with nothing in use releases them.
    void hold() noexcept;
    void let_go() noexcept;
    // Returns the free regions to the kernel.
    void release_free() noexcept;
    // Bytes held free for the next take.
    std::size_t free_bytes() const;

private:
    struct Region {
        std::uintptr_t begin;
        std::size_t bytes;
        bool clean;  // never lent out: still the kernel's zeros
    };
    void* take(std::size_t bytes, bool zeroed);
    void add_free(Region r) noexcept;
    void release_free_locked() noexcept;

    mutable std::mutex mutex_;
    std::vector<Region> free_;  // by address; reserved, so that give() never allocates
    std::size_t in_use_ = 0;    // bytes taken and not given back
    std::size_t holds_ = 0;     // hold() calls not yet let go
};

}  // namespace hashtrace::graph::detail
