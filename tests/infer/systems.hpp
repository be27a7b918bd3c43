// systems.hpp - the hand-made systems the structure-recovery tests share,
// each with its truth written as a spec, and the round trip the tests check:
// logs -> spec-less graph -> evidence -> written spec -> linked again.
#pragma once

#include "system_logs.hpp"

#include "hashtrace/graph/spec.hpp"
#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/evidence.hpp"
#include "hashtrace/infer/writers.hpp"

#include <string>

namespace hashtrace::infer::testing {

// Every hop of a message takes its own, varying time (a deterministic xorshift).
class Jitter {
public:
    std::int64_t operator()(std::int64_t up_to_ns) {
        state_ ^= state_ << 13, state_ ^= state_ >> 7, state_ ^= state_ << 17;
        return static_cast<std::int64_t>(state_ % static_cast<std::uint64_t>(up_to_ns));
    }

private:
    std::uint64_t state_ = 88172645463325252ull;
};

// Overlapping id spaces and a reused loop counter: frame ids and command ids
// are the same integers, hashed alike (only their labels differ); a worker
// runs the same loop on two threads, each counting from 0, one a millisecond
// behind the other.
inline SystemLogs overlapping_ids_and_reused_counter(int n = 400) {
    SystemLogs logs;
    const Tp captured{"Camera", "c1", "FrameCaptured", "", "frame"}, shown{"Display", "d1", "FrameShown", "frame", ""};
    const Tp issued{"Controller", "k1", "CommandIssued", "", "command"}, applied{"Actuator", "a1", "CommandApplied", "command", ""};
    const Tp tick{"Worker", "w1", "Tick", "loop", "loop"}, work{"Worker", "w1", "Work", "loop", "job"};
    for (int i = 0; i < n; ++i) {
        const std::int64_t t = kStart + i * 10 * kMs;
        logs.add(captured, t, "", value(i), 0);
        logs.add(shown, t + 5 * kMs, value(i), "", 0);
        logs.add(issued, t + 3 * kMs, "", value(i), 0);
        logs.add(applied, t + 4 * kMs, value(i), "", 0);
        for (int thread = 1; thread <= 2; ++thread) {
            const std::int64_t phase = (thread - 1) * kMs;
            logs.add(tick, t + phase, value(i), value(i), thread);
            logs.add(work, t + phase + 3 * kMs, value(i), value(i * 2 + thread, 7), thread);
        }
    }
    return logs;
}

inline const char* kOverlappingTruth = R"(
[[pair]]
from = "Camera/FrameCaptured"
to = "Display/FrameShown"
[[pair]]
from = "Controller/CommandIssued"
to = "Actuator/CommandApplied"
[[pair]]
from = "Worker/Tick"
to = "Worker/Work"
scope = "thread"
)";

// A message created, sent, received by a router that forwards a copy to each
// of two receivers, each of which applies it: every step but creation passes
// the message id on unchanged, so the spec-less graph is full of shortcuts,
// the router's second copy links to its first, and the receiver that sees
// the message second (B, always) links to the first.
inline SystemLogs router_pipeline(int n = 1000) {
    SystemLogs logs;
    const Tp create{"Sender", "s1", "Create", "", "msg"}, send{"Sender", "s1", "Send", "msg", "msg"};
    const Tp receive{"Router", "r1", "Receive", "msg", "msg"}, forward{"Router", "r1", "Forward", "msg", "msg"};
    const Tp a_receive{"A", "a1", "Receive", "msg", "msg"}, a_apply{"A", "a1", "Apply", "msg", ""};
    const Tp b_receive{"B", "b1", "Receive", "msg", "msg"}, b_apply{"B", "b1", "Apply", "msg", ""};
    Jitter jitter;
    for (int i = 0; i < n; ++i) {
        const std::int64_t t = kStart + i * kMs;
        const auto m = value(i, 1);
        const std::int64_t sent = t + 100'000 + jitter(50'000), received = sent + 150'000 + jitter(50'000);
        const std::int64_t first = received + 30'000 + jitter(20'000), second = first + 10'000 + jitter(20'000);
        const std::int64_t at_a = second + 100'000 + jitter(60'000), at_b = second + 200'000 + jitter(60'000);
        logs.add(create, t, "", m, 0);
        logs.add(send, sent, m, m, 1);
        logs.add(receive, received, m, m, 1);
        logs.add(forward, first, m, m, 2);
        logs.add(forward, second, m, m, 3);
        logs.add(a_receive, at_a, m, m, 1);
        logs.add(b_receive, at_b, m, m, 1);
        logs.add(a_apply, at_a + 100'000 + jitter(60'000), m, "", 0);
        logs.add(b_apply, at_b + 100'000 + jitter(60'000), m, "", 0);
    }
    return logs;
}

