// hashtrace/detail/clock.hpp - the sample clock.
//
// Samples are dated in CLOCK_REALTIME, the clock PTP and PPS discipline, so
// samples from different machines are comparable. Reading it costs the vDSO's
// clock_gettime: 35-45 ns on the KVM guests we measure on, more than the
// rest of a deferred tracepoint. So where the kernel itself keeps time with
// the TSC (x86-64, clocksource "tsc": the kernel only picks it when it is
// invariant and synchronised across cores), a tracepoint stores the raw TSC
// (one instruction, ~20 ns there) and the writer thread converts it to
// CLOCK_REALTIME by interpolating between (TSC, CLOCK_REALTIME) pairs it reads
// around every batch (stamp_converter.hpp). Elsewhere the stamp is
// CLOCK_REALTIME itself and the conversion is the identity.
//
// HASHTRACE_TSC=0 in the environment forces clock_gettime stamps (read once,
// at the first session's start).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

#pragma GCC visibility push(default)  // one runtime per process: see runtime.hpp

namespace hashtrace::detail {

inline std::int64_t now_ns() noexcept {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

#if defined(__x86_64__)
inline constexpr bool kHaveTsc = true;
inline std::uint64_t read_tsc() noexcept { return __builtin_ia32_rdtsc(); }
#else
inline constexpr bool kHaveTsc = false;
inline std::uint64_t read_tsc() noexcept { return 0; }
#endif

// Set once per process, before the first tracepoint can record.
inline std::atomic<bool> g_stamp_is_tsc{false};

// The tracepoint's time stamp: TSC ticks (returns true) or CLOCK_REALTIME ns.
// The sample carries which, so the writer never has to guess.
inline bool stamp(std::int64_t& out) noexcept {
    if (kHaveTsc && g_stamp_is_tsc.load(std::memory_order_relaxed)) {
        out = static_cast<std::int64_t>(read_tsc());
        return true;
    }
    out = now_ns();
    return false;
}

// Whether this process may stamp with the TSC: the kernel keeps CLOCK_REALTIME
// with it, and the environment does not say otherwise.
inline bool tsc_stamps_usable() {
    if (!kHaveTsc) return false;
    if (const char* v = std::getenv("HASHTRACE_TSC"); v && std::strcmp(v, "0") == 0) return false;
    std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string source;
    return static_cast<bool>(in >> source) && source == "tsc";
}

}  // namespace hashtrace::detail

#pragma GCC visibility pop
