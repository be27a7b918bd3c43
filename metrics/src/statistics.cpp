#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace hashtrace::metrics {

void Moments::add(double x) {
    ++n;
    const double delta = x - mean;
    mean += delta / double(n);
    m2 += delta * (x - mean);
}

namespace {
// Two doubles in one SSE register (GCC's vector extension; x86-64's
// baseline, and elsewhere lowered to scalar code): each lane is computed
// exactly as a double alone would be, in the same order, so the sums are
// bit for bit those of scalar code with half the instructions.
using Pair = double __attribute__((vector_size(16)));
Pair load_pair(const double* p) {
    Pair v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Percentiles by a histogram instead of nth_element over all values: one
// pass counts the values' top 16 bits (sign, exponent, 4 mantissa bits);
// then only the values in the buckets of the wanted ranks (each bucket
// spans 1/16 of a binade, a small part of the values) are copied out and
// selected exactly.
class RankHistogram {
public:
    // Four interleaved tables: values in a run tend to share a bucket, and
    // one table would make each count wait for the previous increment of
    // the same counter. Each table counts at most a quarter of the values,
    // so 32 bits suffice below 2^34 values. The same pass finds the
    // extremes, in four lanes likewise (one running minimum would wait ~4
    // cycles a value on the previous comparison). The values are counted a
    // range at a time (count), beside the sums that read them (summarize),
    // then counted_all.
    explicit RankHistogram(std::span<const double> values)
        : values_(values), count_(static_cast<std::uint32_t*>(std::calloc(kTables * kBuckets, sizeof(std::uint32_t))), &std::free) {
        if (!count_) throw std::bad_alloc();
        min_low_ = Pair{values[0], values[0]};
        min_high_ = max_low_ = max_high_ = min_low_;
    }

    // Counts the values of [begin, end).
    void count(std::size_t begin, std::size_t end) {
        Pair min_low = min_low_, min_high = min_high_, max_low = max_low_, max_high = max_high_;
        std::size_t i = begin;
        for (; i + kTables <= end; i += kTables) {
#pragma GCC unroll 4  // the loop over tables: unrolled, its state stays in registers
            for (std::size_t t = 0; t < kTables; ++t) ++count_[t * kBuckets + top_bits(values_[i + t])];
            const Pair low = load_pair(&values_[i]), high = load_pair(&values_[i + 2]);
            min_low = low < min_low ? low : min_low;
            min_high = high < min_high ? high : min_high;
            max_low = low > max_low ? low : max_low;
            max_high = high > max_high ? high : max_high;
        }
        for (; i < end; ++i) {
            const Pair x{values_[i], values_[i]};
            ++count_[top_bits(x[0])];
            min_low = x < min_low ? x : min_low;
            max_low = x > max_low ? x : max_low;
        }
        min_low_ = min_low, min_high_ = min_high, max_low_ = max_low, max_high_ = max_high;
    }

    // Every value counted: the extremes taken from the lanes.
    void counted_all() {
        min_ = std::min({min_low_[0], min_low_[1], min_high_[0], min_high_[1]});
        max_ = std::max({max_low_[0], max_low_[1], max_high_[0], max_high_[1]});
        // The lanes keep other copies of equal values than one chain would,
        // which only shows for zeros (-0 == +0, printed apart): a zero
        // extreme is taken again by position, the first minimum and the
        // last maximum as std::minmax_element gives them.
        if (min_ == 0) min_ = *std::find(values_.begin(), values_.end(), 0.0);
        if (max_ == 0) max_ = *std::find(values_.rbegin(), values_.rend(), 0.0);
        // A zero minimum's bucket is -0's, below +0's: the ranks are counted from there either way.
        first_bucket_ = bucket_of(min_ == 0 ? -0.0 : min_);
    }

    // The extremes of values without NaN.
    double min() const { return min_; }
    double max() const { return max_; }

    // The values at the ascending 0-based `ranks`, once every value is
    // counted: the values of the ranks' buckets are copied out a range at a
    // time (copy, beside a summary's second pass), then selected (select).
    template <std::size_t N>
    class Selection {
    public:
        Selection(const RankHistogram& histogram, const std::array<std::size_t, N>& ranks)
            : values_(histogram.values_), is_wanted_(kBuckets, 0) {
            // Each rank's bucket and its rank within the bucket.
            std::array<std::size_t, N> bucket{}, rank_in_bucket{};
            std::size_t b = histogram.first_bucket_, below = 0;
            for (std::size_t i = 0; i < N; ++i) {
                for (; below + histogram.count_of(b) <= ranks[i]; ++b) below += histogram.count_of(b);
                bucket[i] = b;
                rank_in_bucket[i] = ranks[i] - below;
            }
            // The values of the ranks' buckets, copied without a branch per
            // value and with one store each: every value is written to the next
            // slot, which only advances where the value's bucket is wanted. A
            // rank's bucket lies above the lower ranks' buckets and so do its
            // values: its rank among the copied values is its rank in its bucket
            // plus the values of the wanted buckets below.
            std::size_t previous = 0, copied = 0, copied_below = 0;
            for (std::size_t i = 0; i < N; ++i) {
                if (i == 0 || previous != bucket[i]) {
                    previous = bucket[i];
                    // Whether a value is wanted, looked up by its top 16
                    // bits (a shift and a load a value, not the bucket's
                    // sign handling and a comparison per wanted bucket).
                    is_wanted_[top_bits_of_bucket(bucket[i])] = 1;
                    copied_below = copied;
                    copied += histogram.count_of(bucket[i]);
                }
                rank_in_wanted_[i] = copied_below + rank_in_bucket[i];
            }
            copies_.resize(copied + 1);  // + the slot the values after the last wanted one are written to
            next_ = copies_.data();
        }

        // Copies the wanted values of [begin, end), moved as integers: a
        // double's top bits would first be moved from its SSE register to a
        // general one, an instruction more a value. Four values a step share
        // the loop's own instructions.
        void copy(std::size_t begin, std::size_t end) {
            double* next = next_;
            auto copy_one = [&](std::size_t i) {
                std::uint64_t bits;
                std::memcpy(&bits, &values_[i], sizeof bits);
                std::memcpy(next, &bits, sizeof bits);
                next += is_wanted_[bits >> 48];
            };
            std::size_t i = begin;
            for (; i + 4 <= end; i += 4)
#pragma GCC unroll 4
                for (std::size_t k = 0; k < 4; ++k) copy_one(i + k);
            for (; i < end; ++i) copy_one(i);
            next_ = next;
        }

        // Every value copied: the ranks' values.
        std::array<double, N> select() {
            copies_.pop_back();
            // Ascending ranks: each selection only searches above the previous.
            std::array<double, N> out{};
            auto first = copies_.begin();
            for (std::size_t i = 0; i < N; ++i) {
                const auto nth = copies_.begin() + static_cast<std::ptrdiff_t>(rank_in_wanted_[i]);
                std::nth_element(first, nth, copies_.end());
                out[i] = *nth;
                first = nth;
            }
            return out;
        }

    private:
        std::span<const double> values_;
        std::vector<std::uint8_t> is_wanted_;  // by top 16 bits
        std::array<std::size_t, N> rank_in_wanted_{};
        std::vector<double> copies_;
        double* next_;
    };

private:
    static constexpr std::size_t kTables = 4, kBuckets = std::size_t{1} << 16;
    // A bucket is the values of the same top 16 bits. The tables count by
    // the bits as they are (no sign handling a value); the ranks are
    // counted in bucket order, which is order-preserving: the unsigned
    // order of the buckets is the numeric order of the (non-NaN) values,
    // with -0 just below +0.
    static std::size_t top_bits(double x) { return std::bit_cast<std::uint64_t>(x) >> 48; }
    static std::size_t bucket_of(double x) {
        const auto bits = std::bit_cast<std::uint64_t>(x);
        return (bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63)) >> 48;
    }
    // The inverse of bucket_of on the top 16 bits: those of the values in bucket b.
    static std::size_t top_bits_of_bucket(std::size_t b) { return b >> 15 ? b & 0x7FFF : ~b & 0xFFFF; }
    std::size_t count_of(std::size_t b) const {
        std::size_t n = 0;
        for (std::size_t t = 0; t < kTables; ++t) n += count_[t * kBuckets + top_bits_of_bucket(b)];
        return n;
    }
    std::span<const double> values_;
    Pair min_low_, min_high_, max_low_, max_high_;  // the lanes' extremes so far (t = 0, 1 and 2, 3)
    double min_ = 0, max_ = 0;
    std::size_t first_bucket_ = 0;  // no value lies below: the ranks are counted from here
    // Zeroed by calloc, not by writing: a fresh mapping is zero already, so
    // the 1 MiB of counters costs pages only where values fall (and the
    // buckets below the lowest value, never read, cost none).
    std::unique_ptr<std::uint32_t[], decltype(&std::free)> count_{nullptr, &std::free};
};

}  // namespace

