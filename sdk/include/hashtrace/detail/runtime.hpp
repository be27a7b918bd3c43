// hashtrace/detail/runtime.hpp - the process-wide state behind the macros:
// each thread's ring, the switches the hot path reads, and the writer thread.
// The runtime's jobs live in headers of their own: thread_queues.hpp (the
// per-thread queues), signals.hpp, writer.hpp, session.hpp (start and stop).
//
// Hot path (record: prepare, write in place, commit): one relaxed load of the
// recording flag, thread-local reads, the sample written into the next slot of
// the thread's own ring (the state's bytes or its hashes), the clock, and one
// release store of the ring's index. Everything that allocates, locks or calls
// the kernel happens on the writer thread or once per thread.
#pragma once

#include "hashtrace/config.hpp"
#include "hashtrace/detail/clock.hpp"
#include "hashtrace/detail/queued_sample.hpp"

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

// The most samples a thread's ring holds (Config::queue_capacity).
inline constexpr std::size_t kMaxQueueCapacity = std::size_t{1} << 20;

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer does not model std::atomic_thread_fence, with which
// moodycamel's queue hands rings between threads (thread_queues.hpp), so it
// would report the rings as races. In TSan builds only, a mutex brackets each
// of those queue operations to give TSan the ordering the fences give; the
// rings themselves (acquire and release indices) stay checked.
inline std::mutex g_tsan_queue_mutex;
#define HASHTRACE_QUEUE_OPERATION std::lock_guard<std::mutex> hashtrace_tsan_guard_(::hashtrace::detail::g_tsan_queue_mutex)
#else
#define HASHTRACE_QUEUE_OPERATION (void)0
#endif

// Constant-initialised globals: reading them costs no initialisation guard.
inline std::atomic<bool> g_recording{false};
inline std::atomic<std::uint64_t> g_session{0};   // bumped by every start()
inline std::atomic<int> g_full_policy{0};         // FullPolicy
inline std::atomic<std::size_t> g_thread_capacity{0};  // samples in flight per thread (Config::queue_capacity)
inline std::atomic<std::uint32_t> g_next_thread{1};

inline bool is_recording() noexcept { return g_recording.load(std::memory_order_relaxed); }
void set_recording(bool on) noexcept;

// A thread's ring: slots the thread writes samples into in place, and the two
// indices that hand them to the writer thread. One producer (the thread that
// owns it), one consumer (the writer); never freed: a ring outlives its thread
// and goes to the next thread that starts (thread_queues.hpp).
struct ThreadRing {
    explicit ThreadRing(std::size_t slot_count) : slots(new QueuedSample[slot_count]()), mask(slot_count - 1) {}
    ThreadRing(const ThreadRing&) = delete;
    ThreadRing& operator=(const ThreadRing&) = delete;

    QueuedSample* const slots;  // a power of two of them
    const std::uint64_t mask;
    alignas(64) std::atomic<std::uint64_t> published{0};  // slots below are written: stored by the owner, release
    alignas(64) std::atomic<std::uint64_t> consumed{0};   // slots below are read: stored by the writer, release
};

// Trivially destructible so the hot path reads it without a TLS init wrapper;
// the ring goes back to the pool from a separate thread_local touched only in
// attach_thread. The first five fields are all a tracepoint reads.
struct ThreadState {
    QueuedSample* slots;
    std::uint64_t mask;
    std::uint64_t head;   // the next slot's index: slots below it are published
    std::uint64_t limit;  // head may grow to this before the writer's progress is read again
    std::atomic<std::uint64_t>* published;
    std::uint64_t seq;
    std::uint64_t session;
    ThreadRing* ring;
    std::uint64_t capacity;  // samples in flight at most (Config::queue_capacity)
    std::uint32_t id;
    bool ended;  // the thread is exiting: its ring went back to the pool
};
inline thread_local ThreadState t_state{};

inline ThreadState& thread_state() noexcept { return t_state; }

// The cold half of prepare(): a thread's first sample in a session, a full
// ring. Null: the sample is not recorded, its drop counted.
QueuedSample* prepare_slow(ThreadState& ts, const CallSite& site) noexcept;

// The slot the thread's next sample is written into, in place, or null (a
// drop, counted). Nothing reaches the writer before commit().
inline QueuedSample* prepare(ThreadState& ts, const CallSite& site) noexcept {
    if (__builtin_expect(ts.session != g_session.load(std::memory_order_acquire) || ts.head >= ts.limit, 0))
        return prepare_slow(ts, site);
    QueuedSample* s = ts.slots + (ts.head & ts.mask);
    if (!s) __builtin_unreachable();  // only the slow path returns null: callers test it there alone
    return s;
}

// Hands the prepared slot to the writer: one release store.
inline void commit(ThreadState& ts) noexcept { ts.published->store(++ts.head, std::memory_order_release); }

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

Runtime& runtime() noexcept;

}  // namespace hashtrace::detail

#pragma GCC visibility pop
