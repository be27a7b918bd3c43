#include "schedule.hpp"

#include <cmath>

namespace hashtrace::samples {

std::int64_t first_deadline_at_phase(std::int64_t now_ns, double rate_hz, double phase_ms) {
    // A long double holds the epoch's ns (up to 2^63) and the period to a
    // small fraction of a ns, where a whole-ns period would drift by up to a
    // ns per period since boot (a millisecond in a day of a 60 Hz loop).
    const long double period_ns = 1e9L / rate_hz, phase_ns = static_cast<long double>(phase_ms) * 1e6L;
    const long double periods = std::floor((static_cast<long double>(now_ns) - phase_ns) / period_ns) + 1;
    return std::llround(phase_ns + periods * period_ns);
}

}  // namespace hashtrace::samples
