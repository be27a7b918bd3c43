// systems.hpp - the hand-made systems the structure-recovery tests share,
// each with its truth written as a spec, and the round trip the tests check:
// logs -> spec-less graph -> evidence -> written spec -> linked again.
#pragma once

#include "system_logs.hpp"

#include "hashtrace/graph/spec.hpp"
#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/evidence.hpp"
#include "hashtrace/infer/writers.hpp"

#include <algorithm>
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

// The paper's router topology with a router that forwards each message with
// its hash unchanged, as message buses and brokers do: three clients, each a
// periodic loop that creates a message and hands it to its network thread,
// which sends it to the router; the router passes it to the two other
// clients; a client's network thread receives and queues it, and its loop
// processes it at its next tick. Every step but creation and processing
// passes the id on, so the spec-less graph links the sender to every later
// step anywhere, and the periodic loops make such shortcuts steadier than
// the hops they skip.
inline SystemLogs passthrough_router(int ticks_of_a = 1500) {
    SystemLogs logs;
    const Tp receive{"Router", "r1", "Receive", "msg", "msg"}, forward{"Router", "r1", "Forward", "msg", "msg"};
    const char* names[] = {"A", "B", "C"};
    const std::int64_t period[] = {kMs, 2 * kMs, 5 * kMs / 2};
    Jitter jitter;
    auto tp = [&](int c, const char* name, const char* in, const char* out) { return Tp{names[c], std::string("i") + names[c], name, in, out}; };
    auto next_tick = [&](int c, std::int64_t t) { return kStart + ((t - kStart) / period[c] + 1) * period[c] + c * 137'000; };
    const std::int64_t end = kStart + ticks_of_a * kMs;
    for (int c = 0; c < 3; ++c) {
        std::int64_t i = 0;
        for (std::int64_t t = kStart + c * 137'000; t < end; t += period[c], ++i) {
            const auto m = value(static_cast<std::uint64_t>(i), static_cast<std::uint32_t>(c + 1));
            logs.add(tp(c, "Created", "", "msg"), t, "", m, 0);
            const std::int64_t sent = t + 20'000 + jitter(30'000), at_router = sent + 40'000 + jitter(40'000);
            logs.add(tp(c, "Sent", "msg", "msg"), sent, m, m, 1);
            logs.add(receive, at_router, m, m, 1);
            std::int64_t copy = at_router + 10'000 + jitter(30'000);
            for (int d = 0; d < 3; ++d) {
                if (d == c) continue;
                logs.add(forward, copy, m, m, 2 + d);
                const std::int64_t received = copy + 40'000 + jitter(60'000), queued = received + 5'000 + jitter(10'000);
                logs.add(tp(d, "Received", "msg", "msg"), received, m, m, 1);
                logs.add(tp(d, "Queued", "msg", "msg"), queued, m, m, 1);
                logs.add(tp(d, "Processed", "msg", ""), next_tick(d, queued) + 30'000 + jitter(20'000), m, "", 0);
                copy += 15'000 + jitter(20'000);
            }
        }
    }
    return logs;
}

inline const char* kPassthroughRouterTruth = R"(
[[pair]]
from = "*/Created"
to = "*/Sent"
scope = "instance"
[[pair]]
from = "*/Sent"
to = "Router/Receive"
[[pair]]
from = "Router/Receive"
to = "Router/Forward"
scope = "instance"
[[pair]]
from = "Router/Forward"
to = "*/Received"
[[pair]]
from = "*/Received"
to = "*/Queued"
scope = "thread"
[[pair]]
from = "*/Queued"
to = "*/Processed"
scope = "instance"
[[interval]]
name = "A to B"
from = "A/Created"
to = "B/Processed"
kind = "end_to_end"
[[interval]]
name = "A to C"
from = "A/Created"
to = "C/Processed"
kind = "end_to_end"
[[interval]]
name = "B to A"
from = "B/Created"
to = "A/Processed"
kind = "end_to_end"
[[interval]]
name = "C to B"
from = "C/Created"
to = "B/Processed"
kind = "end_to_end"
[[interval]]
name = "A to router"
from = "A/Sent"
to = "Router/Receive"
kind = "end_to_end"
[[interval]]
name = "router"
from = "Router/Receive"
to = "Router/Forward"
[[interval]]
name = "router to B"
from = "Router/Forward"
to = "B/Received"
kind = "end_to_end"
[[interval]]
name = "B queue"
from = "B/Received"
to = "B/Processed"
)";

