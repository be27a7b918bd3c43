// realtime_now.hpp - CLOCK_REALTIME now, the clock that clock records and
// PPS edges are stamped with.
#pragma once

#include <cstdint>
#include <ctime>

namespace hashtrace::clocksync {

inline std::int64_t realtime_now_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace hashtrace::clocksync
