#include "hashtrace/shard/summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hashtrace::shard {
namespace {

// Population variance from exact sums, in long double (64 bits of mantissa:
// the integers' rounding is far below what the result is printed with).
double population_sd(unsigned __int128 sum_sq, __int128 sum, std::uint64_t n) {
    if (n == 0) return 0;
    const long double mean = static_cast<long double>(sum) / n;
    const long double variance = static_cast<long double>(sum_sq) / n - mean * mean;
    return static_cast<double>(std::sqrt(std::max<long double>(variance, 0)));
}

unsigned __int128 square(std::int64_t v) {
    const unsigned __int128 m = v < 0 ? 0 - static_cast<unsigned __int128>(static_cast<__int128>(v)) : static_cast<unsigned __int128>(v);
    return m * m;
}

// The square of a difference of two int64 values, whose magnitude fits 64
// bits: one 64 x 64 multiplication.
unsigned __int128 square_of_difference(std::int64_t a, std::int64_t b) {
    const std::uint64_t m = a >= b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b) : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
    return static_cast<unsigned __int128>(m) * m;
}

// The sums of a batch of values (after `previous`, for the differences).
struct Moments {
    __int128 sum = 0;
    unsigned __int128 sq = 0, diff_sq = 0;
};

// In 128 bits a value: what any int64 values need.
Moments wide_moments(std::span<const std::int64_t> values, std::int64_t previous) {
    Moments m;
    for (const std::int64_t v : values) {
        m.sum += v;
        m.sq += square(v);
        m.diff_sq += square_of_difference(v, previous);
        previous = v;
    }
    return m;
}

// In 64 bits, `run` values at a time, for values whose squares and squared
// differences, summed over a run, stay below 2^63 (moments() sizes the run):
// the unsigned products are the squares modulo 2^64, which they do not reach.
Moments narrow_moments(std::span<const std::int64_t> values, std::int64_t previous, std::size_t run) {
    Moments m;
    for (std::size_t k = 0; k < values.size(); k += run) {
        std::int64_t sum = 0;
        std::uint64_t sq = 0, diff_sq = 0;
#pragma GCC unroll 4
        for (const std::int64_t v : values.subspan(k, std::min(run, values.size() - k))) {
            const auto u = static_cast<std::uint64_t>(v), d = u - static_cast<std::uint64_t>(previous);
            sum += v;
            sq += u * u;
            diff_sq += d * d;
            previous = v;
        }
        m.sum += sum;
        m.sq += sq;
        m.diff_sq += diff_sq;
    }
    return m;
}

// Latencies are below 2^31 ns (2.1 s) nearly always: then their sums go in
// 64 bits, in runs short enough not to overflow (about 90,000 values of 10 ms).
Moments moments(std::span<const std::int64_t> values, std::int64_t previous, std::int64_t low, std::int64_t high) {
    const std::int64_t lowest = std::min(low, previous), highest = std::max(high, previous);
    const auto magnitude = [](std::int64_t v) { return v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v); };
    // Every value's magnitude and every difference is at most `bound`.
    const std::uint64_t bound = std::max({magnitude(lowest), magnitude(highest), static_cast<std::uint64_t>(highest) - static_cast<std::uint64_t>(lowest)});
    if (bound >= (std::uint64_t{1} << 31)) return wide_moments(values, previous);
    // run * bound^2 < 2^63: the squares' sums fit, and so does the signed sum (run * bound < 2^63).
    const std::uint64_t run = ((std::uint64_t{1} << 63) - 1) / std::max<std::uint64_t>(bound * bound, 1);
    return narrow_moments(values, previous, static_cast<std::size_t>(std::min<std::uint64_t>(run, values.size())));
}

}  // namespace

void Distribution::add(std::int64_t value) {
    if (count == 0) min = max = first = value;
    else {
        const __int128 diff = static_cast<__int128>(value) - last;
        diff_sum += diff;
        const unsigned __int128 m = diff < 0 ? static_cast<unsigned __int128>(-diff) : static_cast<unsigned __int128>(diff);
        diff_sum_sq += m * m;
        min = std::min(min, value);
        max = std::max(max, value);
    }
    last = value;
    ++count;
    sum += value;
    sum_sq += square(value);
    histogram.add(value);
}

