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

double nearest_rank(std::span<const double> sorted, double p) {
    const auto n = sorted.size();
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * double(n)));
    rank = std::clamp<std::size_t>(rank, 1, n);  // p = 0 means the minimum
    return sorted[rank - 1];
}

Summary summarize(std::span<const double> values) {
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
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    s.min = sorted.front();
    s.max = sorted.back();
    s.p50 = nearest_rank(sorted, 50);
    s.p95 = nearest_rank(sorted, 95);
    s.p99 = nearest_rank(sorted, 99);
    return s;
}

}  // namespace hashtrace::metrics
