// The report of a run too long to hold: the window's report, with what
// covers the whole run taken from the merged shard summaries.
#include "hashtrace/report/aggregate.hpp"
#include "hashtrace/report/build.hpp"

#include <algorithm>

namespace hashtrace::report {
namespace {

double ms_of(double ns) { return ns / 1e6; }

// The exact extremes bound what the buckets' middles say.
double percentile_ms(const shard::LogHistogram& h, double p, std::int64_t min_ns, std::int64_t max_ns) {
    return ms_of(std::clamp(h.percentile(p), double(min_ns), double(max_ns)));
}

Histogram histogram_of(const shard::Distribution& d, std::size_t max_bins) {
    Histogram h = histogram_bins(ms_of(double(d.min)), ms_of(double(d.max)), percentile_ms(d.histogram, 99, d.min, d.max), d.count, max_bins);
    for (const auto& [middle_ns, n] : d.histogram.values()) count_value(h, ms_of(middle_ns), n);
    return h;
}

// The run's bins, each with its values' percentiles; the dots stay the window's.
LatencyOverTime over_time_of(const shard::BinnedValues& values, const shard::TimeBins& bins, std::int64_t t0_ns,
                             std::vector<std::pair<double, double>> window_points) {
    LatencyOverTime out;
    out.bin_s = double(bins.width_ns) / 1e9;
    out.points = std::move(window_points);
    for (std::uint32_t b = 0; b < bins.count; ++b) {
        TimeBin bin;
        bin.t_s = double(bins.origin_ns - t0_ns + std::int64_t(b) * bins.width_ns) / 1e9;
        if (const auto it = values.find(b); it != values.end()) {
            const shard::BinStats& v = it->second;
            bin.count = v.count;
            bin.min = ms_of(double(v.min));
            bin.max = ms_of(double(v.max));
            bin.p50 = percentile_ms(v.histogram, 50, v.min, v.max);
            bin.p95 = percentile_ms(v.histogram, 95, v.min, v.max);
            bin.p99 = percentile_ms(v.histogram, 99, v.min, v.max);
        }
        out.bins.push_back(bin);
    }
    return out;
}

void cover_nodes(Health& h, const shard::ShardSummary& merged) {
    for (NodeHealth& n : h.nodes)
        if (const auto it = merged.instances.find({n.node, n.instance}); it != merged.instances.end()) {
            n.samples = it->second.samples;
            n.unlinked_inputs = it->second.unlinked_inputs;
        }
}

}  // namespace

void cover_whole_run(ReportData& d, const shard::ShardSummary& merged, std::pair<std::int64_t, std::int64_t> window_ns,
                     const ReportOptions& options) {
    d.window_s = double(merged.last_time_ns - d.t0_ns) / 1e9;
    d.samples_window = std::pair{double(window_ns.first - d.t0_ns) / 1e9, double(window_ns.second - d.t0_ns) / 1e9};
    cover_nodes(d.health, merged);
    for (IntervalChart& chart : d.intervals) {
        const auto it = std::find_if(merged.intervals.begin(), merged.intervals.end(), [&](const auto& i) { return i.name == chart.name; });
        if (it == merged.intervals.end()) continue;
        chart.histogram = histogram_of(it->latency, options.histogram_bins);
        chart.over_time = over_time_of(it->over_time, merged.bins, d.t0_ns, std::move(chart.over_time.points));
    }
}

}  // namespace hashtrace::report