void Distribution::add_all(std::span<const std::int64_t> values) {
    if (values.empty()) return;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    add_all(values, *low, *high);
}

void Distribution::add_all(std::span<const std::int64_t> values, std::int64_t low, std::int64_t high) {
    if (values.empty()) return;
    if (count == 0) min = max = first = last = values.front();  // the first value has no difference before it
    const Moments m = moments(values, last, low, high);
    diff_sum += static_cast<__int128>(values.back()) - last;  // the successive differences telescope
    diff_sum_sq += m.diff_sq;
    sum += m.sum;
    sum_sq += m.sq;
    min = std::min(min, low);
    max = std::max(max, high);
    last = values.back();
    count += values.size();
    histogram.add_all(values, low, high);
}

void Distribution::append(const Distribution& later) {
    if (later.count == 0) return;
    histogram.merge(later.histogram);  // first: it refuses another precision before anything changes
    if (count == 0) {
        LogHistogram merged = std::move(histogram);
        *this = later;
        histogram = std::move(merged);
        return;
    }
    const __int128 across = static_cast<__int128>(later.first) - last;
    const unsigned __int128 m = across < 0 ? static_cast<unsigned __int128>(-across) : static_cast<unsigned __int128>(across);
    diff_sum += across + later.diff_sum;
    diff_sum_sq += m * m + later.diff_sum_sq;
    count += later.count;
    sum += later.sum;
    sum_sq += later.sum_sq;
    min = std::min(min, later.min);
    max = std::max(max, later.max);
    last = later.last;
}

metrics::Summary Distribution::summary_ms() const {
    metrics::Summary s;
    if (count == 0) return s;
    s.count = count;
    s.mean = static_cast<double>(static_cast<long double>(sum) / count) / 1e6;
    s.sd = population_sd(sum_sq, sum, count) / 1e6;
    s.min = double(min) / 1e6;
    s.max = double(max) / 1e6;
    // A bucket's middle can lie past the extremes, which are exact.
    auto clamp = [&](double p) { return std::clamp(histogram.percentile(p), double(min), double(max)) / 1e6; };
    s.p50 = clamp(50);
    s.p95 = clamp(95);
    s.p99 = clamp(99);
    if (count > 1) s.jitter = population_sd(diff_sum_sq, diff_sum, count - 1) / 1e6;
    return s;
}

TimeBins TimeBins::over(std::int64_t first_ns, std::int64_t last_ns, std::uint32_t bins) {
    if (bins == 0 || last_ns < first_ns) return {};
    const auto span = static_cast<unsigned __int128>(static_cast<__int128>(last_ns) - first_ns) + 1;
    const auto width = static_cast<std::int64_t>((span + bins - 1) / bins);  // the last sample in the last bin
    return {first_ns, std::max<std::int64_t>(width, 1), bins};
}

std::uint32_t TimeBins::bin_of(std::int64_t time_ns) const noexcept {
    if (width_ns == 0 || time_ns <= origin_ns) return 0;
    // time > origin: the difference fits in 64 unsigned bits (a 64-bit division: this runs once a link).
    const std::uint64_t bin = (static_cast<std::uint64_t>(time_ns) - static_cast<std::uint64_t>(origin_ns)) / static_cast<std::uint64_t>(width_ns);
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(bin, count - 1));
}

void BinStats::add(std::int64_t value) {
    min = count ? std::min(min, value) : value;
    max = count ? std::max(max, value) : value;
    ++count;
    histogram.add(value);
}

void BinStats::add_all(std::span<const std::int64_t> values) {
    if (values.empty()) return;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    min = count ? std::min(min, *low) : *low;
    max = count ? std::max(max, *high) : *high;
    count += values.size();
    histogram.add_all(values, *low, *high);
}

void BinStats::merge(const BinStats& other) {
    if (other.count == 0) return;
    histogram.merge(other.histogram);
    min = count ? std::min(min, other.min) : other.min;
    max = count ? std::max(max, other.max) : other.max;
    count += other.count;
}

void merge_into(BinnedValues& into, const BinnedValues& from) {
    for (const auto& [bin, stats] : from) into[bin].merge(stats);
}

