// hashtrace/report/aggregate.hpp - the pure reductions behind the report's
// charts: they turn millions of observations into what a page can draw.
#pragma once

#include "hashtrace/report/report_data.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hashtrace::report {

// Equal-width bins from the smallest to the largest value (at most max_bins,
// about sqrt(n) for small inputs). When the largest value is over twice the
// p99, the bins end at 1.25 x p99 and the rest is counted as overflow: a few
// outliers would otherwise squeeze every other value into one bar.
// Empty input: no bins.
Histogram make_histogram(std::span<const double> values_ms, std::size_t max_bins);
// The same bins for n values known by their extremes and p99 (a run too
// long to hold, from its merged histograms), empty; count_value fills them.
Histogram histogram_bins(double lo_ms, double max_ms, double p99_ms, std::uint64_t n, std::size_t max_bins);
void count_value(Histogram& h, double ms, std::uint64_t n = 1);

// Observations (t_s[i], ms[i]) binned over [0, window_s] with nearest-rank
// percentiles per bin; `points` keeps at most max_points observations: an
// even stride through them plus the largest ones, so spikes stay visible.
LatencyOverTime latency_over_time(std::span<const double> t_s, std::span<const double> ms, double window_s,
                                  std::size_t bins, std::size_t max_points);

// Per lane, the periods longer than threshold_ns between consecutive samples.
// `times` holds each lane's sample times, sorted. `concurrent` counts the
// lanes idle at the busiest moment of each gap (the gap's own lane included).
struct LaneGap {
    std::uint32_t lane = 0;
    std::int64_t start_ns = 0, end_ns = 0;
    std::uint32_t concurrent = 1;
};
std::vector<LaneGap> find_idle_gaps(const std::vector<std::vector<std::int64_t>>& times, std::int64_t threshold_ns);

// Sample counts per lane and time bin over [t0_ns, t0_ns + span_ns].
std::vector<std::vector<std::uint32_t>> density(std::span<const std::uint32_t> lane, std::span<const std::int64_t> time_ns,
                                                std::size_t lanes, std::int64_t t0_ns, std::int64_t span_ns, std::size_t bins);

// Indices 0..n-1 thinned to at most `cap` by an even stride (all when n <= cap).
std::vector<std::size_t> even_sample(std::size_t n, std::size_t cap);

}  // namespace hashtrace::report
