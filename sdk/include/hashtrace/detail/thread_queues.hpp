// hashtrace/detail/thread_queues.hpp - the per-thread queues: the process's
// one sample queue, each thread's producer token and ring of blocks, the
// names of the recording threads, and what a full ring does.
// Nothing here runs on a tracepoint's fast path after a thread's first sample.
#pragma once

#include "hashtrace/detail/runtime.hpp"
#include "hashtrace/detail/tracepoint.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>

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

// One queue for the life of the process: threads keep their producer tokens
// (and the blocks behind them) across sessions, and may outlive any session.
inline SampleQueue* process_queue() {
    static SampleQueue* q = new SampleQueue(0);  // no shared pool: each thread brings its own blocks
    return q;
}

// Deletes a thread's producer token when the thread ends. Touched only from
// attach_thread, so ordinary tracepoints never pay for thread_local destructors.
struct TokenReaper {
    ~TokenReaper() {
        HASHTRACE_QUEUE_OPERATION;
        delete t_state.token;
        t_state.token = nullptr;
    }
};

// A queue item the writer skips: used to give a new thread its blocks. The
// last one of a batch carries a flag the writer sets once it got that far.
struct PrewarmFence {
    std::atomic<bool> reached{false};
};

inline QueuedSample prewarm_item(PrewarmFence* fence) noexcept {
    QueuedSample q{};
    q.site = nullptr;
    std::memcpy(q.payload, &fence, sizeof fence);
    return q;
}

// While a thread prepares its ring the writer must not consume, or the
// producer would reuse the blocks it has just filled instead of allocating
// the rest of its ring. The writer parks between batches while requests > 0.
inline std::atomic<int> g_prewarm_requests{0};
inline std::atomic<bool> g_writer_parked{false};

// Gives the thread its own ring of `capacity` samples: with the writer parked,
// enqueueing that many filler items (no sample: no call site) makes its producer allocate the
// blocks; once the writer has consumed them the blocks stay in the producer's
// ring, empty and reused, and enqueueing never allocates again. Takes well
// under a millisecond (16 Ki samples), once per thread, at its first tracepoint
// - or earlier, off the critical path, if the thread calls set_thread_name().
inline void prewarm_thread_queue(ThreadState& ts, std::size_t capacity) noexcept {
    const std::uint64_t session = g_session.load(std::memory_order_acquire);
    auto session_over = [session] { return g_session.load(std::memory_order_acquire) != session || !is_recording(); };
    g_prewarm_requests.fetch_add(1);
    while (!g_writer_parked.load()) {
        if (session_over()) break;
        std::this_thread::yield();
    }
    const std::size_t blocks = (capacity + QueueTraits::BLOCK_SIZE - 1) / QueueTraits::BLOCK_SIZE;
    const std::size_t items = blocks * QueueTraits::BLOCK_SIZE;
    auto* fence = new PrewarmFence;
    for (std::size_t i = 0; i < items; ++i) {
        HASHTRACE_QUEUE_OPERATION;
        ts.queue->enqueue(*ts.token, prewarm_item(i + 1 == items ? fence : nullptr));
    }
    g_prewarm_requests.fetch_sub(1);
    while (!fence->reached.load(std::memory_order_acquire)) {
        if (session_over()) return;  // fence leaks: rare, tiny
        std::this_thread::yield();
    }
    delete fence;
}

HASHTRACE_RUNTIME_FN void attach_thread(ThreadState& ts) noexcept {
    thread_local TokenReaper reaper;
    (void)reaper;
    if (!ts.token) {
        ts.queue = g_queue.load(std::memory_order_acquire);
        {
            HASHTRACE_QUEUE_OPERATION;
            ts.token = new moodycamel::ProducerToken(*ts.queue);
        }
        prewarm_thread_queue(ts, g_thread_capacity.load(std::memory_order_relaxed));
    }
    if (ts.id == 0) ts.id = g_next_thread.fetch_add(1, std::memory_order_relaxed);
    {
        auto& reg = thread_registry();
        std::lock_guard<std::mutex> lock(reg.mutex);
        reg.threads[ts.id].os_tid = static_cast<std::int64_t>(::syscall(SYS_gettid));
    }
    ts.session = g_session.load(std::memory_order_acquire);
}

HASHTRACE_RUNTIME_FN void enqueue_when_full(ThreadState& ts, const QueuedSample& s) noexcept {
    if (g_full_policy.load(std::memory_order_relaxed) == static_cast<int>(FullPolicy::block)) {
        while (is_recording()) {
            std::this_thread::yield();
            HASHTRACE_QUEUE_OPERATION;
            if (ts.queue->try_enqueue(*ts.token, s)) return;
        }
    }
    call_sites().dropped(s.site->id).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace hashtrace::detail

#pragma GCC visibility pop