void ShardSummary::append(const ShardSummary& later) {
    if (later.intervals.size() != intervals.size()) throw std::invalid_argument("shards of different specs cannot be merged");
    if (later.bins != bins) throw std::invalid_argument("shards binned over different runs cannot be merged");
    for (std::size_t i = 0; i < intervals.size(); ++i) {
        if (later.intervals[i].name != intervals[i].name) throw std::invalid_argument("shards of different specs cannot be merged");
        intervals[i].latency.append(later.intervals[i].latency);
        merge_into(intervals[i].over_time, later.intervals[i].over_time);
    }
    for (const auto& [key, link] : later.links) {
        LinkSummary& into = links[key];
        into.latency.append(link.latency);
        for (const auto& [bin, n] : link.per_bin) into.per_bin[bin] += n;
    }
    m11.append(later.m11);
    if (later.samples) {
        first_time_ns = samples ? std::min(first_time_ns, later.first_time_ns) : later.first_time_ns;
        last_time_ns = samples ? std::max(last_time_ns, later.last_time_ns) : later.last_time_ns;
    }
    own_from_ns = std::min(own_from_ns, later.own_from_ns);
    own_to_ns = std::max(own_to_ns, later.own_to_ns);
    shards += later.shards;
    samples += later.samples;
    edges += later.edges;
    message_edges += later.message_edges;
    local_edges += later.local_edges;
    unlinked_inputs += later.unlinked_inputs;
    unconsumed_outputs += later.unconsumed_outputs;
    link_digest += later.link_digest;
    local_ns += later.local_ns;
    message_ns += later.message_ns;
    in_flight_ns += later.in_flight_ns;
    in_flight_sq_ns += later.in_flight_sq_ns;
    in_flight_max = std::max(in_flight_max, later.in_flight_max);
    for (const auto& [key, cell] : later.matrix) {
        MatrixCell& c = matrix[key];
        c.max_ns = c.count ? std::max(c.max_ns, cell.max_ns) : cell.max_ns;
        c.count += cell.count;
        c.sum_ns += cell.sum_ns;
    }
    nodes.insert(later.nodes.begin(), later.nodes.end());
    for (const auto& [key, counts] : later.instances) {
        InstanceCounts& into = instances[key];
        into.samples += counts.samples;
        into.unlinked_inputs += counts.unlinked_inputs;
    }
    margin.append(later.margin);
}

void MarginReport::append(const MarginReport& later) {
    margin_ns = std::max(margin_ns, later.margin_ns);
    longest_link_ns = std::max(longest_link_ns, later.longest_link_ns);
    longest_interval_ns = std::max(longest_interval_ns, later.longest_interval_ns);
    for (const auto& [tracepoint, ns] : later.longest_link_into) add_link_into(tracepoint, ns);
    for (const auto& [tracepoint, h] : later.unlinked_since_window) add_unlinked(tracepoint, h);
}

void MarginReport::add_link_into(const std::string& tracepoint, std::int64_t longest_ns) {
    longest_link_ns = std::max(longest_link_ns, longest_ns);
    std::int64_t& into = longest_link_into[tracepoint];
    into = std::max(into, longest_ns);
}

void MarginReport::add_unlinked(const std::string& tracepoint, const LogHistogram& since_window) {
    const auto it = unlinked_since_window.find(tracepoint);
    if (it == unlinked_since_window.end()) unlinked_since_window.emplace(tracepoint, since_window);
    else it->second.merge(since_window);
}

std::map<std::string, std::uint64_t> MarginReport::beyond_by_tracepoint() const {
    std::map<std::string, std::uint64_t> out;
    for (const auto& [tracepoint, longest] : longest_link_into) {
        const auto unlinked = unlinked_since_window.find(tracepoint);
        if (longest <= margin_ns || unlinked == unlinked_since_window.end()) continue;
        if (const std::uint64_t n = unlinked->second.count_below(double(longest))) out[tracepoint] = n;
    }
    return out;
}

std::uint64_t MarginReport::inputs_beyond_margin() const {
    std::uint64_t n = 0;
    for (const auto& [tracepoint, count] : beyond_by_tracepoint()) n += count;
    return n;
}

}  // namespace hashtrace::shard
