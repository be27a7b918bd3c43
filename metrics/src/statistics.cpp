#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <cmath>

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
}  // namespace

double nearest_rank(std::span<const double> sorted, double p) { return sorted[rank_of(p, sorted.size()) - 1]; }

Summary summarize(std::span<const double> values) { return summarize(std::vector<double>(values.begin(), values.end())); }

Summary summarize(std::vector<double>&& v) {
    const std::span<const double> values(v);
    Summary s;
    s.count = values.size();
    if (values.empty()) return s;
    Moments m, diffs;
    for (std::size_t i = 0; i < values.size(); ++i) {
        m.add(values[i]);
        if (i > 0) diffs.add(values[i] - values[i - 1]);
    }
    s.mean = m.mean;
    s.sd = std::sqrt(m.variance());
    s.jitter = std::sqrt(diffs.variance());
    // Selection instead of a full sort: each nearest-rank percentile is one
    // nth_element over the part above the previous one (ranks ascend).
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    s.min = *lo;
    s.max = *hi;
    auto first = v.begin();
    double* out[] = {&s.p50, &s.p95, &s.p99};
    const double ps[] = {50, 95, 99};
    for (int i = 0; i < 3; ++i) {
        const auto nth = v.begin() + static_cast<std::ptrdiff_t>(rank_of(ps[i], v.size()) - 1);
        std::nth_element(first, nth, v.end());
        *out[i] = *nth;
        first = nth;
    }
    return s;
}

}  // namespace hashtrace::metrics
