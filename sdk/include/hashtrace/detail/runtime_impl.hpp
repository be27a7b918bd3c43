// hashtrace/detail/runtime_impl.hpp - starting and stopping a session, the
// writer thread, signal handling. Nothing here runs on a tracepoint's fast path.
#pragma once

#include "hashtrace/canonical.hpp"
#include "hashtrace/detail/instance_id.hpp"
#include "hashtrace/detail/log_file.hpp"
#include "hashtrace/detail/stamp_converter.hpp"
#include "hashtrace/detail/runtime.hpp"
#include "hashtrace/detail/tracepoint.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace hashtrace::detail {

inline void set_recording(bool on) noexcept {
    // Only meaningful while a session runs; stop() turns recording off for good.
    if (on && !runtime().running()) return;
    g_recording.store(on, std::memory_order_relaxed);
}

// ---- threads -----------------------------------------------------------------

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
    q.def = nullptr;
    std::memcpy(q.payload, &fence, sizeof fence);
    return q;
}

// While a thread prepares its ring the writer must not consume, or the
// producer would reuse the blocks it has just filled instead of allocating
// the rest of its ring. The writer parks between batches while requests > 0.
inline std::atomic<int> g_prewarm_requests{0};
inline std::atomic<bool> g_writer_parked{false};

// Gives the thread its own ring of `capacity` samples: with the writer parked,
// enqueueing that many placeholder items makes its producer allocate the
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

inline void attach_thread(ThreadState& ts) noexcept {
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

inline void enqueue_when_full(ThreadState& ts, const QueuedSample& s) noexcept {
    if (g_full_policy.load(std::memory_order_relaxed) == static_cast<int>(FullPolicy::block)) {
        while (is_recording()) {
            std::this_thread::yield();
            HASHTRACE_QUEUE_OPERATION;
            if (ts.queue->try_enqueue(*ts.token, s)) return;
        }
    }
    s.def->dropped.fetch_add(1, std::memory_order_relaxed);
}

// ---- signals -----------------------------------------------------------------

inline std::atomic<int> g_pending_signal{0};
inline struct sigaction g_previous_action[2];  // SIGINT, SIGTERM
inline bool g_handlers_installed = false;

inline int signal_slot(int sig) noexcept { return sig == SIGINT ? 0 : 1; }

// Async-signal-safe: an atomic store, and the application's own handler if it had one.
extern "C" inline void hashtrace_on_signal(int sig, siginfo_t* info, void* context) {
    g_pending_signal.store(sig, std::memory_order_release);
    const struct sigaction& prev = g_previous_action[signal_slot(sig)];
    if (prev.sa_flags & SA_SIGINFO) {
        if (prev.sa_sigaction) prev.sa_sigaction(sig, info, context);
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
        prev.sa_handler(sig);
    }
}

inline void install_signal_handlers() {
    for (int sig : {SIGINT, SIGTERM}) {
        struct sigaction prev;
        sigaction(sig, nullptr, &prev);
        if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN) continue;  // the app chose to ignore it
        g_previous_action[signal_slot(sig)] = prev;
        struct sigaction act {};
        act.sa_sigaction = hashtrace_on_signal;
        act.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&act.sa_mask);
        sigaction(sig, &act, nullptr);
    }
    g_handlers_installed = true;
}

inline void restore_signal_handlers() {
    if (!g_handlers_installed) return;
    for (int sig : {SIGINT, SIGTERM}) {
        struct sigaction current;
        sigaction(sig, nullptr, &current);
        if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == hashtrace_on_signal)
            sigaction(sig, &g_previous_action[signal_slot(sig)], nullptr);
    }
    g_handlers_installed = false;
}

