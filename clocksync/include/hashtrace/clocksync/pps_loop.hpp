// hashtrace/clocksync/pps_loop.hpp - drives a PpsTracker from an EdgeSource.
#pragma once

#include "hashtrace/clocksync/pps_tracker.hpp"

#include <chrono>
#include <functional>

namespace hashtrace::clocksync {

struct PpsLoopOptions {
    // No edge for this long is reported as NO_SIGNAL (a PPS edge is due every second).
    std::chrono::nanoseconds edge_timeout = std::chrono::milliseconds(2500);
    std::function<bool()> keep_running = [] { return true; };
    std::function<std::int64_t()> now_ns;  // CLOCK_REALTIME when empty
};

// Feeds every edge to the tracker and every record to `sink` until the source
// finishes or keep_running() says stop. Returns the tracker's counts.
PpsTrackerCounts run_pps_loop(sensors::EdgeSource& edges, PpsTracker& tracker,
                              const std::function<void(const ClockRecord&)>& sink, const PpsLoopOptions& options = {});

}  // namespace hashtrace::clocksync
