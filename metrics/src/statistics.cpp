#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hashtrace::metrics {

void Moments::add(double x) {
    ++n;
    const double delta = x - mean;
    mean += delta / double(n);
    m2 += delta * (x - mean);
}

namespace {
// 1-based rank ceil(p/100 * n), at least 1 (p = 0 means the minimum).
std::size_t rank_of(double p, std::size_t n) {
    return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(p / 100.0 * double(n))), 1, n);
}

// Percentiles by a histogram instead of nth_element over all values: the
// histogram of the values' top 16 bits (sign, exponent, 4 mantissa bits)
// is filled in the pass that computes the moments, where it hides behind
// their division chain; then only the values in the buckets of the wanted
// ranks (each bucket spans 1/16 of a binade, a small part of the values)
// are copied out and selected exactly.
class RankHistogram {
public:
    void add(double x) { ++count_[bucket_of(x)]; }

    // The values at the ascending 0-based `ranks` of `values` (all added).
    template <std::size_t N>
    std::array<double, N> select(std::span<const double> values, const std::array<std::size_t, N>& ranks) const {
        // Each rank's bucket and its rank within the bucket.
        std::array<std::size_t, N> bucket{}, rank_in_bucket{};
        std::size_t b = 0, below = 0;
        for (std::size_t i = 0; i < N; ++i) {
            for (; below + count_[b] <= ranks[i]; ++b) below += count_[b];
            bucket[i] = b;
            rank_in_bucket[i] = ranks[i] - below;
        }
        // The values of the distinct buckets (ascending, as the ranks are).
        std::array<std::vector<double>, N> in_bucket;
        std::array<std::size_t, N> distinct{};
        std::size_t distinct_count = 0;
        for (std::size_t i = 0; i < N; ++i)
            if (distinct_count == 0 || distinct[distinct_count - 1] != bucket[i]) {
                in_bucket[distinct_count].reserve(count_[bucket[i]]);
                distinct[distinct_count++] = bucket[i];
            }
        for (const double x : values) {
            const std::size_t bx = bucket_of(x);
            for (std::size_t k = 0; k < distinct_count; ++k)
                if (bx == distinct[k]) in_bucket[k].push_back(x);
        }
        // Ascending ranks in one bucket: each selection only searches above the previous.
        std::array<double, N> out{};
        std::size_t k = 0;
        auto first = in_bucket[0].begin();
        for (std::size_t i = 0; i < N; ++i) {
            if (bucket[i] != distinct[k]) first = in_bucket[++k].begin();
            const auto nth = in_bucket[k].begin() + static_cast<std::ptrdiff_t>(rank_in_bucket[i]);
            std::nth_element(first, nth, in_bucket[k].end());
            out[i] = *nth;
            first = nth;
        }
        return out;
    }

private:
    // Order-preserving: the unsigned order of the keys is the numeric order
    // of the (non-NaN) values, with -0 just below +0.
    static std::size_t bucket_of(double x) {
        const auto bits = std::bit_cast<std::uint64_t>(x);
        return (bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63)) >> 48;
    }
    std::vector<std::size_t> count_ = std::vector<std::size_t>(std::size_t{1} << 16, 0);
};

}  // namespace

double nearest_rank(std::span<const double> sorted, double p) { return sorted[rank_of(p, sorted.size()) - 1]; }

Summary summarize(std::span<const double> values) {
    Summary s;
    s.count = values.size();
    if (values.empty()) return s;
    Moments m, diffs;
    RankHistogram histogram;
    s.min = s.max = values[0];
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double x = values[i];
        m.add(x);
        if (i > 0) diffs.add(x - values[i - 1]);
        // The first minimum and the last maximum, as std::minmax_element.
        if (x < s.min) s.min = x;
        if (!(x < s.max)) s.max = x;
        histogram.add(x);
    }
    s.mean = m.mean;
    s.sd = std::sqrt(m.variance());
    s.jitter = std::sqrt(diffs.variance());
    const std::size_t n = values.size();
    const auto p = histogram.select(values, std::array<std::size_t, 3>{rank_of(50, n) - 1, rank_of(95, n) - 1, rank_of(99, n) - 1});
    s.p50 = p[0];
    s.p95 = p[1];
    s.p99 = p[2];
    return s;
}

}  // namespace hashtrace::metrics
