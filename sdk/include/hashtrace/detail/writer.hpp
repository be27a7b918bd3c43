// hashtrace/detail/writer.hpp - a session's writer thread: drains the
// threads' rings in bulk, hashes deferred samples, converts TSC stamps,
// encodes into the log file and flushes it; logs drop counts and thread names.
#pragma once

#include "hashtrace/canonical.hpp"
#include "hashtrace/config.hpp"
#include "hashtrace/detail/log_file.hpp"
#include "hashtrace/detail/runtime.hpp"
#include "hashtrace/detail/signals.hpp"
#include "hashtrace/detail/stamp_converter.hpp"
#include "hashtrace/detail/stream.hpp"
#include "hashtrace/detail/thread_queues.hpp"
#include "hashtrace/detail/tracepoint.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#pragma GCC visibility push(default)  // one runtime per process: see runtime.hpp

namespace hashtrace::detail {

// The name of the tracepoint whose drop records count the samples the stream
// to the collector dropped (not the disk log: its samples are all there).

class Writer {
public:
    Writer(const Config& config, std::string path, std::unique_ptr<LogFile> file)
        : config_(config), path_(std::move(path)), file_(std::move(file)) {
        // This log counts drops from zero: what call sites dropped before is history.
        CallSiteRegistry& sites = call_sites();
        drops_logged_.resize(sites.size());
        for (std::uint32_t id = 0; id < drops_logged_.size(); ++id) drops_logged_[id] = sites.dropped(id).load();
        if (!config.stream_to.empty()) {
            stream_ = std::make_unique<Stream>(config.stream_to);
            file_->copy_blocks_to(stream_.get());
        }
    }

    const std::string& path() const noexcept { return path_; }
    Stats stats() const noexcept {
        return {written_.load(), dropped_.load(), bytes_.load(), lost_.load(), stream_dropped_.load()};
    }

    void start(StampConverter stamps) {
        stamps_ = stamps;
        thread_ = std::thread([this] { run(); });
    }
    // Returns once the rings stayed empty and the log is complete.
    void stop() {
        stop_requested_.store(true, std::memory_order_release);
        if (thread_.joinable()) thread_.join();
    }

private:
    // The call site's index in this log, defined there on first use.
    std::uint32_t log_index(const CallSite& site, std::int64_t time_ns) {
        if (site.id >= log_index_.size()) log_index_.resize(site.id + 1, kNotLogged);
        std::uint32_t& index = log_index_[site.id];
        if (index == kNotLogged) {
            index = next_index_++;
            file_->tracepoint(index, {{}, {}, site.name, site.input_type, site.output_type, site.hash_function, site.typed},
                              time_ns);
        }
        return index;
    }

    void describe_thread(std::uint32_t id, std::int64_t time_ns) {
        if (thread_described_.size() <= id) thread_described_.resize(id + 1, false);
        if (thread_described_[id]) return;
        thread_described_[id] = true;
        auto& reg = thread_registry();
        std::lock_guard<std::mutex> lock(reg.mutex);
        const auto& e = reg.threads[id];
        file_->thread(id, e.os_tid, e.name, time_ns);
    }

    void redescribe_renamed_threads(std::int64_t time_ns) {
        auto& reg = thread_registry();
        const std::uint64_t v = reg.version.load(std::memory_order_acquire);
        if (v == names_version_) return;
        names_version_ = v;
        std::lock_guard<std::mutex> lock(reg.mutex);
        for (std::uint32_t id = 0; id < thread_described_.size(); ++id)
            if (thread_described_[id]) file_->thread(id, reg.threads[id].os_tid, reg.threads[id].name, time_ns);
    }

    // A TSC stamp in CLOCK_REALTIME ns. A thread's stamps are in program order;
    // the conversion's few tens of ns of noise where a new clock point takes
    // over must not reverse two of them, so it is clamped to the thread's last.
    std::int64_t converted(std::uint32_t thread, std::int64_t tsc) {
        if (last_time_.size() <= thread) last_time_.resize(thread + 1, INT64_MIN);
        const std::int64_t t = std::max(stamps_.to_ns(tsc), last_time_[thread]);
        last_time_[thread] = t;
        return t;
    }

    static Hash128 deferred_hash(const CallSite& site, const std::string& label, const unsigned char* bytes, std::size_t n) {
        return site.typed ? hash_canonical_bytes(site.hash_function, label, bytes, n)
                          : hash_canonical_bytes(site.hash_function, bytes, n);
    }

