#include "hashtrace/clocksync/adjustable_clock.hpp"

#include <sys/timex.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <system_error>

namespace hashtrace::clocksync {
namespace {

// timex.freq is in ppm with a 16-bit binary fraction.
constexpr double kScaledPpmPerPpb = 65536.0 / 1000.0;
constexpr double kMaxFrequencyPpb = 500'000.0;  // the kernel's MAXFREQ

timex adjust(timex tx, const char* what) {
    if (clock_adjtime(CLOCK_REALTIME, &tx) < 0) throw std::system_error(errno, std::generic_category(), what);
    return tx;
}

}  // namespace

double SystemClock::frequency_ppb() const {
    timex tx{};
    return static_cast<double>(adjust(tx, "clock_adjtime(read)").freq) / kScaledPpmPerPpb;
}

void SystemClock::set_frequency_ppb(double ppb) {
    timex tx{};
    tx.modes = ADJ_FREQUENCY;
    tx.freq = std::lround(std::clamp(ppb, -kMaxFrequencyPpb, kMaxFrequencyPpb) * kScaledPpmPerPpb);
    adjust(tx, "clock_adjtime(ADJ_FREQUENCY) (needs CAP_SYS_TIME)");
}

void SystemClock::step(std::int64_t delta_ns) {
    timex tx{};
    tx.modes = ADJ_SETOFFSET | ADJ_NANO;
    // The kernel wants a non-negative fraction: -1.3 s is {-2 s, +0.7 s}.
    std::int64_t seconds = delta_ns / 1'000'000'000;
    std::int64_t nanos = delta_ns % 1'000'000'000;
    if (nanos < 0) {
        nanos += 1'000'000'000;
        --seconds;
    }
    tx.time.tv_sec = seconds;
    tx.time.tv_usec = nanos;  // nanoseconds under ADJ_NANO
    adjust(tx, "clock_adjtime(ADJ_SETOFFSET) (needs CAP_SYS_TIME)");
}

}  // namespace hashtrace::clocksync
