// hashtrace/clocksync/pps_tracker.hpp - `hashtrace clock pps` as a pure state
// machine: edges in, clock-quality records (and, when disciplining, clock
// adjustments) out.
//
// Measuring (no clock given): every edge updates the phase/drift fit and
// yields a record (ACQUIRING until the fit has 3 edges, then TRACKING).
// Disciplining (a clock given): the first `acquire_edges` edges only measure;
// then the tracker steps the phase if it is beyond the step threshold, starts
// the PI servo on the measured drift and slews on every edge after
// (UNLOCKED / LOCKED, STEPPED on the edge that caused a step).
//
// The fit always runs on the phase the clock would have had without our
// corrections (every step and slew is accounted for), so the reported drift
// stays the oscillator's own, and the reported offset is the corrected clock's.
#pragma once

#include "hashtrace/clocksync/adjustable_clock.hpp"
#include "hashtrace/clocksync/clock_record.hpp"
#include "hashtrace/clocksync/pi_servo.hpp"
#include "hashtrace/clocksync/pps_estimator.hpp"
#include "hashtrace/sensors/edge_source.hpp"

#include <optional>
#include <string>

namespace hashtrace::clocksync {

struct PpsTrackerConfig {
    std::string host;
    std::size_t window = 16;             // edges in the phase/drift fit
    std::size_t acquire_edges = 16;      // disciplining: edges measured before the servo starts
    std::int64_t lock_threshold_ns = 100'000;  // LOCKED when the fitted phase is within this
    std::int64_t min_edge_spacing_ns = 500'000'000;  // closer edges are glitches
    PiServoConfig servo;
};

struct PpsTrackerCounts {
    std::uint64_t edges = 0;
    std::uint64_t glitches = 0;  // edges rejected for following the previous too closely
    std::uint64_t steps = 0;
    std::uint64_t timeouts = 0;
};

class PpsTracker {
public:
    // `clock` null: measure only. Otherwise the tracker disciplines it; the
    // clock's frequency adjustment at construction is kept as the base.
    PpsTracker(PpsTrackerConfig config, AdjustableClock* clock);

    // A record per accepted edge; nullopt for a glitch.
    std::optional<ClockRecord> on_edge(const sensors::Edge& edge);
    // No edge for a while: a NO_SIGNAL record (the servo holds its frequency).
    ClockRecord on_timeout(std::int64_t now_ns);

    const PpsTrackerCounts& counts() const noexcept { return counts_; }
    const std::optional<PhaseEstimate>& last_estimate() const noexcept { return estimate_; }

private:
    ClockRecord record(std::int64_t time_ns, std::string state, std::optional<std::int64_t> offset_ns) const;
    std::string discipline(std::int64_t raw_phase_ns);
    void slew(double frequency_ppb);
    void step(std::int64_t delta_ns);

    PpsTrackerConfig config_;
    AdjustableClock* clock_;
    double base_frequency_ppb_ = 0;
    PiServo servo_;
    PhaseEstimator estimator_;
    std::optional<PhaseEstimate> estimate_;
    bool servo_running_ = false;
    std::optional<std::int64_t> last_edge_ns_;
    std::optional<std::int64_t> last_free_phase_ns_;
    double corrections_ns_ = 0;      // sum of our steps and slews so far
    double applied_frequency_ppb_ = 0;  // relative to base, in force since the last edge
    std::size_t edges_since_step_ = 0;
    PpsTrackerCounts counts_;
};

}  // namespace hashtrace::clocksync
