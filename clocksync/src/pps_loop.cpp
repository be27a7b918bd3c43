#include "hashtrace/clocksync/pps_loop.hpp"

#include "realtime_now.hpp"

namespace hashtrace::clocksync {

PpsTrackerCounts run_pps_loop(sensors::EdgeSource& edges, PpsTracker& tracker,
                              const std::function<void(const ClockRecord&)>& sink, const PpsLoopOptions& options) {
    while (!edges.finished() && options.keep_running()) {
        if (const auto edge = edges.next(options.edge_timeout)) {
            if (auto record = tracker.on_edge(*edge)) sink(*record);
        } else if (!edges.finished()) {
            sink(tracker.on_timeout(options.now_ns ? options.now_ns() : realtime_now_ns()));
        }
    }
    return tracker.counts();
}

}  // namespace hashtrace::clocksync