// A detector that fans frames out to two worker threads through one queue:
// the network thread receives a frame and queues it, whichever worker is
// free takes it (each worker's tracepoints are its own), and a sender
// thread sends each result on to a tracker (the fan-in). Frames come faster
// than one worker keeps up with, so both work and frames wait their turn. With
// `passed_on` a result carries its frame's id (hash unchanged to the end).
inline SystemLogs fan_out_to_two_workers(int frames = 1500, bool passed_on = false) {
    SystemLogs logs;
    const Tp sent{"Camera", "c1", "FrameSent", "", "frame"};
    const Tp received{"Detector", "d1", "FrameReceived", "frame", "frame"}, queued{"Detector", "d1", "FrameQueued", "frame", "frame"};
    const Tp started[] = {{"Detector", "d1", "Worker1Started", "frame", "frame"}, {"Detector", "d1", "Worker2Started", "frame", "frame"}};
    const Tp done[] = {{"Detector", "d1", "Worker1Done", "frame", "result"}, {"Detector", "d1", "Worker2Done", "frame", "result"}};
    const Tp result_sent{"Detector", "d1", "ResultSent", "result", "result"};
    const Tp result_received{"Tracker", "t1", "ResultReceived", "result", "result"}, tracked{"Tracker", "t1", "Tracked", "result", ""};
    Jitter jitter;
    std::int64_t free_at[2] = {kStart, kStart};
    for (int i = 0; i < frames; ++i) {
        const auto f = value(static_cast<std::uint64_t>(i), 1), r = passed_on ? f : value(static_cast<std::uint64_t>(i), 2);
        const std::int64_t t = kStart + i * kMs;
        const std::int64_t at_detector = t + 200'000 + jitter(100'000), at_queue = at_detector + 10'000 + jitter(10'000);
        logs.add(sent, t, "", f, 0);
        logs.add(received, at_detector, f, f, 1);
        logs.add(queued, at_queue, f, f, 1);
        const int w = free_at[0] <= free_at[1] ? 0 : 1;  // the worker free first takes the frame
        const std::int64_t start = std::max(at_queue, free_at[w]) + 20'000 + jitter(20'000);
        const std::int64_t finish = start + 1'500'000 + jitter(600'000);
        free_at[w] = finish;
        logs.add(started[w], start, f, f, 2 + w);
        logs.add(done[w], finish, f, r, 2 + w);
        const std::int64_t out = finish + 30'000 + jitter(30'000), at_tracker = out + 150'000 + jitter(100'000);
        logs.add(result_sent, out, r, r, 4);
        logs.add(result_received, at_tracker, r, r, 1);
        logs.add(tracked, at_tracker + 50'000 + jitter(50'000), r, "", 0);
    }
    return logs;
}

inline const char* kFanOutTruth = R"(
[[pair]]
from = "Camera/FrameSent"
to = "Detector/FrameReceived"
[[pair]]
from = "Detector/FrameReceived"
to = "Detector/FrameQueued"
scope = "thread"
[[pair]]
from = "Detector/FrameQueued"
to = "Detector/Worker*Started"
scope = "instance"
[[pair]]
from = "Detector/Worker1Started"
to = "Detector/Worker1Done"
scope = "thread"
[[pair]]
from = "Detector/Worker2Started"
to = "Detector/Worker2Done"
scope = "thread"
[[pair]]
from = "Detector/Worker*Done"
to = "Detector/ResultSent"
scope = "instance"
[[pair]]
from = "Detector/ResultSent"
to = "Tracker/ResultReceived"
[[pair]]
from = "Tracker/ResultReceived"
to = "Tracker/Tracked"
scope = "instance"
[[interval]]
name = "queue wait, worker 1"
from = "Detector/FrameReceived"
to = "Detector/Worker1Started"
[[interval]]
name = "queue wait, worker 2"
from = "Detector/FrameReceived"
to = "Detector/Worker2Started"
[[interval]]
name = "worker 1"
from = "Detector/Worker1Started"
to = "Detector/Worker1Done"
[[interval]]
name = "worker 2"
from = "Detector/Worker2Started"
to = "Detector/Worker2Done"
[[interval]]
name = "detector"
from = "Detector/FrameReceived"
to = "Detector/ResultSent"
[[interval]]
name = "result to tracker"
from = "Detector/ResultSent"
to = "Tracker/ResultReceived"
kind = "end_to_end"
[[interval]]
name = "frame to track"
from = "Camera/FrameSent"
to = "Tracker/Tracked"
kind = "end_to_end"
)";

// A join: a dispatcher sends each job to a worker and, at the same time,
// announces the result the worker will make; the sink waits for both, so
// each of its samples links from two producers that both make the value.
inline SystemLogs join_of_two_makers(int n = 1000) {
    SystemLogs logs;
    const Tp start{"Dispatcher", "d1", "Start", "", "task"}, note{"Dispatcher", "d1", "Note", "task", "result"};
    const Tp dispatch{"Dispatcher", "d1", "Dispatch", "task", "job"}, work{"Worker", "w1", "Work", "job", "result"};
    const Tp join{"Sink", "s1", "Join", "result", ""};
    Jitter jitter;
    for (int i = 0; i < n; ++i) {
        const auto task = value(static_cast<std::uint64_t>(i), 1), job = value(static_cast<std::uint64_t>(i), 2);
        const auto result = value(static_cast<std::uint64_t>(i), 3);
        const std::int64_t t = kStart + i * kMs;
        const std::int64_t worked = t + 250'000 + jitter(200'000);
        logs.add(start, t, "", task, 0);
        logs.add(dispatch, t + 20'000 + jitter(10'000), task, job, 0);
        logs.add(note, t + 40'000 + jitter(10'000), task, result, 0);
        logs.add(work, worked, job, result, 0);
        logs.add(join, worked + 150'000 + jitter(100'000), result, "", 0);
    }
    return logs;
}

inline const char* kJoinTruth = R"(
[[pair]]
from = "Dispatcher/Start"
to = "Dispatcher/Dispatch"
scope = "thread"
[[pair]]
from = "Dispatcher/Start"
to = "Dispatcher/Note"
scope = "thread"
[[pair]]
from = "Dispatcher/Dispatch"
to = "Worker/Work"
[[pair]]
from = "Worker/Work"
to = "Sink/Join"
[[pair]]
from = "Dispatcher/Note"
to = "Sink/Join"
[[interval]]
name = "note to join"
from = "Dispatcher/Note"
to = "Sink/Join"
kind = "end_to_end"
[[interval]]
name = "work to join"
from = "Worker/Work"
to = "Sink/Join"
kind = "end_to_end"
[[interval]]
name = "start to join"
from = "Dispatcher/Start"
to = "Sink/Join"
kind = "end_to_end"
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
