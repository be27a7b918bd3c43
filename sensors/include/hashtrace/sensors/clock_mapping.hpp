// hashtrace/sensors/clock_mapping.hpp - putting kernel event stamps on CLOCK_REALTIME.
//
// GPIO line events (v1 uAPI, which libgpiod 1.6 uses) are stamped with
// CLOCK_REALTIME by kernels before 5.7 and with CLOCK_MONOTONIC since. We do
// not trust the kernel version: the two clocks differ by the boot epoch (tens
// of years), so comparing an event stamp with both clocks read just after the
// event decides which one it is on.
//
// A MONOTONIC stamp is mapped with the offset REALTIME - MONOTONIC read at the
// same moment. Both clocks are slewed alike by adjtimex frequency corrections,
// so that offset changes only when CLOCK_REALTIME is stepped: the mapping is
// exact unless a step lands between the edge and our read (milliseconds).
#pragma once

#include <cstdint>

namespace hashtrace::sensors {

enum class EventClock : std::uint8_t { realtime, monotonic };

// Pure: which clock `event_ns` was stamped with, given both clocks read after it.
EventClock classify_event_clock(std::int64_t event_ns, std::int64_t realtime_now_ns,
                                std::int64_t monotonic_now_ns) noexcept;

// REALTIME - MONOTONIC, from a MONOTONIC, REALTIME, MONOTONIC read sequence; the
// uncertainty is half the bracket (the time the REALTIME read took).
struct ClockOffsetReading {
    std::int64_t realtime_minus_monotonic_ns = 0;
    std::int64_t uncertainty_ns = 0;
    std::int64_t realtime_now_ns = 0;
    std::int64_t monotonic_now_ns = 0;
};
ClockOffsetReading read_clock_offset() noexcept;

// Pure: the CLOCK_REALTIME time of an event stamped on `clock`.
std::int64_t event_to_realtime(std::int64_t event_ns, EventClock clock, const ClockOffsetReading& reading) noexcept;

}  // namespace hashtrace::sensors