std::size_t nearest_rank_index(double p, std::size_t n) {
    return std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(p / 100.0 * double(n))), 1, n) - 1;
}

double nearest_rank(std::span<const double> sorted, double p) { return sorted[nearest_rank_index(p, sorted.size())]; }

namespace {
// Sums of term(i) for i in [begin, end), pairwise: the rounding error
// grows with log n instead of n. The range is halved down to leaves of at
// most 1024 terms, whose sums are added back up the same halves; a leaf is
// four independent sums (every fourth term), which keep the adder busy
// instead of waiting on one chain. A summary takes two such sums over the
// same values in one pass (pairwise_sums), so the leaves' sums are computed
// first, in order, and added up after.

// Where each leaf of [begin, end) starts, in order.
void leaf_starts(std::size_t begin, std::size_t end, std::vector<std::size_t>& starts) {
    if (end - begin > 1024) {
        const std::size_t middle = begin + (end - begin) / 2;
        leaf_starts(begin, middle, starts);
        leaf_starts(middle, end, starts);
    } else {
        starts.push_back(begin);
    }
}

// The leaves' sums of [begin, end), read from `next` on, added up the halves.
double add_leaves(std::size_t begin, std::size_t end, const double*& next) {
    if (end - begin > 1024) {
        const std::size_t middle = begin + (end - begin) / 2;
        const double first_half = add_leaves(begin, middle, next);
        return first_half + add_leaves(middle, end, next);
    }
    return *next++;
}

// One leaf's sum. term(i, lanes) gives term(i) as a double for lanes of
// type double, and term(i), term(i + 1) as a Pair for lanes of type Pair:
// the four sums are two pairs.
template <typename Term>
double leaf_sum(std::size_t begin, std::size_t end, const Term& term) {
    Pair low{0, 0}, high{0, 0};  // the sums of i + 0, i + 1 and of i + 2, i + 3
    std::size_t i = begin;
#pragma GCC unroll 2  // the loop's own instructions shared by eight values
    for (; i + 4 <= end; i += 4) {
        low += term(i, Pair{});
        high += term(i + 2, Pair{});
    }
    double first = low[0];
    for (; i < end; ++i) first += term(i, 0.0);
    return (first + low[1]) + (high[0] + high[1]);
}

// The pairwise sums of term_all over [0, n) and of term_after_first over
// [1, n), in one pass over the values (n > 0): a summary's passes read
// the values from memory (a run's M11 has one a message), each leaf of the second is
// summed right after the leaf of the first that ends with or after it,
// while its values are in cache. visit(begin, end) sees each leaf of the
// first as well, before its sum.
struct TwoSums {
    double all, after_first;
};
template <typename TermAll, typename TermAfterFirst, typename Visit>
TwoSums pairwise_sums(std::size_t n, const TermAll& term_all, const TermAfterFirst& term_after_first, const Visit& visit) {
    std::vector<std::size_t> all_starts, after_first_starts;  // each followed by n
    leaf_starts(0, n, all_starts);
    all_starts.push_back(n);
    leaf_starts(1, n, after_first_starts);
    after_first_starts.push_back(n);
    std::vector<double> all_sums(all_starts.size() - 1), after_first_sums(after_first_starts.size() - 1);
    for (std::size_t k = 0, j = 0; k + 1 < all_starts.size(); ++k) {
        visit(all_starts[k], all_starts[k + 1]);
        all_sums[k] = leaf_sum(all_starts[k], all_starts[k + 1], term_all);
        for (; j + 1 < after_first_starts.size() && after_first_starts[j + 1] <= all_starts[k + 1]; ++j)
            after_first_sums[j] = leaf_sum(after_first_starts[j], after_first_starts[j + 1], term_after_first);
    }
    const double* next = all_sums.data();
    const double all = add_leaves(0, n, next);
    next = after_first_sums.data();
    return {all, add_leaves(1, n, next)};
}

// The terms, at i for one lane (double) or at i and i + 1 (Pair).
template <typename Lanes>
Lanes values_at(const double* x, std::size_t i) {
    if constexpr (std::is_same_v<Lanes, double>) return x[i];
    else return load_pair(x + i);
}
}  // namespace

