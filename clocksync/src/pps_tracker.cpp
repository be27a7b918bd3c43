#include "hashtrace/clocksync/pps_tracker.hpp"

#include <cmath>

namespace hashtrace::clocksync {

PpsTracker::PpsTracker(PpsTrackerConfig config, AdjustableClock* clock)
    : config_(std::move(config)),
      clock_(clock),
      base_frequency_ppb_(clock != nullptr ? clock->frequency_ppb() : 0.0),
      servo_(config_.servo),
      estimator_(config_.window) {}

std::optional<ClockRecord> PpsTracker::on_edge(const sensors::Edge& edge) {
    const std::int64_t t = edge.realtime_ns;
    if (last_edge_ns_ && t - *last_edge_ns_ < config_.min_edge_spacing_ns) {
        ++counts_.glitches;
        return std::nullopt;
    }
    // The slew in force since the previous edge moved the clock by f * dt.
    if (last_edge_ns_) corrections_ns_ += applied_frequency_ppb_ * static_cast<double>(t - *last_edge_ns_) * 1e-9;
    last_edge_ns_ = t;
    ++counts_.edges;

    const std::int64_t raw_phase = phase_to_second_ns(t);
    // Unwrap: a clock drifting across +-0.5 s keeps a continuous phase (the
    // edge is then taken as the boundary nearest to where the last one was).
    std::int64_t free_phase = raw_phase - std::llround(corrections_ns_);
    if (last_free_phase_ns_) free_phase = *last_free_phase_ns_ + phase_to_second_ns(free_phase - *last_free_phase_ns_);
    last_free_phase_ns_ = free_phase;
    estimate_ = estimator_.add(t, free_phase);
    std::optional<std::int64_t> offset;
    if (estimate_) offset = std::llround(estimate_->phase_ns + corrections_ns_);

    std::string state;
    if (clock_ == nullptr) state = estimate_ ? "TRACKING" : "ACQUIRING";
    else state = discipline(raw_phase);
    return record(t, std::move(state), offset);
}

std::string PpsTracker::discipline(std::int64_t raw_phase_ns) {
    if (!servo_running_) {
        if (!estimate_ || estimator_.size() < config_.acquire_edges) return "ACQUIRING";
        servo_running_ = true;
        servo_.set_drift_estimate(estimate_->drift_ppb);
        slew(servo_.frequency_ppb());
        const double phase = estimate_->phase_ns + corrections_ns_;
        if (std::abs(phase) > static_cast<double>(config_.servo.step_threshold_ns)) {
            step(-std::llround(phase));
            return "STEPPED";
        }
        ++edges_since_step_;
        return "UNLOCKED";
    }
    const ServoAction action = servo_.sample(static_cast<double>(raw_phase_ns));
    switch (action.kind) {
        case ServoAction::slew: slew(action.frequency_ppb); break;
        case ServoAction::step: step(action.step_ns); return "STEPPED";
        case ServoAction::hold: break;
    }
    ++edges_since_step_;
    // Locked once a whole fit window has passed since the last step and the
    // fitted phase is inside the threshold.
    const bool settled = edges_since_step_ >= config_.window;
    const double phase = estimate_->phase_ns + corrections_ns_;
    return settled && std::abs(phase) < static_cast<double>(config_.lock_threshold_ns) ? "LOCKED" : "UNLOCKED";
}

void PpsTracker::slew(double frequency_ppb) {
    clock_->set_frequency_ppb(base_frequency_ppb_ + frequency_ppb);
    applied_frequency_ppb_ = frequency_ppb;
}

void PpsTracker::step(std::int64_t delta_ns) {
    clock_->step(delta_ns);
    corrections_ns_ += static_cast<double>(delta_ns);
    ++counts_.steps;
    edges_since_step_ = 0;
}

ClockRecord PpsTracker::on_timeout(std::int64_t now_ns) {
    ++counts_.timeouts;
    return record(now_ns, "NO_SIGNAL", std::nullopt);
}

ClockRecord PpsTracker::record(std::int64_t time_ns, std::string state, std::optional<std::int64_t> offset_ns) const {
    ClockRecord r;
    r.time_ns = time_ns;
    r.host = config_.host;
    r.source = ClockSource::pps;
    r.state = std::move(state);
    r.offset_ns = offset_ns;
    if (estimate_ && offset_ns) {
        // The drift of the clock as it now runs: the oscillator's own plus our slew.
        r.freq_ppb = estimate_->drift_ppb + applied_frequency_ppb_;
        r.jitter_ns = std::llround(estimate_->jitter_ns);
    }
    return r;
}

}  // namespace hashtrace::clocksync
