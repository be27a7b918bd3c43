// zeroed_buffer.hpp - a large zeroed array on 2 MiB pages, never written
// to zero it.
//
// Why: a value-initialised vector (or Column) writes its zeros, and the
// edge pass's columns (the waits, the per-sample changes of M3) would be
// written once with zeros and then again with their values. calloc gives a fresh mapping, which the kernel zeroes as
// it faults each page in, without writing it first; 2 MiB to spare lets
// the array start on a 2 MiB boundary, so that every page of it can be a
// huge page (a vector's buffer starts 16 bytes into a 4 KiB page, and the
// first and last partial 2 MiB are faulted in 4 KiB at a time). Not from
// the page pool (graph/detail/page_pool.hpp): pages an earlier stage freed
// would be cleared and resident in full, and these arrays are written only
// in part (the waits of message edges, the changes at their samples).
//
// An array whose every slot read is written first (the waits) asks for no
// zeros (Fill::overwritten): malloc, not calloc. A fresh mapping comes from
// the kernel zeroed either way, but memory the heap hands out again (a run
// analysed in time shards frees and allocates these arrays once a shard)
// calloc clears with a memset of the whole array, for nothing.
#pragma once

#include "hashtrace/graph/detail/huge_pages.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

namespace hashtrace::metrics::detail {

enum class Fill { zeros, overwritten };

template <typename T>
class ZeroedBuffer {
public:
    explicit ZeroedBuffer(std::size_t count, Fill fill = Fill::zeros) : count_(count) {
        using graph::detail::kHugePage;
        const std::size_t pages_bytes = (count * sizeof(T) + kHugePage - 1) & ~(kHugePage - 1);
        memory_.reset(fill == Fill::zeros ? std::calloc(pages_bytes + kHugePage, 1) : std::malloc(pages_bytes + kHugePage));
        if (!memory_) throw std::bad_alloc();
        const auto first = (reinterpret_cast<std::uintptr_t>(memory_.get()) + kHugePage - 1) & ~std::uintptr_t{kHugePage - 1};
        data_ = reinterpret_cast<T*>(first);
        graph::detail::advise_huge_pages(data_, pages_bytes);
    }
    T* data() const noexcept { return data_; }
    std::span<T> span() const noexcept { return {data_, count_}; }

private:
    struct Free {
        void operator()(void* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<void, Free> memory_;
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace hashtrace::metrics::detail