// True when the application left the signal at its default action, which is
// to end the process: then the writer ends it, after the log is complete.
inline bool signal_ends_process(int sig) noexcept {
    const struct sigaction& prev = g_previous_action[signal_slot(sig)];
    return !(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_DFL;
}

// ---- the session and its writer --------------------------------------------------

struct Runtime::Impl {
    Config config;
    std::string node, instance, path;
    std::uint64_t session = 0;
    std::unique_ptr<LogFile> file;
    std::thread writer;
    std::atomic<bool> stop_requested{false};
    std::atomic<std::uint64_t> written{0}, dropped{0}, bytes{0};

    // Writer-thread state.
    StampConverter stamps;
    std::vector<std::int64_t> last_time;  // per thread id, of converted stamps
    std::uint32_t next_index = 0;
    std::vector<bool> thread_described;
    std::uint64_t names_version = 0;

    void ensure_logged(TracepointDef& d, std::int64_t time_ns) {
        if (d.log_session == session) return;
        d.log_session = session;
        d.log_index = next_index++;
        file->tracepoint(d.log_index, {{}, {}, d.name, d.input_type, d.output_type, d.hash_function}, time_ns);
    }

    void describe_thread(std::uint32_t id, std::int64_t time_ns) {
        if (thread_described.size() <= id) thread_described.resize(id + 1, false);
        if (thread_described[id]) return;
        thread_described[id] = true;
        auto& reg = thread_registry();
        std::lock_guard<std::mutex> lock(reg.mutex);
        const auto& e = reg.threads[id];
        file->thread(id, e.os_tid, e.name, time_ns);
    }

    void redescribe_renamed_threads(std::int64_t time_ns) {
        auto& reg = thread_registry();
        const std::uint64_t v = reg.version.load(std::memory_order_acquire);
        if (v == names_version) return;
        names_version = v;
        std::lock_guard<std::mutex> lock(reg.mutex);
        for (std::uint32_t id = 0; id < thread_described.size(); ++id)
            if (thread_described[id]) file->thread(id, reg.threads[id].os_tid, reg.threads[id].name, time_ns);
    }

    // A TSC stamp in CLOCK_REALTIME ns. A thread's stamps are in program order;
    // the conversion's few tens of ns of noise where a new clock point takes
    // over must not reverse two of them, so it is clamped to the thread's last.
    std::int64_t converted(std::uint32_t thread, std::int64_t tsc) {
        if (last_time.size() <= thread) last_time.resize(thread + 1, INT64_MIN);
        const std::int64_t t = std::max(stamps.to_ns(tsc), last_time[thread]);
        last_time[thread] = t;
        return t;
    }

    // Returns how many samples it wrote: 0 for a placeholder, else 1.
    std::uint64_t write(const QueuedSample& q) {
        if (!q.def) {  // a placeholder from prewarm_thread_queue
            PrewarmFence* fence;
            std::memcpy(&fence, q.payload, sizeof fence);
            if (fence) fence->reached.store(true, std::memory_order_release);
            return 0;
        }
        TracepointDef& d = *q.def;
        const std::int64_t time_ns = (q.flags & QueuedSample::kTscStamp) ? converted(q.thread, q.time_ns) : q.time_ns;
        ensure_logged(d, time_ns);
        describe_thread(q.thread, time_ns);
        Hash128 in, out;
        const Hash128* pin = nullptr;
        const Hash128* pout = nullptr;
        if (q.flags & QueuedSample::kDeferred) {
            if (q.flags & QueuedSample::kHasInput) in = hash_canonical_bytes(d.hash_function, q.payload, q.input_len);
            if (q.flags & QueuedSample::kOutIsInput) out = in;
            else if (q.flags & QueuedSample::kHasOutput)
                out = hash_canonical_bytes(d.hash_function, q.payload + q.input_len, q.output_len);
        } else {
            in = q.input_hash();
            out = q.output_hash();
        }
        pin = &in;
        pout = &out;
        if (!(q.flags & QueuedSample::kHasInput)) pin = nullptr;
        if (!(q.flags & QueuedSample::kHasOutput)) pout = nullptr;
        file->sample({time_ns, pin, pout, d.log_index, true, q.thread, true, q.seq});
        return 1;
    }

    // Sequentially consistent on purpose: a thread that read `parked` as true
    // just before it is cleared has already raised `requests`, so the loop's
    // re-check after clearing parks again before anything is dequeued.
    void park_while_threads_prepare_queues() {
        while (g_prewarm_requests.load() > 0) {
            g_writer_parked.store(true);
            while (g_prewarm_requests.load() > 0) std::this_thread::yield();
            g_writer_parked.store(false);
        }
    }

    // A clock point after the batch is taken: every stamp in it is older.
    std::size_t dequeue(SampleQueue& queue, moodycamel::ConsumerToken& consumer, std::vector<QueuedSample>& batch) {
        std::size_t n;
        {
            HASHTRACE_QUEUE_OPERATION;
            n = queue.try_dequeue_bulk(consumer, batch.data(), batch.size());
        }
        if (n > 0 && stamps.converts()) stamps.add(read_clock_point());
        return n;
    }

    void write_batch(const QueuedSample* items, std::size_t n) {
        std::uint64_t samples = 0;
        for (std::size_t i = 0; i < n; ++i) samples += write(items[i]);
        written.fetch_add(samples, std::memory_order_relaxed);
    }

    // Logs every drop counted since the last look. Old definitions were
    // brought up to date by start(); new ones begin at zero.
    void log_drops(std::int64_t time_ns) {
        for (TracepointDef* d = TracepointDef::registry_head().load(std::memory_order_acquire); d; d = d->next) {
            if (d->drop_session != session) {
                d->drop_session = session;
                d->drops_logged = 0;
            }
            const std::uint64_t n = d->dropped.load(std::memory_order_relaxed);
            if (n == d->drops_logged) continue;
            ensure_logged(*d, time_ns);
            file->drop(d->log_index, time_ns, n - d->drops_logged);
            dropped.fetch_add(n - d->drops_logged, std::memory_order_relaxed);
            d->drops_logged = n;
        }
    }

    void flush() {
        file->flush();
        bytes.store(file->bytes_written(), std::memory_order_relaxed);
    }

    void run(SampleQueue& queue) {
        std::vector<QueuedSample> batch(1024);
        moodycamel::ConsumerToken consumer = [&] {
            HASHTRACE_QUEUE_OPERATION;
            return moodycamel::ConsumerToken(queue);
        }();
        const auto flush_every = std::chrono::nanoseconds(config.flush_interval).count();
        std::int64_t last_flush = now_ns(), last_drop_check = last_flush;
        int empty_polls_after_stop = 0;
        for (;;) {
            park_while_threads_prepare_queues();
            const std::size_t n = dequeue(queue, consumer, batch);
            write_batch(batch.data(), n);
            const std::int64_t now = now_ns();
            if (now - last_drop_check >= 10'000'000 || n == 0) {
                log_drops(now);
                redescribe_renamed_threads(now);
                last_drop_check = now;
            }
            const int sig = g_pending_signal.exchange(0, std::memory_order_acq_rel);
            if (sig != 0) {
                flush();
                last_flush = now;
                if (signal_ends_process(sig)) {
                    finish_log(queue, consumer, batch);
                    restore_signal_handlers();
                    ::raise(sig);  // default action: the process ends, its log complete
                    return;
                }
            }
            if (file->buffered() >= (1u << 20) || (now - last_flush >= flush_every && file->buffered() > 0)) {
                flush();
                last_flush = now;
            }
            if (n == 0) {
                // Stop only after the queue stayed empty across a short pause, so
                // a tracepoint that passed the recording check just before stop()
                // still lands in this log.
                if (stop_requested.load(std::memory_order_acquire) && ++empty_polls_after_stop >= 2) break;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        finish_log(queue, consumer, batch);
    }

    void finish_log(SampleQueue& queue, moodycamel::ConsumerToken& consumer, std::vector<QueuedSample>& batch) {
        for (;;) {
            const std::size_t n = dequeue(queue, consumer, batch);
            if (n == 0) break;
            write_batch(batch.data(), n);
        }
        log_drops(now_ns());
        file->close(true);
        bytes.store(file->bytes_written(), std::memory_order_relaxed);
        if (file->failed()) std::fprintf(stderr, "hashtrace: %s\n", file->error().c_str());
    }
};

// One queue for the life of the process: threads keep their producer tokens
// (and the blocks behind them) across sessions, and may outlive any session.
inline SampleQueue* process_queue() {
    static SampleQueue* q = new SampleQueue(0);  // no shared pool: each thread brings its own blocks
    return q;
}

inline std::mutex& session_mutex() {
    static std::mutex m;
    return m;
}

inline void Runtime::start(const Config& config) {
#if defined(HASHTRACE_DISABLE)
    (void)config;
#else
    std::lock_guard<std::mutex> lock(session_mutex());
    if (impl_) throw std::logic_error("hashtrace: a session is already running (" + impl_->path + ")");
    if (config.queue_capacity == 0 || config.queue_capacity > kMaxQueueCapacity)
        throw std::invalid_argument("hashtrace: queue_capacity must be 1.." + std::to_string(kMaxQueueCapacity));
    static const bool tsc_stamps = tsc_stamps_usable();
    g_stamp_is_tsc.store(tsc_stamps, std::memory_order_relaxed);
    auto impl = std::make_unique<Impl>();
    impl->config = config;
    impl->node = config.node_name;
    if (tsc_stamps) impl->stamps = StampConverter(read_clock_point());
    const std::int64_t start = now_ns();
    impl->instance = make_instance_id(start);
    std::filesystem::create_directories(config.log_dir);
    impl->path = (std::filesystem::path(config.log_dir) / (config.node_name + "-" + impl->instance + file_suffix(config.format))).string();
    impl->file = std::make_unique<LogFile>(
        impl->path, config.format,
        std::vector<std::pair<std::string, std::string>>{
            {"node", impl->node},
            {"instance", impl->instance},
            {"host", host_name()},
            {"pid", std::to_string(::getpid())},
            {"clock_source", "CLOCK_REALTIME"},
            {"time_stamps", tsc_stamps ? "tsc" : "clock_gettime"},
            {"start_time_ns", std::to_string(start)},
            {"hash_functions", "md5,xxh3_128"},
            {"writer", "hashtrace-sdk 0.1"},
        });
    SampleQueue* queue = process_queue();
    impl->session = g_session.load() + 1;
    // Bring old definitions' drop counts up to date: this log starts from zero.
    for (TracepointDef* d = TracepointDef::registry_head().load(); d; d = d->next) {
        d->drop_session = impl->session;
        d->drops_logged = d->dropped.load();
    }
    g_full_policy.store(static_cast<int>(config.when_full));
    g_thread_capacity.store(config.queue_capacity);
    g_queue.store(queue, std::memory_order_release);
    g_session.store(impl->session, std::memory_order_release);
    g_pending_signal.store(0);
    if (config.install_signal_handlers) install_signal_handlers();
    Impl* raw = impl.get();
    impl->writer = std::thread([raw, queue] { raw->run(*queue); });
    impl_ = impl.release();
    static bool at_exit_registered = [] { return std::atexit([] { runtime().stop(); }) == 0; }();
    (void)at_exit_registered;
    g_recording.store(config.enabled, std::memory_order_release);
#endif
}

inline void Runtime::stop() {
    std::lock_guard<std::mutex> lock(session_mutex());
    if (!impl_) return;
    g_recording.store(false, std::memory_order_release);
    impl_->stop_requested.store(true, std::memory_order_release);
    if (impl_->writer.joinable()) impl_->writer.join();
    restore_signal_handlers();
    last_stats_ = {impl_->written.load(), impl_->dropped.load(), impl_->bytes.load()};
    last_path_ = impl_->path;
    delete impl_;
    impl_ = nullptr;
}

inline bool Runtime::running() const noexcept { return impl_ != nullptr; }

inline std::string Runtime::log_path() const {
    std::lock_guard<std::mutex> lock(session_mutex());
    return impl_ ? impl_->path : last_path_;
}

inline Stats Runtime::stats() const {
    std::lock_guard<std::mutex> lock(session_mutex());
    if (!impl_) return last_stats_;
    return {impl_->written.load(), impl_->dropped.load(), impl_->bytes.load()};
}

inline void Runtime::name_thread(std::string_view name) {
    ThreadState& ts = thread_state();
    // A thread that names itself at start gets its queue ready now, not at its first tracepoint.
    if (is_recording() && ts.session != g_session.load(std::memory_order_acquire)) attach_thread(ts);
    if (ts.id == 0) ts.id = g_next_thread.fetch_add(1, std::memory_order_relaxed);
    auto& reg = thread_registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto& e = reg.threads[ts.id];
    e.os_tid = static_cast<std::int64_t>(::syscall(SYS_gettid));
    e.name = std::string(name);
    reg.version.fetch_add(1, std::memory_order_release);
}

inline Runtime& runtime() noexcept {
    static Runtime r;
    return r;
}

}  // namespace hashtrace::detail
