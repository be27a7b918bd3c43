// hashtrace/shard/histogram.hpp - a log-bucket histogram of integer values
// (nanoseconds) whose percentiles are within a stated relative error, and
// whose merge is the addition of counts: the result cannot depend on how a
// run was cut into shards, nor on the order in which they are merged.
//
//   LogHistogram h;                 // 0.1 % by default
//   h.add(latency_ns);
//   h.merge(other_shard);
//   double p99 = h.percentile(99);  // within h.relative_error() of the exact nearest rank
//
// Why this layout: HdrHistogram's. A value's bucket is its binade (the
// position of its highest bit) and the next k bits below it, so finding it
// is two bit operations (no logarithm per value, which would cost more than
// the rest of a shard's measuring). Values below 2^k are their own bucket
// (exact). A bucket's middle is within 2^-(k+1) of every value in it,
// relative: k = 9 gives 0.098 % for the 0.1 % asked by default. Negative
// values (a clock error the linking tolerated) are kept by magnitude in a
// mirror of the same buckets.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::shard {

class LogHistogram {
public:
    // The smallest number of bits below the highest that keeps every
    // bucket's middle within `relative_error` of its values (0 < error < 1).
    explicit LogHistogram(double relative_error = 0.001);

    void add(std::int64_t value) { add(value, 1); }
    void add(std::int64_t value, std::uint64_t count);
    // Each of `values` once: as many add(v), with the buckets grown once
    // (the per-value growth check showed in the time-shard kernel's profile).
    void add_all(std::span<const std::int64_t> values);
    // The same, for a caller that has the batch's extremes already.
    void add_all(std::span<const std::int64_t> values, std::int64_t lowest, std::int64_t highest);
    // Adds another histogram's counts; throws std::invalid_argument when its precision differs.
    void merge(const LogHistogram& other);

    std::uint64_t count() const noexcept { return count_; }
    unsigned sub_bucket_bits() const noexcept { return bits_; }
    // The bound every percentile keeps, relative to the exact value: 2^-(bits+1).
    double relative_error() const noexcept;

    // The p-th percentile (0 < p <= 100) by nearest rank, as docs/spec.md
    // section 5b defines it for exact values: the middle of the bucket that
    // holds the value of rank ceil(p/100 * N). 0 when empty.
    double percentile(double p) const;
    // The value of 0-based rank `index` from the smallest (index < count()):
    // the middle of the bucket that holds it.
    double at_index(std::uint64_t index) const;
    // The key of the bucket `value` falls in (as buckets() names them), and
    // of the bucket holding the value of 0-based rank `index`.
    std::int64_t bucket_of(std::int64_t value) const noexcept;
    std::int64_t bucket_at_index(std::uint64_t index) const;
    // How many values lie below `value`, to the bucket (a bucket counts
    // when its middle does).
    std::uint64_t count_below(double value) const;

    // The non-empty buckets as (signed bucket key, count), ascending by
    // value, for serialising; from_buckets restores them.
    std::vector<std::pair<std::int64_t, std::uint64_t>> buckets() const;
    // The non-empty buckets as (their middle, count), ascending: what a
    // chart draws (each value is within relative_error() of its middle).
    std::vector<std::pair<double, std::uint64_t>> values() const;
    static LogHistogram from_buckets(unsigned sub_bucket_bits, const std::vector<std::pair<std::int64_t, std::uint64_t>>& buckets);

    friend bool operator==(const LogHistogram& a, const LogHistogram& b);

private:
    struct ByBits {};
    LogHistogram(ByBits, unsigned bits) : bits_(bits) {}
    std::size_t index_of(std::uint64_t magnitude) const noexcept;
    double middle_of(std::size_t index) const noexcept;
    static void bump(std::vector<std::uint64_t>& counts, std::size_t index, std::uint64_t n);
    void count_positive(std::span<const std::int64_t> values);  // each >= 0, its bucket already there

    unsigned bits_ = 9;
    std::uint64_t count_ = 0;
    std::vector<std::uint64_t> positive_;  // by index_of(value)
    std::vector<std::uint64_t> negative_;  // by index_of(-value)
};

}  // namespace hashtrace::shard
