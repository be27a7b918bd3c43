// hashtrace/shard/summary.hpp - what one time shard of a run measured, in a
// form that adds up: counts and sums as exact integers, minima, maxima and
// log-bucket histograms. Shards are appended in time order (append), in any
// grouping (a tree of merges gives the same result as a chain), and the
// merged summary renders as the analysis of the whole run (result.hpp).
//
// Order-dependent statistics (the jitter: successive differences) carry
// their first and last values, so that appending adds the difference across
// the boundary: the shards' values in shard order are the run's values in
// the run's order (each shard owns a time range, and owns an interval by its
// `from` sample, an edge by its producer).
#pragma once

#include "hashtrace/graph/spec.hpp"
#include "hashtrace/metrics/statistics.hpp"
#include "hashtrace/shard/histogram.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::shard {

// One metric's observations (nanoseconds), in the run's order.
struct Distribution {
    std::uint64_t count = 0;
    __int128 sum = 0;
    unsigned __int128 sum_sq = 0;
    std::int64_t min = 0, max = 0;
    std::int64_t first = 0, last = 0;  // the jitter's boundary values
    __int128 diff_sum = 0;             // successive differences: sum and sum of squares
    unsigned __int128 diff_sum_sq = 0;
    LogHistogram histogram;

    explicit Distribution(double relative_error = 0.001) : histogram(relative_error) {}
    void add(std::int64_t value);
    void add_all(std::span<const std::int64_t> values);  // as add() of each in turn, in one pass
    // The same, for a caller that has the values' extremes already (found where it made them: no pass for them).
    void add_all(std::span<const std::int64_t> values, std::int64_t lowest, std::int64_t highest);
    void append(const Distribution& later);  // `later`'s values follow this one's
    // docs/spec.md section 5b's statistics, in milliseconds: count, sums,
    // minimum and maximum exact, percentiles within the histogram's error.
    metrics::Summary summary_ms() const;
};

// The run's time cut into equal bins, for what is drawn over time (the
// report's latency-over-time charts, the links' rates). The bins are the
// run's, fixed by its first and last sample times, not the shard's: every
// shard bins alike, so bins merge by addition.
struct TimeBins {
    std::int64_t origin_ns = 0, width_ns = 0;  // width 0: nothing binned
    std::uint32_t count = 0;
    static TimeBins over(std::int64_t first_ns, std::int64_t last_ns, std::uint32_t bins);
    std::uint32_t bin_of(std::int64_t time_ns) const noexcept;  // clamped into [0, count)
    friend bool operator==(const TimeBins&, const TimeBins&) = default;
};
inline constexpr std::uint32_t kTimeBins = 120;
inline constexpr double kBinRelativeError = 0.01;  // a chart's percentiles: 1 % is below a pixel

// The values that started in one time bin: count, extremes, and a coarse histogram for percentiles.
struct BinStats {
    std::uint64_t count = 0;
    std::int64_t min = 0, max = 0;
    LogHistogram histogram{kBinRelativeError};
    void add(std::int64_t value);
    void add_all(std::span<const std::int64_t> values);
    void merge(const BinStats& other);
};
using BinnedValues = std::map<std::uint32_t, BinStats>;  // by bin; empty bins absent
void merge_into(BinnedValues& into, const BinnedValues& from);

struct IntervalSummary {
    std::string name, from, to;
    graph::IntervalKind kind = graph::IntervalKind::process;
    Distribution latency;
    BinnedValues over_time;  // by the time of the `from` sample
};

// The links between two tracepoints ("node/tracepoint" of producer and
// consumer): their latency, and their count per time bin (the rate).
struct LinkSummary {
    Distribution latency;
    std::map<std::uint32_t, std::uint64_t> per_bin;  // by the producer's time
};

struct InstanceCounts {  // of the samples owned
    std::uint64_t samples = 0, unlinked_inputs = 0;
    friend bool operator==(const InstanceCounts&, const InstanceCounts&) = default;
};

