#include "hashtrace/report/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hashtrace::report {

namespace {

// docs/spec.md section 5b nearest rank: the value at 1-based rank ceil(p/100 * N).
double nearest_rank(const std::vector<double>& sorted, double p) {
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * double(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

Histogram histogram_bins(double lo_ms, double max_ms, double p99_ms, std::uint64_t n, std::size_t max_bins) {
    Histogram h;
    if (n == 0 || max_bins == 0) return h;
    const double hi = max_ms > 2 * p99_ms && p99_ms > lo_ms ? 1.25 * p99_ms : max_ms;
    const auto bins = std::min<std::size_t>(max_bins, std::size_t(std::ceil(std::sqrt(double(n)))) + 1);
    h.lo_ms = lo_ms;
    // All values equal: one bin of an arbitrary but visible width.
    h.width_ms = hi > lo_ms ? (hi - lo_ms) / double(bins) : std::max(1e-3, std::abs(lo_ms) * 0.01);
    h.counts.assign(hi > lo_ms ? bins : 1, 0);
    h.hi_ms = hi;
    return h;
}

void count_value(Histogram& h, double ms, std::uint64_t n) {
    if (h.counts.empty()) return;
    if (ms > h.hi_ms) {
        h.overflow += n;
        return;
    }
    const double bin = std::max(0.0, (ms - h.lo_ms) / h.width_ms);
    h.counts[std::min(static_cast<std::size_t>(bin), h.counts.size() - 1)] += n;  // hi itself falls on the last bin's closed end
}

Histogram make_histogram(std::span<const double> values_ms, std::size_t max_bins) {
    if (values_ms.empty()) return {};
    std::vector<double> sorted(values_ms.begin(), values_ms.end());
    std::sort(sorted.begin(), sorted.end());
    Histogram h = histogram_bins(sorted.front(), sorted.back(), nearest_rank(sorted, 99), sorted.size(), max_bins);
    for (double v : sorted) count_value(h, v);
    return h;
}

LatencyOverTime latency_over_time(std::span<const double> t_s, std::span<const double> ms, double window_s,
                                  std::size_t bins, std::size_t max_points) {
    LatencyOverTime out;
    bins = std::max<std::size_t>(1, bins);
    out.bin_s = window_s > 0 ? window_s / double(bins) : 1.0;
    std::vector<std::vector<double>> per_bin(bins);
    for (std::size_t i = 0; i < t_s.size(); ++i) {
        const auto b = t_s[i] <= 0 ? 0 : static_cast<std::size_t>(t_s[i] / out.bin_s);
        per_bin[std::min(b, bins - 1)].push_back(ms[i]);
    }
    for (std::size_t b = 0; b < bins; ++b) {
        auto& v = per_bin[b];
        TimeBin bin;
        bin.t_s = double(b) * out.bin_s;
        bin.count = v.size();
        if (!v.empty()) {
            std::sort(v.begin(), v.end());
            bin.min = v.front();
            bin.max = v.back();
            bin.p50 = nearest_rank(v, 50);
            bin.p95 = nearest_rank(v, 95);
            bin.p99 = nearest_rank(v, 99);
        }
        out.bins.push_back(bin);
    }
    // Half the budget for the largest observations, the rest evenly spread.
    std::vector<std::size_t> chosen;
    if (t_s.size() <= max_points) {
        chosen.resize(t_s.size());
        std::iota(chosen.begin(), chosen.end(), 0);
    } else {
        std::vector<std::size_t> by_latency(t_s.size());
        std::iota(by_latency.begin(), by_latency.end(), 0);
        const auto top = max_points / 2;
        std::partial_sort(by_latency.begin(), by_latency.begin() + top, by_latency.end(),
                          [&](std::size_t a, std::size_t b) { return ms[a] > ms[b]; });
        chosen.assign(by_latency.begin(), by_latency.begin() + top);
        for (auto i : even_sample(t_s.size(), max_points - top)) chosen.push_back(i);
        std::sort(chosen.begin(), chosen.end());
        chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    }
    for (auto i : chosen) out.points.emplace_back(t_s[i], ms[i]);
    return out;
}

std::vector<LaneGap> find_idle_gaps(const std::vector<std::vector<std::int64_t>>& times, std::int64_t threshold_ns) {
    std::vector<LaneGap> gaps;
    for (std::uint32_t lane = 0; lane < times.size(); ++lane) {
        const auto& t = times[lane];
        for (std::size_t i = 1; i < t.size(); ++i)
            if (t[i] - t[i - 1] > threshold_ns) gaps.push_back({lane, t[i - 1], t[i], 1});
    }
    // Sweep over gap starts and ends: for each gap, the most gaps open at once
    // while it is open. Ends sort before starts at the same instant (touching
    // gaps do not overlap).
    struct Point {
        std::int64_t t;
        int delta;
        std::size_t gap;
    };
    std::vector<Point> points;
    for (std::size_t g = 0; g < gaps.size(); ++g) {
        points.push_back({gaps[g].start_ns, +1, g});
        points.push_back({gaps[g].end_ns, -1, g});
    }
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
        return a.t != b.t ? a.t < b.t : a.delta < b.delta;
    });
    std::vector<std::size_t> open;  // gaps open now
    for (const auto& p : points) {
        if (p.delta < 0) {
            open.erase(std::find(open.begin(), open.end(), p.gap));
            continue;
        }
        open.push_back(p.gap);
        const auto now = static_cast<std::uint32_t>(open.size());
        for (auto g : open) gaps[g].concurrent = std::max(gaps[g].concurrent, now);
    }
    return gaps;
}

std::vector<std::vector<std::uint32_t>> density(std::span<const std::uint32_t> lane, std::span<const std::int64_t> time_ns,
                                                std::size_t lanes, std::int64_t t0_ns, std::int64_t span_ns, std::size_t bins) {
    std::vector<std::vector<std::uint32_t>> counts(lanes, std::vector<std::uint32_t>(bins, 0));
    if (bins == 0) return counts;
    const double per_bin = span_ns > 0 ? double(span_ns) / double(bins) : 1.0;
    for (std::size_t i = 0; i < time_ns.size(); ++i) {
        const double offset = double(time_ns[i] - t0_ns);
        if (offset < 0) continue;
        const auto b = std::min(bins - 1, static_cast<std::size_t>(offset / per_bin));
        if (offset <= double(span_ns)) ++counts[lane[i]][b];
    }
    return counts;
}

std::vector<std::size_t> even_sample(std::size_t n, std::size_t cap) {
    std::vector<std::size_t> out;
    if (cap == 0) return out;
    if (n <= cap) {
        out.resize(n);
        std::iota(out.begin(), out.end(), 0);
        return out;
    }
    out.reserve(cap);
    for (std::size_t k = 0; k < cap; ++k) out.push_back(k * n / cap);
    return out;
}

}  // namespace hashtrace::report