inline const char* kRouterTruth = R"(
[[pair]]
from = "Sender/Create"
to = "Sender/Send"
scope = "instance"
[[pair]]
from = "Sender/Send"
to = "Router/Receive"
[[pair]]
from = "Router/Receive"
to = "Router/Forward"
scope = "instance"
[[pair]]
from = "Router/Forward"
to = "*/Receive"
[[pair]]
from = "*/Receive"
to = "*/Apply"
scope = "instance"
)";

// Two loops on two nodes count their iterations from 0 under the same label,
// at different rates; each makes its own messages from its counter. The slow
// one may start first, so that for a while its values come first.
inline SystemLogs counters_at_two_rates(int seconds = 4, std::int64_t fast_period = kMs, std::int64_t slow_period = 4 * kMs,
                                        std::int64_t slow_start = 5 * kMs) {
    SystemLogs logs;
    const Tp fast_tick{"Fast", "f1", "Tick", "loop", "loop"}, fast_make{"Fast", "f1", "Make", "loop", "msg"};
    const Tp slow_tick{"Slow", "s1", "Step", "loop", "loop"}, slow_make{"Slow", "s1", "Make", "loop", "msg"};
    for (std::int64_t i = 0; i * fast_period < seconds * 1000 * kMs; ++i) {
        const std::int64_t t = kStart + i * fast_period;
        logs.add(fast_tick, t, value(i), value(i), 0);
        logs.add(fast_make, t + 100'000, value(i), value(i, 2), 0);
    }
    for (std::int64_t i = 0; i * slow_period < seconds * 1000 * kMs; ++i) {
        const std::int64_t t = kStart + slow_start + i * slow_period;
        logs.add(slow_tick, t, value(i), value(i), 0);
        logs.add(slow_make, t + 100'000, value(i), value(i, 3), 0);
    }
    return logs;
}

inline const char* kCountersTruth = R"(
[[pair]]
from = "Fast/Tick"
to = "Fast/Make"
scope = "thread"
[[pair]]
from = "Slow/Step"
to = "Slow/Make"
scope = "thread"
)";

struct Inferred {
    graph::SampleSet samples;
    Evidence evidence;
    Chains chains;
    std::vector<ProposedInterval> intervals;
    std::string spec_text;
    graph::AnalysisSpec spec;
};

inline Inferred infer_from(const SystemLogs& logs, bool all_intervals = false) {
    Inferred r;
    r.samples = logs.load();
    graph::LinkOptions one;
    one.threads = 1;
    const auto specless = graph::link(r.samples, graph::AnalysisSpec{}, one);
    r.evidence = gather_evidence(r.samples, specless);
    r.chains = recover_chains(r.evidence);
    r.intervals = propose_intervals(r.evidence, r.chains, all_intervals);
    r.spec_text = write_spec(r.evidence, r.intervals);
    r.spec = graph::parse_spec(r.spec_text, "inferred.toml");
    return r;
}

inline const PairEvidence* find_pair(const Evidence& ev, const std::string& from, const std::string& to) {
    for (const auto& p : ev.pairs)
        if (ev.classes[p.from].selector() == from && ev.classes[p.to].selector() == to) return &p;
    return nullptr;
}

}  // namespace hashtrace::infer::testing
