// hashtrace/detail/thread_queues.hpp - the per-thread rings: how a thread
// gets one and gives it back, how the writer learns of it, the names of the
// recording threads, and what a full ring does.
// Nothing here runs on a tracepoint's fast path after a thread's first sample.
#pragma once

#include "hashtrace/detail/runtime.hpp"
#include "hashtrace/detail/call_site.hpp"

#include <concurrentqueue/concurrentqueue.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#pragma GCC visibility push(default)  // one runtime per process: see runtime.hpp

namespace hashtrace::detail {

struct ThreadRegistry {
    struct Entry {
        std::int64_t os_tid = 0;
        std::string name;
    };
    std::mutex mutex;
    std::map<std::uint32_t, Entry> threads;
    std::atomic<std::uint64_t> version{0};  // bumped on every rename
};
inline ThreadRegistry& thread_registry() {
    static ThreadRegistry* r = new ThreadRegistry;  // never destroyed: threads may outlive statics
    return *r;
}

// Rings change hands through two moodycamel queues, off the hot path: a
// thread's new ring to the writer (which then reads it for the life of the
// process, whichever session runs), and the ring of a thread that ended to the
// next thread that starts. Neither queue is ever destroyed: threads may
// outlive statics.
using RingQueue = moodycamel::ConcurrentQueue<ThreadRing*>;
inline RingQueue& new_rings() {
    static RingQueue* q = new RingQueue;
    return *q;
}
inline RingQueue& spare_rings() {
    static RingQueue* q = new RingQueue;
    return *q;
}

// Every ring the writers have been handed. Read and grown only by the writer
// thread of the session running (one at a time, each joined before the next).
inline std::vector<ThreadRing*>& known_rings() {
    static auto* rings = new std::vector<ThreadRing*>;
    return *rings;
}

// Gives the thread's ring to the pool when the thread ends: samples it holds
// are still written (each slot names its thread), and the next thread to start
// appends after them. Touched only from attach_thread, so ordinary tracepoints
// never pay for thread_local destructors. A tracepoint run later in the
// thread's exit (another thread_local's destructor) is counted as a drop.
struct RingReaper {
    ~RingReaper() {
        ThreadState& ts = t_state;
        if (ts.ring) {
            HASHTRACE_QUEUE_OPERATION;
            spare_rings().enqueue(ts.ring);
        }
        ts.ring = nullptr;
        ts.ended = true;
        ts.session = 0;
        ts.limit = ts.head;
    }
};

// The thread's ring from now on: its own if large enough, else a spare one
// that is, else a new one, its pages touched now so tracepoints never fault.
inline void take_ring(ThreadState& ts, std::size_t capacity) {
    ThreadRing* spare = nullptr;
    {
        HASHTRACE_QUEUE_OPERATION;
        if (ts.ring) spare_rings().enqueue(ts.ring);
        if (spare_rings().try_dequeue(spare) && spare->mask + 1 < capacity) {
            spare_rings().enqueue(spare);
            spare = nullptr;
        }
    }
    ThreadRing* r = spare;
    if (!r) {
        std::size_t slots = 64;
        while (slots < capacity) slots *= 2;
        r = new ThreadRing(slots);
        HASHTRACE_QUEUE_OPERATION;
        new_rings().enqueue(r);
    }
    ts.ring = r;
    ts.slots = r->slots;
    ts.mask = r->mask;
    ts.published = &r->published;
    ts.head = r->published.load(std::memory_order_relaxed);  // this thread is its only producer now
}

// A thread's first tracepoint in a session: a ring of at least
// Config::queue_capacity slots, its number, its OS thread id for the log.
HASHTRACE_RUNTIME_FN bool attach_thread(ThreadState& ts) noexcept {
    if (ts.ended) return false;
    thread_local RingReaper reaper;
    (void)reaper;
    const std::size_t capacity = g_thread_capacity.load(std::memory_order_relaxed);
    if (!ts.ring || ts.mask + 1 < capacity) take_ring(ts, capacity);
    ts.capacity = capacity;
    ts.limit = ts.ring->consumed.load(std::memory_order_acquire) + capacity;
    if (ts.id == 0) ts.id = g_next_thread.fetch_add(1, std::memory_order_relaxed);
    {
        auto& reg = thread_registry();
        std::lock_guard<std::mutex> lock(reg.mutex);
        reg.threads[ts.id].os_tid = static_cast<std::int64_t>(::syscall(SYS_gettid));
    }
    ts.session = g_session.load(std::memory_order_acquire);
    return true;
}

// The ring is full: read how far the writer got; then drop, counted, or (the
// block policy) wait for room while recording lasts.
inline bool make_room(ThreadState& ts) noexcept {
    auto room = [&ts] {
        ts.limit = ts.ring->consumed.load(std::memory_order_acquire) + ts.capacity;
        return ts.head < ts.limit;
    };
    if (room()) return true;
    if (g_full_policy.load(std::memory_order_relaxed) == static_cast<int>(FullPolicy::block)) {
        while (is_recording()) {
            std::this_thread::yield();
            if (room()) return true;
        }
    }
    return false;
}

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
HASHTRACE_RUNTIME_FN QueuedSample* prepare_slow(ThreadState& ts, const CallSite& site) noexcept {
    const bool ready = (ts.session == g_session.load(std::memory_order_acquire) || attach_thread(ts)) &&
                       (ts.head < ts.limit || make_room(ts));
    if (ready) return ts.slots + (ts.head & ts.mask);
    call_sites().dropped(site.id).fetch_add(1, std::memory_order_relaxed);
    ++ts.seq;  // the gap tells readers where samples are missing
    return nullptr;
}

}  // namespace hashtrace::detail

#pragma GCC visibility pop
