// frontier.hpp - the forward search's frontier (reach.cpp): the samples
// reached and not yet expanded, popped smallest index first.
#pragma once

#include "hashtrace/graph/sample_set.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace hashtrace::metrics::detail {

// A search's frontier mostly holds one to three samples, where a sorted
// buffer (descending, the smallest at the back) pops without moving
// anything and pushes past a sample or two, far cheaper than a binary
// heap's push and pop. A
// frontier grown past kSorted samples turns into a binary heap (the buffer
// reversed is one), so that a wide search costs no more than a heap would.
class Frontier {
public:
    // Empty; its buffer is kept across searches (its contents are not read).
    // The frontier works on a copy of the buffer's pointer and its own
    // size, which stay in registers.
    explicit Frontier(std::vector<graph::SampleIndex>& buffer) : buffer_(buffer) {
        if (buffer_.size() < kSorted) buffer_.resize(kSorted);
        items_ = buffer_.data();
    }
    bool empty() const { return size_ == 0; }
    void push(graph::SampleIndex c) {
        if (!heap_) {
            if (size_ < kSorted) {
                std::size_t j = size_++;
                for (; j > 0 && items_[j - 1] < c; --j) items_[j] = items_[j - 1];
                items_[j] = c;
                return;
            }
            std::reverse(items_, items_ + size_);  // ascending: a min-heap
            heap_ = true;
        }
        if (size_ == buffer_.size()) {
            buffer_.resize(2 * size_);
            items_ = buffer_.data();
        }
        items_[size_++] = c;
        std::push_heap(items_, items_ + size_, std::greater<>());
    }
    // The smallest sample, taken out; the frontier must not be empty.
    graph::SampleIndex pop() {
        if (heap_) std::pop_heap(items_, items_ + size_, std::greater<>());
        return items_[--size_];
    }

private:
    static constexpr std::size_t kSorted = 32;
    std::vector<graph::SampleIndex>& buffer_;
    graph::SampleIndex* items_;
    std::size_t size_ = 0;
    bool heap_ = false;
};

}  // namespace hashtrace::metrics::detail
