// hashtrace/clocksync/adjustable_clock.hpp - the clock a servo disciplines.
//
// The PPS servo acts only through this interface, so the same code runs on the
// system clock (SystemClock: clock_adjtime on CLOCK_REALTIME, needs
// CAP_SYS_TIME) and on a simulated clock whose true offset tests can read.
#pragma once

#include <cstdint>

namespace hashtrace::clocksync {

class AdjustableClock {
public:
    virtual ~AdjustableClock() = default;
    // Frequency adjustment currently applied, ppb (positive: the clock runs faster).
    virtual double frequency_ppb() const = 0;
    // Slew: set the frequency adjustment (the kernel limits it to +-500 ppm).
    virtual void set_frequency_ppb(double ppb) = 0;
    // Step: add delta_ns to the clock's time at once.
    virtual void step(std::int64_t delta_ns) = 0;
};

// CLOCK_REALTIME through clock_adjtime(2). Stop other disciplines (chronyd,
// ntpd, ptp4l/phc2sys on this clock) first: two servos fight.
class SystemClock final : public AdjustableClock {
public:
    double frequency_ppb() const override;   // throws std::system_error
    void set_frequency_ppb(double ppb) override;
    void step(std::int64_t delta_ns) override;
};

}  // namespace hashtrace::clocksync
