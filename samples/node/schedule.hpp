// samples/node/schedule.hpp - where a node's loop puts its deadlines.
#pragma once

#include <cstdint>

namespace hashtrace::samples {

// The first instant after `now_ns` (on the monotonic clock, in ns from its
// epoch) that lies `phase_ms` past a multiple of the period 1/rate_hz: the
// loop's first deadline when its schedule is locked to the clock
// (--phase-ms). Found from the epoch in exact arithmetic, so loops of
// commensurate rates in different processes of one machine meet on one grid
// (50 and 60 Hz at phase 0: their deadlines lie a multiple of 10/3 ms apart).
std::int64_t first_deadline_at_phase(std::int64_t now_ns, double rate_hz, double phase_ms);

}  // namespace hashtrace::samples
