// hashtrace/clocksync/pps_estimator.hpp - phase error and drift from PPS edges.
//
// A PPS edge marks a second boundary of the reference, so the local clock's
// phase error at an edge is its timestamp's distance to the nearest whole
// second (local minus reference; only meaningful while the clock is already
// within +-0.5 s, e.g. after NTP). One edge is jittery (GPIO interrupt latency:
// tens of us), so the estimator fits a line through the last N phases: the
// slope is the drift (ns/s = ppb), the line's value at the newest edge the
// filtered phase, the rms of the residuals the jitter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

namespace hashtrace::clocksync {

// Pure: the phase of a CLOCK_REALTIME time to the nearest second, in [-0.5 s, 0.5 s).
std::int64_t phase_to_second_ns(std::int64_t realtime_ns) noexcept;

struct PhaseEstimate {
    std::int64_t edge_time_ns = 0;      // the newest edge
    double phase_ns = 0;                // fitted phase at the newest edge
    double drift_ppb = 0;               // slope of the fit (ns of phase per s)
    double jitter_ns = 0;               // rms of the residuals around the fit
    double phase_uncertainty_ns = 0;    // standard error of phase_ns
    std::size_t edges = 0;              // edges in the fit
};

class PhaseEstimator {
public:
    explicit PhaseEstimator(std::size_t window = 16) : window_(window < 3 ? 3 : window) {}

    // Adds one edge's phase (any continuous phase series: the tracker passes
    // phases with its own corrections removed). Returns the estimate once three
    // edges are in (the fewest that give a residual).
    std::optional<PhaseEstimate> add(std::int64_t edge_time_ns, std::int64_t phase_ns);
    void reset() { points_.clear(); }
    std::size_t size() const noexcept { return points_.size(); }
    std::size_t window() const noexcept { return window_; }

private:
    struct Point {
        std::int64_t time_ns;
        std::int64_t phase_ns;
    };
    std::size_t window_;
    std::deque<Point> points_;
};

}  // namespace hashtrace::clocksync
