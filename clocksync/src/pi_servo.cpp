#include "hashtrace/clocksync/pi_servo.hpp"

#include <cmath>

namespace hashtrace::clocksync {

ServoAction PiServo::sample(double phase_ns) {
    if (std::abs(phase_ns) > static_cast<double>(config_.step_threshold_ns)) {
        if (++over_threshold_ < config_.step_confirm_edges) return {ServoAction::hold, frequency_, 0};
        over_threshold_ = 0;
        // The frequency stays: a step fixes the phase, the integral still knows the drift.
        return {ServoAction::step, frequency_, -std::llround(phase_ns)};
    }
    over_threshold_ = 0;
    integral_ += config_.ki * phase_ns;
    frequency_ = -(config_.kp * phase_ns + integral_);
    return {ServoAction::slew, frequency_, 0};
}

}  // namespace hashtrace::clocksync
