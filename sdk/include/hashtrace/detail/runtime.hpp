// hashtrace/detail/runtime.hpp - the process-wide state behind the macros:
// the sample queue, each thread's producer token, and the writer thread.
// The runtime's jobs live in headers of their own: thread_queues.hpp (the
// per-thread queues), signals.hpp, writer.hpp, session.hpp (start and stop).
//
// Hot path (record -> enqueue): one relaxed load of the recording flag, a
// thread-local read, the clock, the hash, and try_enqueue on this thread's own
// sub-queue of a moodycamel ConcurrentQueue. Everything that allocates, locks
// or calls the kernel happens on the writer thread or once per thread.
#pragma once

#include "hashtrace/config.hpp"
#include "hashtrace/detail/clock.hpp"
#include "hashtrace/detail/queued_sample.hpp"

#include <concurrentqueue/concurrentqueue.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

// How the runtime is compiled (docs/sdk.md, "Linking the runtime"):
//   by default                header-only: each file that includes the SDK
//                             compiles the runtime's cold half inline
//   HASHTRACE_EXTERN_RUNTIME  this file sees only its declarations ...
//   HASHTRACE_IMPLEMENTATION  ... and exactly one file defines it (the
//                             hashtrace::sdk_runtime library's runtime.cpp)
// Either way the runtime's state has default visibility (the pragma below),
// even in code built with -fvisibility=hidden: the dynamic linker then binds
// every shared library that includes the SDK to one copy, so a process has
// one session, one writer and one log, not one per library.
#if defined(HASHTRACE_IMPLEMENTATION)
#define HASHTRACE_RUNTIME_FN
#define HASHTRACE_RUNTIME_DEFINED_HERE 1
#elif defined(HASHTRACE_EXTERN_RUNTIME)
#define HASHTRACE_RUNTIME_DEFINED_HERE 0
#else
#define HASHTRACE_RUNTIME_FN inline
#define HASHTRACE_RUNTIME_DEFINED_HERE 1
#endif

#pragma GCC visibility push(default)

namespace hashtrace::detail {

// Each recording thread enqueues through its own producer token into its own
// ring of pre-allocated blocks (see attach_thread), so try_enqueue never
// allocates and one thread's burst cannot take another thread's room. The
// block index must cover a whole ring: 4096 x 256 = 1 Mi samples per thread.
struct QueueTraits : moodycamel::ConcurrentQueueDefaultTraits {
    static const size_t BLOCK_SIZE = 256;
    static const size_t EXPLICIT_INITIAL_INDEX_SIZE = 4096;
};
using SampleQueue = moodycamel::ConcurrentQueue<QueuedSample, QueueTraits>;
inline constexpr std::size_t kMaxQueueCapacity = QueueTraits::BLOCK_SIZE * QueueTraits::EXPLICIT_INITIAL_INDEX_SIZE;

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer does not model std::atomic_thread_fence, with which the
// queue hands items and blocks between threads, so it would report every item
// as a race. In TSan builds only, a mutex brackets each queue operation to give
// TSan the ordering the fences give; all other synchronisation stays checked.
inline std::mutex g_tsan_queue_mutex;
#define HASHTRACE_QUEUE_OPERATION std::lock_guard<std::mutex> hashtrace_tsan_guard_(::hashtrace::detail::g_tsan_queue_mutex)
#else
#define HASHTRACE_QUEUE_OPERATION (void)0
#endif

// Constant-initialised globals: reading them costs no initialisation guard.
inline std::atomic<bool> g_recording{false};
inline std::atomic<std::uint64_t> g_session{0};   // bumped by every start()
inline std::atomic<SampleQueue*> g_queue{nullptr};
inline std::atomic<int> g_full_policy{0};         // FullPolicy
inline std::atomic<std::size_t> g_thread_capacity{0};  // samples in flight per thread (Config::queue_capacity)
inline std::atomic<std::uint32_t> g_next_thread{1};

inline bool is_recording() noexcept { return g_recording.load(std::memory_order_relaxed); }
void set_recording(bool on) noexcept;

// Trivially destructible so the hot path reads it without a TLS init wrapper;
// the token is released by a separate thread_local touched only in attach().
struct ThreadState {
    std::uint64_t session;
    SampleQueue* queue;
    moodycamel::ProducerToken* token;  // kept for the thread's life, across sessions
    std::uint32_t id;
    std::uint64_t seq;
};
inline thread_local ThreadState t_state{};

inline ThreadState& thread_state() noexcept { return t_state; }

void attach_thread(ThreadState& ts) noexcept;              // first tracepoint of a thread in a session
void enqueue_when_full(ThreadState& ts, const QueuedSample& s) noexcept;

class Writer;

// The cold half: starting, stopping, the writer thread (session.hpp).
class Runtime {
public:
    void start(const Config& config);
    void stop();
    bool running() const noexcept;
    std::string log_path() const;
    Stats stats() const;
    void name_thread(std::string_view name);

private:
    Writer* writer_ = nullptr;
    Stats last_stats_{};
    std::string last_path_;
};

inline void enqueue(ThreadState& ts, QueuedSample& s) noexcept {
    if (__builtin_expect(ts.session != g_session.load(std::memory_order_acquire), 0))
        attach_thread(ts);
    s.thread = ts.id;
    s.seq = ts.seq++;  // also on a drop: the gap tells readers where samples are missing
    bool queued;
    {
        HASHTRACE_QUEUE_OPERATION;
        queued = ts.queue->try_enqueue(*ts.token, s);
    }
    if (__builtin_expect(!queued, 0)) enqueue_when_full(ts, s);
}

Runtime& runtime() noexcept;

}  // namespace hashtrace::detail

#pragma GCC visibility pop
