// hashtrace/metrics/statistics.hpp - descriptive statistics as docs/spec.md section 5b fixes
// them: population standard deviation, nearest-rank percentiles.
#pragma once

#include <cstddef>
#include <span>

namespace hashtrace::metrics {

struct Summary {
    std::size_t count = 0;
    double mean = 0, sd = 0, min = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
    double jitter = 0;  // population sd of successive differences (values in the order given)
};

// Values in the order they occurred (jitter depends on it); all zero when empty.
Summary summarize(std::span<const double> values);

// Nearest rank: the value at 1-based rank ceil(p/100 * N) of sorted values (N > 0).
double nearest_rank(std::span<const double> sorted, double p);
// Its index from 0 among N > 0 values: ceil(p/100 * N) - 1, within [0, N).
std::size_t nearest_rank_index(double p, std::size_t n);

// Mean and population variance in one pass (Welford), for tests and significance.
struct Moments {
    std::size_t n = 0;
    double mean = 0, m2 = 0;
    void add(double x);
    double variance() const { return n ? m2 / double(n) : 0; }
    double sample_variance() const { return n > 1 ? m2 / double(n - 1) : 0; }
};

}  // namespace hashtrace::metrics