    void write(const QueuedSample& q) {
        const CallSite& site = *q.site;
        const std::int64_t time_ns = (q.flags & QueuedSample::kTscStamp) ? converted(q.thread, q.time_ns) : q.time_ns;
        const std::uint32_t index = log_index(site, time_ns);
        describe_thread(q.thread, time_ns);
        Hash128 in, out;
        const Hash128* pin = nullptr;
        const Hash128* pout = nullptr;
        if (q.flags & QueuedSample::kDeferred) {
            if (q.flags & QueuedSample::kHasInput) in = deferred_hash(site, site.input_type, q.payload, q.input_len);
            if (q.flags & QueuedSample::kOutIsInput) out = in;
            else if (q.flags & QueuedSample::kHasOutput)
                out = deferred_hash(site, site.output_type, q.payload + q.input_len, q.output_len);
        } else {
            in = q.input_hash();
            out = q.output_hash();
        }
        pin = &in;
        pout = &out;
        if (!(q.flags & QueuedSample::kHasInput)) pin = nullptr;
        if (!(q.flags & QueuedSample::kHasOutput)) pout = nullptr;
        file_->sample({time_ns, pin, pout, index, true, q.thread, true, q.seq});
    }

    // The rings threads made since the last look, read from now on.
    static void learn_new_rings() {
        std::vector<ThreadRing*>& rings = known_rings();
        ThreadRing* r;
        for (;;) {
            HASHTRACE_QUEUE_OPERATION;
            if (!new_rings().try_dequeue(r)) break;
            rings.push_back(r);
        }
    }

    // One pass over every ring: what each has published (at most kRingBatch
    // samples of it), then a clock point, so every stamp read is older than
    // it, then the samples written and their slots handed back. Returns how many.
    std::size_t drain_rings() {
        learn_new_rings();
        const std::vector<ThreadRing*>& rings = known_rings();
        ends_.resize(rings.size());
        std::size_t n = 0;
        for (std::size_t i = 0; i < rings.size(); ++i) {
            const std::uint64_t from = rings[i]->consumed.load(std::memory_order_relaxed);
            ends_[i] = std::min(rings[i]->published.load(std::memory_order_acquire), from + kRingBatch);
            n += ends_[i] - from;
        }
        if (n == 0) return 0;
        if (stamps_.converts()) stamps_.add(read_clock_point());
        for (std::size_t i = 0; i < rings.size(); ++i) {
            ThreadRing& r = *rings[i];
            const std::uint64_t from = r.consumed.load(std::memory_order_relaxed);
            for (std::uint64_t k = from; k < ends_[i]; ++k) write(r.slots[k & r.mask]);
            if (ends_[i] != from) r.consumed.store(ends_[i], std::memory_order_release);
        }
        return n;
    }

    // Logs every drop counted since the last look. Call sites first reached
    // in this session begin at zero.
    void log_drops(std::int64_t time_ns) {
        CallSiteRegistry& sites = call_sites();
        drops_logged_.resize(sites.size(), 0);
        for (std::uint32_t id = 0; id < drops_logged_.size(); ++id) {
            const std::uint64_t n = sites.dropped(id).load(std::memory_order_relaxed);
            if (n == drops_logged_[id]) continue;
            file_->drop(log_index(sites.site(id), time_ns), time_ns, n - drops_logged_[id]);
            dropped_.fetch_add(n - drops_logged_[id], std::memory_order_relaxed);
            drops_logged_[id] = n;
        }
    }

    // The disk log records what the stream dropped as drop records of a
    // tracepoint of its own (docs/log-formats.md), defined at the first.
    void log_stream_drops(std::int64_t time_ns) {
        if (!stream_ || stream_->dropped() == stream_drops_logged_) return;
        if (stream_index_ == kNotLogged) {
            stream_index_ = next_index_++;
            file_->tracepoint(stream_index_, {{}, {}, kStreamDropsTracepoint, {}, {}, HashFunction::md5, false}, time_ns);
        }
        file_->drop(stream_index_, time_ns, stream_->dropped() - stream_drops_logged_);
        stream_drops_logged_ = stream_->dropped();
        stream_dropped_.store(stream_drops_logged_, std::memory_order_relaxed);
    }

