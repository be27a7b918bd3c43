// hashtrace/clocksync/pi_servo.hpp - the PI loop that slews a clock onto PPS.
//
// Not the paper's one-off rounding (which then drifted 9 us/s): every edge's
// phase error m (local minus reference, ns) feeds
//     integral += ki * m;   frequency = -(kp * m + integral)      [ppb]
// so the integral converges on the clock's own drift and the proportional
// term pulls the phase in. Gains are per 1 s edge interval. With kp = 0.1,
// ki = 0.003 the loop's noise bandwidth passes about a quarter of the edge
// jitter: 50 us rms jitter leaves about 13 us rms phase error (see the replay
// tests). A phase beyond step_threshold on `step_confirm_edges` consecutive
// edges is stepped instead (one wild edge is a glitch, not a reason to jump).
#pragma once

#include <cstdint>

namespace hashtrace::clocksync {

struct PiServoConfig {
    double kp = 0.1;
    double ki = 0.003;
    std::int64_t step_threshold_ns = 1'000'000;
    int step_confirm_edges = 3;
};

struct ServoAction {
    enum Kind : std::uint8_t { slew, step, hold } kind = hold;
    double frequency_ppb = 0;  // slew: the adjustment to apply, relative to the clock's base
    std::int64_t step_ns = 0;  // step: add this to the clock
};

class PiServo {
public:
    explicit PiServo(const PiServoConfig& config = {}) : config_(config) {}

    ServoAction sample(double phase_ns);
    // Preloads the integral with a measured drift (ppb) so the loop starts
    // on frequency instead of integrating its way there.
    void set_drift_estimate(double drift_ppb) noexcept {
        integral_ = drift_ppb;
        frequency_ = -drift_ppb;
    }
    double drift_estimate() const noexcept { return integral_; }
    double frequency_ppb() const noexcept { return frequency_; }
    const PiServoConfig& config() const noexcept { return config_; }

private:
    PiServoConfig config_;
    double integral_ = 0;
    double frequency_ = 0;
    int over_threshold_ = 0;
};

}  // namespace hashtrace::clocksync
