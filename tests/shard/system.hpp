// system.hpp - a small distributed system's logs for the sharding tests,
// made in memory as CSV: a source's loop sends messages through a
// pass-through router to a node whose two worker threads
// take them from one queue, and a sink joins their results with the
// source's notes (fan-in). Ids come back every 3000 messages (0.45 s at
// the least), later than any wait, so linking's "latest producer" matters
// but never picks a stale one. Latencies have long tails, bursts come and go,
// the workers' clock is 0.3 ms ahead, and `long_links` messages wait far
// longer than the rest (a margin smaller than that wait must say so).
#pragma once

#include "../graph/test_logs.hpp"

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::shard::testing {

struct SystemOptions {
    int ticks = 8000;
    unsigned seed = 1;
    int long_links = 0;
    int first_long_link = 0;  // the long links wait at ticks 997 k + 500 for k from this
    double long_link_s = 0.3;
    int message_ids = 3000;  // a message's hash is reused this many ticks later (~2 s): a link longer than that finds the reuse
};

inline std::vector<std::pair<std::string, std::string>> system_logs(const SystemOptions& o) {
    using graph::testing::CsvLog;
    std::mt19937 rng(o.seed);
    std::exponential_distribution<double> transit(1.0 / 0.0008);  // 0.8 ms on average
    std::uniform_real_distribution<double> unit(0, 1);
    CsvLog source, router, worker, sink;
    double t = 1000.0;
    for (int i = 0; i < o.ticks; ++i) {
        const bool burst = (i / 500) % 3 == 1;
        t += burst ? 0.0001 + 0.0001 * unit(rng) : 0.0005 + 0.0005 * unit(rng);
        const std::string loop = "l" + std::to_string(i), prev = i ? "l" + std::to_string(i - 1) : "";
        const std::string msg = "m" + std::to_string(i % o.message_ids), res = "r" + std::to_string(i % o.message_ids);
        source.row("Source", "1", "Tick", t, prev, loop, 0);
        const double sent = t + 0.00005;
        source.row("Source", "1", "Send", sent, loop, msg, 0);
        source.row("Source", "1", "Note", sent, "", res, 1);
        // A tail: one message in 50 waits 20-40 ms; the chosen few far longer.
        double wait = 0.0001 + transit(rng) + (unit(rng) < 0.02 ? 0.02 + 0.02 * unit(rng) : 0);
        if (i % 997 == 500 && i / 997 >= o.first_long_link && i / 997 < o.first_long_link + o.long_links) wait = o.long_link_s;
        const double routed = sent + wait;
        router.row("Router", "7", "Forward", routed, msg, msg, 0);
        const double worked = routed + 0.0005 + transit(rng) + 0.0003;  // + the workers' clock offset
        worker.row("Worker", "3", "Work", worked, msg, res, i % 2);
        sink.row("Sink", "5", "Join", worked - 0.0003 + 0.0005 + transit(rng), res, "", 0);
    }
    return {{"source.csv", source.text()}, {"router.csv", router.text()}, {"worker.csv", worker.text()}, {"sink.csv", sink.text()}};
}

inline const char* kSystemSpec = R"(
[[pair]]
from = "Source/Tick"
to = "Source/*"
scope = "instance"
[[pair]]
from = "Source/Send"
to = "Router/Forward"
[[pair]]
from = "Router/Forward"
to = "Worker/Work"
[[pair]]
from = "Worker/Work"
to = "Sink/Join"
[[pair]]
from = "Source/Note"
to = "Sink/Join"

[[interval]]
name = "tick to send"
from = "Source/Tick"
to = "Source/Send"
kind = "process"
[[interval]]
name = "send to join"
from = "Source/Send"
to = "Sink/Join"
kind = "end_to_end"
[[interval]]
name = "routed to worked"
from = "Router/Forward"
to = "Worker/Work"
kind = "end_to_end"
)";

}  // namespace hashtrace::shard::testing