    // A flush that cannot write (a full disk) loses its samples, counted; the
    // next flush tries again. The first failure is reported at once, so the
    // user hears of it while it happens, and so is the recovery.
    void flush() {
        file_->flush();
        bytes_.store(file_->bytes_written(), std::memory_order_relaxed);
        written_.store(file_->samples_saved(), std::memory_order_relaxed);
        lost_.store(file_->samples_lost(), std::memory_order_relaxed);
        if (file_->failing() && !reported_failing_) {
            std::fprintf(stderr, "hashtrace: %s; samples are counted as lost until the log can be written again\n",
                         file_->error().c_str());
            reported_failing_ = true;
        } else if (!file_->failing() && reported_failing_) {
            std::fprintf(stderr, "hashtrace: writing %s again; %llu samples lost so far, recorded in the log\n",
                         path_.c_str(), static_cast<unsigned long long>(file_->samples_lost()));
            reported_failing_ = false;
        }
    }

    void run() {
        const auto flush_every = std::chrono::nanoseconds(config_.flush_interval).count();
        std::int64_t last_flush = now_ns(), last_drop_check = last_flush;
        int empty_polls_after_stop = 0;
        for (;;) {
            const std::size_t n = drain_rings();
            const std::int64_t now = now_ns();
            if (now - last_drop_check >= 10'000'000 || n == 0) {
                log_drops(now);
                log_stream_drops(now);
                redescribe_renamed_threads(now);
                last_drop_check = now;
            }
            const int sig = g_pending_signal.exchange(0, std::memory_order_acq_rel);
            if (sig != 0) {
                flush();
                last_flush = now;
                if (signal_ends_process(sig)) {
                    finish_log();
                    restore_signal_handlers();
                    ::raise(sig);  // default action: the process ends, its log complete
                    return;
                }
            }
            if (stream_) stream_->pump(now);
            if (file_->buffered() >= (1u << 20) || (now - last_flush >= flush_every && file_->buffered() > 0)) {
                flush();
                last_flush = now;
            }
            if (n == 0) {
                // Stop only after the rings stayed empty across a short pause, so
                // a tracepoint that passed the recording check just before stop()
                // still lands in this log.
                if (stop_requested_.load(std::memory_order_acquire) && ++empty_polls_after_stop >= 2) break;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        finish_log();
    }

    void finish_log() {
        while (drain_rings() != 0) {
        }
        log_drops(now_ns());
        if (stream_) {  // the collector gets a moment for the rest; what it does not take is in the log
            file_->flush();
            stream_->drain(kStreamPatienceNs);
            log_stream_drops(now_ns());
        }
        file_->close(true);  // the end record: to the disk, and to a stream still connected
        if (stream_) stream_->finish(kStreamPatienceNs / 10);  // the end block holds no samples: nothing more to count
        bytes_.store(file_->bytes_written(), std::memory_order_relaxed);
        written_.store(file_->samples_saved(), std::memory_order_relaxed);
        lost_.store(file_->samples_lost(), std::memory_order_relaxed);
        if (file_->failing())
            std::fprintf(stderr, "hashtrace: %s: the log ends early; %llu samples lost in all\n", path_.c_str(),
                         static_cast<unsigned long long>(file_->samples_lost()));
    }

    const Config config_;
    const std::string path_;
    std::unique_ptr<Stream> stream_;  // declared before file_, which copies its blocks to it: outlives it
    std::unique_ptr<LogFile> file_;
    std::thread thread_;
    std::atomic<bool> stop_requested_{false};
    std::atomic<std::uint64_t> written_{0}, dropped_{0}, bytes_{0}, lost_{0}, stream_dropped_{0};
    std::uint32_t stream_index_ = ~std::uint32_t{0};
    static constexpr std::int64_t kStreamPatienceNs = 1'000'000'000;  // how long stop() waits for a slow collector
    std::uint64_t stream_drops_logged_ = 0;
    bool reported_failing_ = false;

    // Writer-thread state.
    static constexpr std::uint64_t kRingBatch = 4096;  // samples read from one ring in one pass, at most
    std::vector<std::uint64_t> ends_;                   // by ring: the end of this pass's samples
    StampConverter stamps_;
    std::vector<std::int64_t> last_time_;  // per thread id, of converted stamps
    static constexpr std::uint32_t kNotLogged = ~std::uint32_t{0};
    std::vector<std::uint32_t> log_index_;       // by call site id
    std::vector<std::uint64_t> drops_logged_;    // by call site id: the drop count last logged
    std::uint32_t next_index_ = 0;
    std::vector<bool> thread_described_;
    std::uint64_t names_version_ = 0;
};

}  // namespace hashtrace::detail

#pragma GCC visibility pop
