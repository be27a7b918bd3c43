// detector_node.hpp - the detector both frame systems run (tests/infer:
// fan_out_node.cpp; tests/combined: combined_node.cpp): its network thread
// queues each frame for whichever of two worker threads is free, and a
// sender thread sends each worker's result on to the tracker (the fan-in).
// Tracepoints: FrameReceived, FrameQueued, Worker1Started/Worker2Started,
// Worker1Done/Worker2Done (a frame in, its result out), ResultSent.
#pragma once

#include "udp_node.hpp"

#include <hashtrace/hashtrace.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace hashtrace::test {

// The hash types the detector gives a frame and a result: two of their own,
// or one for both where a pass-through router forwards every message
// unchanged and so with one type.
struct DetectorHashes {
    const char* frame;
    const char* result;
};

constexpr std::uint64_t kResultMark = std::uint64_t{1} << 62;  // a result's id: its frame's, marked
constexpr std::uint64_t kStopWorking = ~std::uint64_t{0};      // ends a detector thread's queue

// Worker k's loop: its own tracepoints, as two worker functions would have.
inline void detector_worker(int k, Inbox& frames, Inbox& results, std::int64_t work_us, DetectorHashes h) {
    hashtrace::set_thread_name(k == 0 ? "worker-1" : "worker-2");
    for (std::uint64_t f; (f = frames.pop()) != kStopWorking;) {
        if (k == 0) TRACEPOINT("Worker1Started", hashtrace::inout(h.frame, f));
        else TRACEPOINT("Worker2Started", hashtrace::inout(h.frame, f));
        // Processing time varies from frame to frame (by up to a third).
        std::this_thread::sleep_for(std::chrono::microseconds(work_us + static_cast<std::int64_t>(f * 7919 % 3) * work_us / 6));
        if (k == 0) TRACEPOINT("Worker1Done", hashtrace::in(h.frame, f), hashtrace::out(h.result, f | kResultMark));
        else TRACEPOINT("Worker2Done", hashtrace::in(h.frame, f), hashtrace::out(h.result, f | kResultMark));
        results.push(f | kResultMark);
    }
}

// Takes frames from `fd` until a kDone, then sends the tracker, as
// `origin`, every result and a kDone once the workers are through.
inline void detector_loop(int fd, const sockaddr_in& tracker, std::uint32_t origin, std::int64_t work_us, DetectorHashes h) {
    Inbox frames, results;
    std::vector<std::thread> workers;
    for (int k = 0; k < 2; ++k) workers.emplace_back(detector_worker, k, std::ref(frames), std::ref(results), work_us, h);
    std::thread sender([&] {
        hashtrace::set_thread_name("sender");
        for (std::uint64_t r; (r = results.pop()) != kStopWorking;) {
            TRACEPOINT("ResultSent", hashtrace::inout(h.result, r));
            send_to(fd, tracker, Datagram{kMessage, origin, r});
        }
        send_to(fd, tracker, Datagram{kDone, origin, 0});
    });
    hashtrace::set_thread_name("network");
    for (Datagram d; (d = receive_from(fd)).kind != kDone;) {
        if (d.kind != kMessage) continue;
        TRACEPOINT("FrameReceived", hashtrace::inout(h.frame, d.id));
        TRACEPOINT("FrameQueued", hashtrace::inout(h.frame, d.id));
        frames.push(d.id);
    }
    for (std::size_t k = 0; k < workers.size(); ++k) frames.push(kStopWorking);
    for (auto& w : workers) w.join();
    results.push(kStopWorking);
    sender.join();
}

}  // namespace hashtrace::test