struct MatrixCell {  // the node latency matrix: from the samples without incoming edge
    std::uint64_t count = 0;
    __int128 sum_ns = 0;
    std::int64_t max_ns = 0;
};

// Where a shard's margin did not hold: links or intervals longer than the
// margin were seen, so some of the shard's inputs may have had a producer
// before its window (never silent: counted, named, and the margin that
// would have covered them given).
//
// Which inputs: a link of length L into tracepoint T means an input of T
// that a shard owns, found without producer less than L after the start of
// the window it read, may have had one before that window. So each shard
// keeps, per tracepoint, the longest link into it that its window holds (a
// consumer late in a window sees back a whole shard and the margin), and
// its owned inputs without producer by their time since the window's start
// (a histogram: it merges by addition); the count is taken after merging,
// with the longest link any shard saw.
struct MarginReport {
    std::int64_t margin_ns = 0;
    std::int64_t longest_link_ns = 0;      // the longest edge any shard linked
    std::int64_t longest_interval_ns = 0;  // the longest interval instance or matrix latency
    std::map<std::string, std::int64_t> longest_link_into;         // "node/tracepoint" of the consumer -> ns
    std::map<std::string, LogHistogram> unlinked_since_window;     // "node/tracepoint" -> owned inputs without producer, ns since the window's start
    bool held() const noexcept { return longest_link_ns <= margin_ns && longest_interval_ns <= margin_ns; }
    std::int64_t needed_ns() const noexcept { return longest_link_ns > longest_interval_ns ? longest_link_ns : longest_interval_ns; }
    // Per consumer tracepoint with a link longer than the margin: its inputs that may have had a producer beyond it.
    std::map<std::string, std::uint64_t> beyond_by_tracepoint() const;
    std::uint64_t inputs_beyond_margin() const;
    // What a shard saw of a tracepoint (a window's links into it, its
    // inputs without producer), added to what is known: the kernel and the
    // merge both add this way.
    void add_link_into(const std::string& tracepoint, std::int64_t longest_ns);
    void add_unlinked(const std::string& tracepoint, const LogHistogram& since_window);
    void append(const MarginReport& later);
};

struct ShardSummary {
    std::uint64_t shards = 1;
    std::int64_t own_from_ns = 0, own_to_ns = 0;  // [from, to): the time range owned (merged: the union)
    std::uint64_t samples = 0, edges = 0, message_edges = 0, local_edges = 0;
    std::uint64_t unlinked_inputs = 0, unconsumed_outputs = 0;
    // The sum (mod 2^64) of a hash of each link's ends (node, instance,
    // tracepoint and time of both): equal link sets give equal digests, however the run was cut.
    std::uint64_t link_digest = 0;
    std::int64_t first_time_ns = 0, last_time_ns = 0;  // of the samples owned (none: samples == 0)
    __int128 local_ns = 0, message_ns = 0;             // M12's sums
    unsigned __int128 in_flight_ns = 0, in_flight_sq_ns = 0;  // M3's integrals
    std::uint64_t in_flight_max = 0;
    std::vector<IntervalSummary> intervals;  // in spec order
    Distribution m11;                        // message waiting time
    std::map<std::pair<std::string, std::string>, MatrixCell> matrix;  // (from node, to node)
    TimeBins bins;
    std::map<std::pair<std::string, std::string>, LinkSummary> links;  // ("node/tracepoint" producer, consumer)
    std::set<std::string> nodes;
    std::map<std::pair<std::string, std::string>, InstanceCounts> instances;  // (node, instance)
    MarginReport margin;

    // Adds a shard whose time range follows this one's. Throws
    // std::invalid_argument for shards of different specs, precisions or time bins.
    void append(const ShardSummary& later);
};

// Serialised as JSON (128-bit sums as decimal strings), for shards summarised
// in other processes or on other machines. from_json throws
// std::invalid_argument naming what is wrong.
std::string to_json(const ShardSummary&);
ShardSummary from_json(const std::string& text);

}  // namespace hashtrace::shard
