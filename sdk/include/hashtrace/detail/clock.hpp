// hashtrace/detail/clock.hpp - the sample clock.
//
// CLOCK_REALTIME is the clock PTP and PPS discipline, so samples from
// different machines are comparable. On Linux clock_gettime is served by the
// vDSO from the TSC: no system call, ~20 ns.
#pragma once

#include <cstdint>
#include <ctime>

namespace hashtrace::detail {

inline std::int64_t now_ns() noexcept {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace hashtrace::detail