// Mean and population variance by two passes (the mean, then the squared
// deviations from it) instead of Welford's update, which divides once per
// value in one long dependency chain: as accurate or more, and several
// times faster. Jitter likewise, over the successive differences
// d_i = x_i - x_(i-1), i = 1 .. n-1: each pass sums the values' terms and
// the differences' at once.
Summary summarize(std::span<const double> values) {
    Summary s;
    const std::size_t n = values.size();
    s.count = n;
    if (n == 0) return s;
    RankHistogram histogram(values);
    const double* x = values.data();
    auto difference = [x]<typename Lanes>(std::size_t i) { return values_at<Lanes>(x, i) - values_at<Lanes>(x, i - 1); };
    const TwoSums sums = pairwise_sums(
        n, [x]<typename Lanes>(std::size_t i, Lanes) { return values_at<Lanes>(x, i); },
        [&difference]<typename Lanes>(std::size_t i, Lanes) { return difference.template operator()<Lanes>(i); },
        [&histogram](std::size_t begin, std::size_t end) { histogram.count(begin, end); });
    histogram.counted_all();
    s.min = histogram.min();
    s.max = histogram.max();
    s.mean = sums.all / double(n);
    const double diff_mean = n > 1 ? sums.after_first / double(n - 1) : 0;
    RankHistogram::Selection<3> percentiles(histogram, {nearest_rank_index(50, n), nearest_rank_index(95, n), nearest_rank_index(99, n)});
    const TwoSums squares = pairwise_sums(
        n,
        [x, mean = s.mean]<typename Lanes>(std::size_t i, Lanes) {
            const Lanes deviation = values_at<Lanes>(x, i) - mean;
            return deviation * deviation;
        },
        [&difference, diff_mean]<typename Lanes>(std::size_t i, Lanes) {
            const Lanes deviation = difference.template operator()<Lanes>(i) - diff_mean;
            return deviation * deviation;
        },
        [&percentiles](std::size_t begin, std::size_t end) { percentiles.copy(begin, end); });
    s.sd = std::sqrt(squares.all / double(n));
    if (n > 1) s.jitter = std::sqrt(squares.after_first / double(n - 1));
    const auto p = percentiles.select();
    s.p50 = p[0];
    s.p95 = p[1];
    s.p99 = p[2];
    return s;
}

}  // namespace hashtrace::metrics
