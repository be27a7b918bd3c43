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

}  // namespace hashtrace::report::test
