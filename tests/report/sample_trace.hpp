// sample_trace.hpp - a small two-node trace with fan-out, fan-in, a
// cross-thread and a cross-process edge, shared by the exporter tests.
#pragma once

#include "hashtrace/report/trace_model.hpp"

namespace hashtrace::report::test {

inline Hash128 hash_of_byte(std::uint8_t b) {
    Hash128 h;
    h.bytes.fill(b);
    return h;
}

inline TraceModel sample_trace() {
    TraceModel m;
    m.processes = {{"Chai", "1a2b"}, {"Unity", "3c4d"}};
    m.threads = {{0, "main"}, {0, "net"}, {1, "render"}};
    m.names = {"ForceComputed", "MessageSent", "MessageReceived", "Rendered"};
    const std::int64_t base = 1'763'800'000'123'456'789;
    auto event = [&](std::int64_t dt, std::uint32_t thread, std::uint32_t name, int in, int out) {
        TraceEvent e{base + dt, thread, name, hash_of_byte(std::uint8_t(in)), hash_of_byte(std::uint8_t(out)),
                     in != 0, out != 0};
        m.events.push_back(e);
    };
    event(0, 0, 0, 0, 1);          // 0 Chai main ForceComputed
    event(400, 1, 1, 1, 2);        // 1 Chai net MessageSent (cross-thread from 0)
    event(700, 1, 1, 1, 5);        // 2 Chai net MessageSent, 300 ns later: a shortened slice
    event(2'500, 2, 2, 2, 3);      // 3 Unity render MessageReceived (cross-process from 1)
    event(2'500, 0, 0, 0, 4);      // 4 Chai main, same time as 3 on another thread
    event(90'000, 2, 3, 3, 0);     // 5 Unity render Rendered (fan-in from 3 and 2)
    m.flows = {{0, 1}, {0, 2}, {1, 3}, {3, 5}, {2, 5}};
    return m;
}

// sample_trace() with critical paths of two intervals: in "end to end", two
// instances that overlap in time; in "send", three, the second of which
// overlaps the first and ends with a segment recorded backwards (within a
// linking tolerance), the third starting just as the first ends.
inline TraceModel sample_trace_with_critical_paths() {
    TraceModel m = sample_trace();
    m.critical_path_intervals = {"end to end", "send"};
    m.segment_names = {"Chai/ForceComputed -> Chai/MessageSent (queue)", "Chai/MessageSent -> Unity/MessageReceived (message)",
                       "Unity/MessageReceived -> Unity/Rendered (local)"};
    m.critical_segments = {{0, 1, 0}, {1, 3, 1}, {3, 5, 2},  // path 0
                           {2, 5, 1},                        // path 1
                           {0, 1, 0},                        // path 2
                           {0, 3, 1}, {3, 2, 2},             // path 3: 2500 ns -> 700 ns
                           {1, 3, 1}};                       // path 4
    m.critical_paths = {{0, 0, 3}, {0, 3, 1}, {1, 4, 1}, {1, 5, 2}, {1, 7, 1}};
    return m;
}

}  // namespace hashtrace::report::test
