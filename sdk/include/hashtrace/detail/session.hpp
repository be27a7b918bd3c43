// hashtrace/detail/session.hpp - starting and stopping a session: the log
// file and its header, the writer thread, the signal handlers, the switches
// the hot path reads. One session per process at a time.
#pragma once

#include "hashtrace/config.hpp"
#include "hashtrace/detail/instance_id.hpp"
#include "hashtrace/detail/log_file.hpp"
#include "hashtrace/detail/runtime.hpp"
#include "hashtrace/detail/signals.hpp"
#include "hashtrace/detail/stamp_converter.hpp"
#include "hashtrace/detail/thread_queues.hpp"
#include "hashtrace/detail/tracepoint.hpp"
#include "hashtrace/detail/writer.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#pragma GCC visibility push(default)  // one runtime per process: see runtime.hpp

namespace hashtrace::detail {

inline std::mutex& session_mutex() {
    static std::mutex m;
    return m;
}

HASHTRACE_RUNTIME_FN void set_recording(bool on) noexcept {
    // Only meaningful while a session runs; stop() turns recording off for good.
    if (on && !runtime().running()) return;
    g_recording.store(on, std::memory_order_relaxed);
}

HASHTRACE_RUNTIME_FN void Runtime::start(const Config& config) {
#if defined(HASHTRACE_DISABLE)
    (void)config;
#else
    std::lock_guard<std::mutex> lock(session_mutex());
    if (writer_) throw std::logic_error("hashtrace: a session is already running (" + writer_->path() + ")");
    if (config.queue_capacity == 0 || config.queue_capacity > kMaxQueueCapacity)
        throw std::invalid_argument("hashtrace: queue_capacity must be 1.." + std::to_string(kMaxQueueCapacity));
    static const bool tsc_stamps = tsc_stamps_usable();
    g_stamp_is_tsc.store(tsc_stamps, std::memory_order_relaxed);
    const StampConverter stamps = tsc_stamps ? StampConverter(read_clock_point()) : StampConverter();
    const std::int64_t start = now_ns();
    const std::string instance = make_instance_id(start);
    std::filesystem::create_directories(config.log_dir);
    std::string path = (std::filesystem::path(config.log_dir) / (config.node_name + "-" + instance + file_suffix(config.format))).string();
    auto file = std::make_unique<LogFile>(
        path, config.format,
        std::vector<std::pair<std::string, std::string>>{
            {"node", config.node_name},
            {"instance", instance},
            {"host", host_name()},
            {"pid", std::to_string(::getpid())},
            {"clock_source", "CLOCK_REALTIME"},
            {"time_stamps", tsc_stamps ? "tsc" : "clock_gettime"},
            {"start_time_ns", std::to_string(start)},
            {"hash_functions", "md5,xxh3_128"},
            {"writer", "hashtrace-sdk 0.1"},
        });
    const std::uint64_t session = g_session.load() + 1;
    auto writer = std::make_unique<Writer>(config, std::move(path), std::move(file));
    g_full_policy.store(static_cast<int>(config.when_full));
    g_thread_capacity.store(config.queue_capacity);
    g_session.store(session, std::memory_order_release);
    g_pending_signal.store(0);
    if (config.install_signal_handlers) install_signal_handlers();
    writer->start(stamps);
    writer_ = writer.release();
    static bool at_exit_registered = [] { return std::atexit([] { runtime().stop(); }) == 0; }();
    (void)at_exit_registered;
    g_recording.store(config.enabled, std::memory_order_release);
#endif
}

HASHTRACE_RUNTIME_FN void Runtime::stop() {
    std::lock_guard<std::mutex> lock(session_mutex());
    if (!writer_) return;
    g_recording.store(false, std::memory_order_release);
    writer_->stop();
    restore_signal_handlers();
    last_stats_ = writer_->stats();
    last_path_ = writer_->path();
    delete writer_;
    writer_ = nullptr;
}

HASHTRACE_RUNTIME_FN bool Runtime::running() const noexcept { return writer_ != nullptr; }

HASHTRACE_RUNTIME_FN std::string Runtime::log_path() const {
    std::lock_guard<std::mutex> lock(session_mutex());
    return writer_ ? writer_->path() : last_path_;
}

HASHTRACE_RUNTIME_FN Stats Runtime::stats() const {
    std::lock_guard<std::mutex> lock(session_mutex());
    return writer_ ? writer_->stats() : last_stats_;
}

HASHTRACE_RUNTIME_FN void Runtime::name_thread(std::string_view name) {
    ThreadState& ts = thread_state();
    // A thread that names itself at start gets its ring ready now, not at its first tracepoint.
    if (is_recording() && ts.session != g_session.load(std::memory_order_acquire)) attach_thread(ts);
    if (ts.id == 0) ts.id = g_next_thread.fetch_add(1, std::memory_order_relaxed);
    auto& reg = thread_registry();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto& e = reg.threads[ts.id];
    e.os_tid = static_cast<std::int64_t>(::syscall(SYS_gettid));
    e.name = std::string(name);
    reg.version.fetch_add(1, std::memory_order_release);
}

HASHTRACE_RUNTIME_FN Runtime& runtime() noexcept {
    static Runtime r;
    return r;
}

}  // namespace hashtrace::detail

#pragma GCC visibility pop
