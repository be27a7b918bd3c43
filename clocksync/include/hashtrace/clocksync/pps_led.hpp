// hashtrace/clocksync/pps_led.hpp - a GPIO line high at each second boundary
// of the (synchronised) system clock: the LED a high-speed camera films to put
// video frames on the same time base as the logs (the paper's Figure 9).
#pragma once

#include "hashtrace/sensors/edge_source.hpp"

#include <chrono>
#include <cstdint>
#include <functional>

namespace hashtrace::clocksync {

struct PpsLedOptions {
    std::chrono::nanoseconds pulse_width = std::chrono::milliseconds(100);
    std::function<bool()> keep_running = [] { return true; };
    std::uint64_t pulses = 0;  // 0: until keep_running() says stop
};

struct PpsLedStats {
    std::uint64_t pulses = 0;
    std::int64_t max_lateness_ns = 0;   // how long after the boundary the line went high
    double mean_lateness_ns = 0;
};

// Pure: the first whole second of CLOCK_REALTIME strictly after `now_ns`.
std::int64_t next_second_boundary(std::int64_t now_ns) noexcept;

// Sleeps until each boundary (clock_nanosleep on CLOCK_REALTIME, absolute, so
// steps and slews of the clock are honoured), sets the line high, and low
// again after the pulse width. The lateness of each rising edge is measured
// right after setting it: the LED can be no earlier than that.
PpsLedStats run_pps_led(sensors::GpioOutput& line, const PpsLedOptions& options);

}  // namespace hashtrace::clocksync
