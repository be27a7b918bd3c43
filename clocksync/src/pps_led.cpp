#include "hashtrace/clocksync/pps_led.hpp"

#include "realtime_now.hpp"

#include <algorithm>
#include <cerrno>
#include <ctime>

namespace hashtrace::clocksync {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

void sleep_until_realtime(std::int64_t when_ns) {
    const timespec target{static_cast<time_t>(when_ns / kSecond), static_cast<long>(when_ns % kSecond)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &target, nullptr) == EINTR) {
    }
}

}  // namespace

std::int64_t next_second_boundary(std::int64_t now_ns) noexcept {
    return (now_ns >= 0 ? now_ns / kSecond + 1 : now_ns / kSecond) * kSecond;
}

PpsLedStats run_pps_led(sensors::GpioOutput& line, const PpsLedOptions& options) {
    PpsLedStats stats;
    double lateness_sum = 0;
    line.set(false);
    while (options.keep_running() && (options.pulses == 0 || stats.pulses < options.pulses)) {
        const std::int64_t boundary = next_second_boundary(realtime_now_ns());
        sleep_until_realtime(boundary);
        if (!options.keep_running()) break;
        line.set(true);
        const std::int64_t lateness = realtime_now_ns() - boundary;
        ++stats.pulses;
        stats.max_lateness_ns = std::max(stats.max_lateness_ns, lateness);
        lateness_sum += static_cast<double>(lateness);
        sleep_until_realtime(boundary + options.pulse_width.count());
        line.set(false);
    }
    stats.mean_lateness_ns = stats.pulses > 0 ? lateness_sum / static_cast<double>(stats.pulses) : 0.0;
    return stats;
}

}  // namespace hashtrace::clocksync
