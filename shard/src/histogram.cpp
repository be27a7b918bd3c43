#include "hashtrace/shard/histogram.hpp"

#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace hashtrace::shard {

LogHistogram::LogHistogram(double relative_error) {
    if (!(relative_error > 0 && relative_error < 1)) throw std::invalid_argument("a histogram's relative error must be between 0 and 1");
    bits_ = 0;
    while (std::ldexp(1.0, -static_cast<int>(bits_ + 1)) > relative_error) ++bits_;
}

double LogHistogram::relative_error() const noexcept { return std::ldexp(1.0, -static_cast<int>(bits_ + 1)); }

// Values below 2^bits are their own bucket; above, a binade's 2^bits
// buckets follow the previous binade's, so indices grow with the value.
// With shift = max(highest bit - bits, 0), the index is
// shift * 2^bits + (value >> shift): a value's bits + 1 top bits after the
// binades below it, and a value below 2^(bits + 1) itself. One formula for
// both, no branch a value.
std::size_t LogHistogram::index_of(std::uint64_t magnitude) const noexcept {
    const unsigned high = 63u - static_cast<unsigned>(std::countl_zero(magnitude | 1));
    const unsigned shift = high > bits_ ? high - bits_ : 0;
    return static_cast<std::size_t>((std::uint64_t{shift} << bits_) + (magnitude >> shift));
}

double LogHistogram::middle_of(std::size_t index) const noexcept {
    const std::uint64_t one = std::uint64_t{1} << bits_;
    if (index < 2 * one) return double(index);  // widths of 1: the value itself
    const std::uint64_t group = index >> bits_, sub = index & (one - 1);
    const unsigned shift = static_cast<unsigned>(group - 1);
    const double low = std::ldexp(double(one + sub), static_cast<int>(shift));
    return low + (std::ldexp(1.0, static_cast<int>(shift)) - 1) / 2;
}

void LogHistogram::bump(std::vector<std::uint64_t>& counts, std::size_t index, std::uint64_t n) {
    if (index >= counts.size()) counts.resize(index + 1, 0);
    counts[index] += n;
}

void LogHistogram::add(std::int64_t value, std::uint64_t n) {
    if (value >= 0) bump(positive_, index_of(static_cast<std::uint64_t>(value)), n);
    else bump(negative_, index_of(0 - static_cast<std::uint64_t>(value)), n);
    count_ += n;
}

void LogHistogram::add_all(std::span<const std::int64_t> values) {
    if (values.empty()) return;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    add_all(values, *low, *high);
}

namespace {

// index_of as a table of its binade's shift and first index, by the
// value's highest bit: two loads a value instead of the shifts' arithmetic.
struct BinadeTable {
    std::array<std::uint8_t, 64> shift_of;
    std::array<std::uint64_t, 64> first_of;
};

BinadeTable binade_table(unsigned bits) {
    BinadeTable t;
    for (unsigned high = 0; high < 64; ++high) {
        t.shift_of[high] = static_cast<std::uint8_t>(high > bits ? high - bits : 0);
        t.first_of[high] = std::uint64_t{t.shift_of[high]} << bits;
    }
    return t;
}

// The tables of the precisions used in practice, made once: made a call,
// they cost more than counting a small batch (a time bin's values).
constexpr unsigned kTabled = 16;  // 0.1 % takes 9 bits, 1 % 6
const BinadeTable& binade_table_of(unsigned bits, BinadeTable& scratch) {
    static const std::array<BinadeTable, kTabled> tables = [] {
        std::array<BinadeTable, kTabled> all;
        for (unsigned b = 0; b < kTabled; ++b) all[b] = binade_table(b);
        return all;
    }();
    if (bits < kTabled) return tables[bits];
    return scratch = binade_table(bits);
}

}  // namespace

// 12 instructions a value instead of 19, in the kernel's busiest loop.
void LogHistogram::count_positive(std::span<const std::int64_t> values) {
    BinadeTable scratch;
    const BinadeTable& table = binade_table_of(bits_, scratch);
    std::uint64_t* const counts = positive_.data();
#pragma GCC unroll 4
    for (const std::int64_t v : values) {
        const auto m = static_cast<std::uint64_t>(v);
        const unsigned high = static_cast<unsigned>(std::countl_zero(m | 1)) ^ 63u;  // as `63 -`, but GCC then keeps bsr's result as it is
        ++counts[table.first_of[high] + (m >> table.shift_of[high])];
    }
    count_ += values.size();
}

