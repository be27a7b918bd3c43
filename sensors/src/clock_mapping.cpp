#include "hashtrace/sensors/clock_mapping.hpp"

#include <ctime>

namespace hashtrace::sensors {
namespace {

std::int64_t read_ns(clockid_t id) noexcept {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t distance(std::int64_t a, std::int64_t b) noexcept { return a > b ? a - b : b - a; }

}  // namespace

EventClock classify_event_clock(std::int64_t event_ns, std::int64_t realtime_now_ns,
                                std::int64_t monotonic_now_ns) noexcept {
    return distance(event_ns, realtime_now_ns) <= distance(event_ns, monotonic_now_ns) ? EventClock::realtime
                                                                                       : EventClock::monotonic;
}

ClockOffsetReading read_clock_offset() noexcept {
    const std::int64_t mono_before = read_ns(CLOCK_MONOTONIC);
    const std::int64_t real = read_ns(CLOCK_REALTIME);
    const std::int64_t mono_after = read_ns(CLOCK_MONOTONIC);
    const std::int64_t mono_mid = mono_before + (mono_after - mono_before) / 2;
    return {real - mono_mid, (mono_after - mono_before + 1) / 2, real, mono_mid};
}

std::int64_t event_to_realtime(std::int64_t event_ns, EventClock clock, const ClockOffsetReading& reading) noexcept {
    return clock == EventClock::realtime ? event_ns : event_ns + reading.realtime_minus_monotonic_ns;
}

}  // namespace hashtrace::sensors
