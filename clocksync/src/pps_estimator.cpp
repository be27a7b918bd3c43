#include "hashtrace/clocksync/pps_estimator.hpp"

#include <cmath>

namespace hashtrace::clocksync {

std::int64_t phase_to_second_ns(std::int64_t realtime_ns) noexcept {
    constexpr std::int64_t kSecond = 1'000'000'000;
    std::int64_t phase = realtime_ns % kSecond;
    if (phase < 0) phase += kSecond;
    return phase >= kSecond / 2 ? phase - kSecond : phase;
}

std::optional<PhaseEstimate> PhaseEstimator::add(std::int64_t edge_time_ns, std::int64_t phase_ns) {
    points_.push_back({edge_time_ns, phase_ns});
    if (points_.size() > window_) points_.pop_front();
    const std::size_t n = points_.size();
    if (n < 3) return std::nullopt;

    // Least squares in coordinates relative to the newest point, so doubles
    // keep nanosecond precision whatever the epoch.
    const Point& newest = points_.back();
    double sum_x = 0, sum_y = 0;
    for (const Point& p : points_) {
        sum_x += static_cast<double>(p.time_ns - newest.time_ns) * 1e-9;
        sum_y += static_cast<double>(p.phase_ns - newest.phase_ns);
    }
    const double mean_x = sum_x / static_cast<double>(n), mean_y = sum_y / static_cast<double>(n);
    double sxx = 0, sxy = 0;
    for (const Point& p : points_) {
        const double dx = static_cast<double>(p.time_ns - newest.time_ns) * 1e-9 - mean_x;
        sxx += dx * dx;
        sxy += dx * (static_cast<double>(p.phase_ns - newest.phase_ns) - mean_y);
    }
    const double slope = sxx > 0 ? sxy / sxx : 0.0;
    const double intercept = mean_y - slope * mean_x;  // at the newest edge (x = 0)
    double residual_sq = 0;
    for (const Point& p : points_) {
        const double x = static_cast<double>(p.time_ns - newest.time_ns) * 1e-9;
        const double r = static_cast<double>(p.phase_ns - newest.phase_ns) - (intercept + slope * x);
        residual_sq += r * r;
    }
    PhaseEstimate estimate;
    estimate.edge_time_ns = newest.time_ns;
    estimate.phase_ns = static_cast<double>(newest.phase_ns) + intercept;
    estimate.drift_ppb = slope;
    estimate.jitter_ns = std::sqrt(residual_sq / static_cast<double>(n));
    // Standard error of the fitted value at x = 0, with n - 2 degrees of freedom.
    const double sigma = std::sqrt(residual_sq / static_cast<double>(n - 2));
    estimate.phase_uncertainty_ns =
        sxx > 0 ? sigma * std::sqrt(1.0 / static_cast<double>(n) + mean_x * mean_x / sxx) : sigma;
    estimate.edges = n;
    return estimate;
}

}  // namespace hashtrace::clocksync
