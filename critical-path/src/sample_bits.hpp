// sample_bits.hpp - a bit per sample of a run, 64 to a word, so that a pass
// over the run can take a word's samples at once and skip the words with
// nothing to do.
#pragma once

#include "hashtrace/critical_path/model.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hashtrace::critical_path {

class SampleBits {
public:
    SampleBits() = default;
    explicit SampleBits(std::size_t samples) : words_((samples + 63) / 64, 0) {}

    bool empty() const { return words_.empty(); }
    std::size_t words() const { return words_.size(); }
    bool test(SampleIndex x) const { return (words_[x / 64] >> (x % 64)) & 1; }
    void set(SampleIndex x) { words_[x / 64] |= bit(x); }
    void clear(SampleIndex x) { words_[x / 64] &= ~bit(x); }
    // Samples 64 w .. 64 w + 63, a bit each; x's bit in its word.
    std::uint64_t word(std::size_t w) const { return words_[w]; }
    std::uint64_t& word(std::size_t w) { return words_[w]; }
    static std::uint64_t bit(SampleIndex x) { return std::uint64_t{1} << (x % 64); }

    // Calls f(x) for every sample x whose bit is set, in sample order.
    template <typename F> void for_each(F&& f) const {
        for (std::size_t w = 0; w < words_.size(); ++w)
            for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) f(SampleIndex(w * 64 + std::size_t(std::countr_zero(bits))));
    }

private:
    std::vector<std::uint64_t> words_;
};

}  // namespace hashtrace::critical_path
