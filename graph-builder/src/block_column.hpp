// block_column.hpp - an append-only column in fixed-size blocks: growing it
// never copies, so parsing a log costs its final size plus one block, not the
// 3x a doubling vector peaks at.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace hashtrace::graph::detail {

template <typename T>
class BlockColumn {
public:
    static constexpr std::size_t kBlock = std::size_t{1} << 16;

    // Appends n values: fill(dst, first, count) writes values [first, first +
    // count) of them to dst, once per contiguous piece (so a caller's loop
    // runs without a bounds check per value).
    template <typename F>
    void append(std::size_t n, F&& fill) {
        for (std::size_t done = 0; done < n;) {
            if (next_ == end_) {
                blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlock));
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
    T operator[](std::size_t i) const { return blocks_[i / kBlock][i % kBlock]; }
    std::size_t size() const noexcept { return size_; }
    void clear() {
        blocks_.clear();
        blocks_.shrink_to_fit();
        size_ = 0;
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
    std::vector<std::unique_ptr<T[]>> blocks_;
    std::size_t size_ = 0;
    T* next_ = nullptr;  // where the next value goes in the last block
    T* end_ = nullptr;
};

}  // namespace hashtrace::graph::detail