void LogHistogram::add_all(std::span<const std::int64_t> values, std::int64_t lowest, std::int64_t highest) {
    if (values.empty()) return;
    if (highest >= 0 && index_of(static_cast<std::uint64_t>(highest)) >= positive_.size()) positive_.resize(index_of(static_cast<std::uint64_t>(highest)) + 1, 0);
    if (lowest < 0 && index_of(0 - static_cast<std::uint64_t>(lowest)) >= negative_.size()) negative_.resize(index_of(0 - static_cast<std::uint64_t>(lowest)) + 1, 0);
    // Every index is now in range: a value's bucket lies at or below its extreme's.
    if (lowest >= 0) {  // latencies, nearly always: no sign to test a value
        count_positive(values);
        return;
    }
    for (const std::int64_t v : values) {
        if (v >= 0) ++positive_[index_of(static_cast<std::uint64_t>(v))];
        else ++negative_[index_of(0 - static_cast<std::uint64_t>(v))];
    }
    count_ += values.size();
}

void LogHistogram::merge(const LogHistogram& other) {
    if (other.bits_ != bits_) throw std::invalid_argument("histograms of different precision cannot be merged");
    for (std::size_t i = 0; i < other.positive_.size(); ++i)
        if (other.positive_[i]) bump(positive_, i, other.positive_[i]);
    for (std::size_t i = 0; i < other.negative_.size(); ++i)
        if (other.negative_[i]) bump(negative_, i, other.negative_[i]);
    count_ += other.count_;
}

double LogHistogram::percentile(double p) const {
    if (count_ == 0) return 0;
    return at_index(metrics::nearest_rank_index(p, count_));
}

std::int64_t LogHistogram::bucket_at_index(std::uint64_t rank) const {
    for (std::size_t i = negative_.size(); i-- > 0;) {
        if (rank < negative_[i]) return -static_cast<std::int64_t>(i) - 1;
        rank -= negative_[i];
    }
    for (std::size_t i = 0; i < positive_.size(); ++i) {
        if (rank < positive_[i]) return static_cast<std::int64_t>(i);
        rank -= positive_[i];
    }
    throw std::out_of_range("a rank past the histogram's count");
}

double LogHistogram::at_index(std::uint64_t index) const {
    const std::int64_t key = bucket_at_index(index);
    return key >= 0 ? middle_of(static_cast<std::size_t>(key)) : -middle_of(static_cast<std::size_t>(-(key + 1)));
}

std::int64_t LogHistogram::bucket_of(std::int64_t value) const noexcept {
    if (value >= 0) return static_cast<std::int64_t>(index_of(static_cast<std::uint64_t>(value)));
    return -static_cast<std::int64_t>(index_of(0 - static_cast<std::uint64_t>(value))) - 1;
}

std::uint64_t LogHistogram::count_below(double value) const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < negative_.size(); ++i) n += -middle_of(i) < value ? negative_[i] : 0;
    for (std::size_t i = 0; i < positive_.size() && middle_of(i) < value; ++i) n += positive_[i];
    return n;
}

std::vector<std::pair<std::int64_t, std::uint64_t>> LogHistogram::buckets() const {
    std::vector<std::pair<std::int64_t, std::uint64_t>> out;
    for (std::size_t i = negative_.size(); i-- > 0;)
        if (negative_[i]) out.emplace_back(-static_cast<std::int64_t>(i) - 1, negative_[i]);
    for (std::size_t i = 0; i < positive_.size(); ++i)
        if (positive_[i]) out.emplace_back(static_cast<std::int64_t>(i), positive_[i]);
    return out;
}

std::vector<std::pair<double, std::uint64_t>> LogHistogram::values() const {
    std::vector<std::pair<double, std::uint64_t>> out;
    for (std::size_t i = negative_.size(); i-- > 0;)
        if (negative_[i]) out.emplace_back(-middle_of(i), negative_[i]);
    for (std::size_t i = 0; i < positive_.size(); ++i)
        if (positive_[i]) out.emplace_back(middle_of(i), positive_[i]);
    return out;
}

LogHistogram LogHistogram::from_buckets(unsigned sub_bucket_bits, const std::vector<std::pair<std::int64_t, std::uint64_t>>& buckets) {
    if (sub_bucket_bits > 20) throw std::invalid_argument("a histogram's sub-bucket bits must be at most 20");
    LogHistogram h(ByBits{}, sub_bucket_bits);
    const std::int64_t limit = std::int64_t{64} << sub_bucket_bits;  // no index of a 64-bit value reaches it
    for (const auto& [key, n] : buckets) {
        if (key >= limit || key < -limit) throw std::invalid_argument("a histogram bucket is out of range: " + std::to_string(key));
        if (key >= 0) bump(h.positive_, static_cast<std::size_t>(key), n);
        else bump(h.negative_, static_cast<std::size_t>(-(key + 1)), n);
        h.count_ += n;
    }
    return h;
}

bool operator==(const LogHistogram& a, const LogHistogram& b) { return a.bits_ == b.bits_ && a.buckets() == b.buckets(); }

}  // namespace hashtrace::shard
