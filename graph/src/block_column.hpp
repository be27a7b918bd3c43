// block_column.hpp - an append-only column in fixed-size blocks: growing it
// never copies, so parsing a log costs its final size plus one block, not the
// 3x a doubling vector peaks at. A block spans one 2 MiB page, and is a huge
// page of the page pool (page_pool.hpp) from the second block on, or from
// the first when the caller expects to fill most of it (expect): a small log
// touches only the 4 KiB pages it fills, a large one takes 2 MiB at a time,
// and gives them back to the pool for the next stage when cleared.
#pragma once

#include <algorithm>
#include "hashtrace/graph/detail/huge_pages.hpp"
#include "hashtrace/graph/detail/page_pool.hpp"

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace hashtrace::graph::detail {

template <typename T>
class BlockColumn {
public:
    static constexpr std::size_t kBlock = kHugePage / sizeof(T);
    static_assert((kBlock & (kBlock - 1)) == 0, "operator[] divides by kBlock");

    // Appends n values: fill(dst, first, count) writes values [first, first +
    // count) of them to dst, once per contiguous piece (so a caller's loop
    // runs without a bounds check per value).
    template <typename F>
    void append(std::size_t n, F&& fill) {
        for (std::size_t done = 0; done < n;) {
            if (next_ == end_) {
                blocks_.push_back(new_block(!blocks_.empty() || first_on_huge_page_));
                next_ = blocks_.back().get();
                end_ = next_ + kBlock;
            }
            const std::size_t count = std::min(n - done, static_cast<std::size_t>(end_ - next_));
            fill(next_, done, count);
            next_ += count;
            done += count;
            size_ += count;
        }
    }
    // The caller's estimate of how many values will be appended next. Before
    // the first block: if they fill at least half of it, it goes on a huge
    // page too (512 faults of 4 KiB pages fewer; an estimate too high leaves
    // at most half a huge page resident in vain).
    void expect(std::size_t more) noexcept {
        if (blocks_.empty() && more >= kBlock / 2) first_on_huge_page_ = true;
    }

    std::size_t size() const noexcept { return size_; }
    // kBlock is a power of two (sizeof(T) is), so this is a shift and a mask.
    const T& operator[](std::size_t i) const noexcept { return blocks_[i / kBlock].get()[i % kBlock]; }
    // Values [b * kBlock, min(size(), (b + 1) * kBlock)), for a block that exists.
    const T* block(std::size_t b) const noexcept { return blocks_[b].get(); }
    void clear() {
        blocks_.clear();
        blocks_.shrink_to_fit();
        size_ = 0;
        first_on_huge_page_ = false;
        next_ = end_ = nullptr;
    }

    // Visits [first, first + count) block by block (contiguous spans).
    template <typename F>
    void for_each_span(std::size_t first, std::size_t count, F&& f) const {
        while (count > 0) {
            const std::size_t offset = first % kBlock;
            const std::size_t n = std::min(count, kBlock - offset);
            f(blocks_[first / kBlock].get() + offset, n);
            first += n;
            count -= n;
        }
    }

private:
    // A block from the page pool (a huge page, maybe one another column
    // freed) or, for a column that may stay small, from the heap, advised for
    // nothing: a small log touches only the 4 KiB pages it fills.
    struct Free {
        bool pooled;
        void operator()(T* p) const noexcept {
            if (pooled)
                PagePool::shared().give(p, kHugePage);
            else
                std::free(p);
        }
    };
    using Block = std::unique_ptr<T, Free>;
    static Block new_block(bool pooled) {
        if (pooled) return Block(static_cast<T*>(PagePool::shared().take(kHugePage)), Free{true});
        void* block = std::aligned_alloc(kHugePage, kHugePage);
        if (!block) throw std::bad_alloc();
        return Block(static_cast<T*>(block), Free{false});
    }
    std::vector<Block> blocks_;
    std::size_t size_ = 0;
    bool first_on_huge_page_ = false;
    T* next_ = nullptr;  // where the next value goes in the last block
    T* end_ = nullptr;
};

}  // namespace hashtrace::graph::detail
