// The paper's Table 7, reproduced and beaten: the cost of one tracepoint on
// the application thread for payloads of 10 B to 100 kB, side by side with the
// cost of the bare hash function on the same bytes (the floor any hashing
// tracepoint must pay).
//
//   build/bench/sdk/bench_tracepoint --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//   bench/sdk/lttng_side_by_side.sh     # the same beside an LTTng-UST event, in an LTTng session
//
// A session runs throughout; every 64 Ki tracepoints the clock is paused until
// the writer has caught up, so the queue never fills and nothing is dropped
// (checked: a benchmark with a drop reports an error instead of a time).
#include <hashtrace/hashtrace.hpp>

#include <benchmark/benchmark.h>
#include <concurrentqueue/concurrentqueue.h>

#include <openssl/md5.h>

#ifdef HASHTRACE_BENCH_LTTNG
#include "lttng_tp.h"
#endif

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

std::vector<unsigned char> payload(std::size_t n) {
    std::vector<unsigned char> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(i * 131 + 7);
    return p;
}

// The session's log goes to a folder of this process's, removed when it ends:
// a run writes gigabytes (every sample of every repetition), and runs left
// behind had filled the disk.
struct TracingSession {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hashtrace-bench-" + std::to_string(::getpid()));
    TracingSession() {
        hashtrace::Config c;
        c.node_name = "Bench";
        c.log_dir = dir.string();
        c.queue_capacity = 1u << 17;
        c.flush_interval = std::chrono::milliseconds(10);  // the drains wait for samples to be saved (Stats::written)
        c.install_signal_handlers = false;
        hashtrace::start(c);
        hashtrace::set_thread_name("bench");  // prepares this thread's queue before timing
    }
    ~TracingSession() {
        hashtrace::stop();
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
    }
};
TracingSession& session() {
    static TracingSession s;
    return s;
}

// Pauses the clock every 64 Ki iterations until the writer has written all.
class DrainEvery {
public:
    explicit DrainEvery(benchmark::State& st) : state_(st), base_(hashtrace::stats().written) {}
    void tick() {
        if (++n_ % 65536 == 0) drain();
    }
    // After the timed loop: wait for the writer, then check nothing was dropped.
    void finish() {
        while (hashtrace::stats().written < base_ + n_) std::this_thread::yield();
        if (hashtrace::stats().dropped != dropped_at_start_) state_.SkipWithError("samples were dropped");
    }

private:
    void drain() {
        state_.PauseTiming();
        while (hashtrace::stats().written < base_ + n_) std::this_thread::yield();
        state_.ResumeTiming();
    }
    benchmark::State& state_;
    std::uint64_t base_;
    std::uint64_t n_ = 0;
    std::uint64_t dropped_at_start_ = hashtrace::stats().dropped;
};

void BM_BareMD5(benchmark::State& state) {
    const auto p = payload(static_cast<std::size_t>(state.range(0)));
    unsigned char digest[16];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    for (auto _ : state) {
        MD5(p.data(), p.size(), digest);
        benchmark::DoNotOptimize(digest);
    }
#pragma GCC diagnostic pop
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
}

void BM_BareXXH3(benchmark::State& state) {
    const auto p = payload(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        auto h = hashtrace::hash_canonical_bytes(hashtrace::HashFunction::xxh3_128, p.data(), p.size());
        benchmark::DoNotOptimize(h);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
}

template <int Kind>
void BM_Tracepoint(benchmark::State& state) {
    session();
    const auto p = payload(static_cast<std::size_t>(state.range(0)));
    const auto view = hashtrace::bytes(p.data(), p.size());
    DrainEvery drain(state);
    for (auto _ : state) {
        if constexpr (Kind == 0) TRACEPOINT("InlineMD5", hashtrace::in("payload", view), hashtrace::none);
        if constexpr (Kind == 1) TRACEPOINT_DEFERRED("DeferredMD5", hashtrace::in("payload", view), hashtrace::none);
        if constexpr (Kind == 2) TRACEPOINT_FAST("FastXXH3", hashtrace::in("payload", view), hashtrace::none);
        if constexpr (Kind == 3) TRACEPOINT_FAST_DEFERRED("FastDeferred", hashtrace::in("payload", view), hashtrace::none);
        drain.tick();
    }
    drain.finish();
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
}

// A tracepoint with recording switched off at run time: the one branch.
void BM_TracepointSwitchedOff(benchmark::State& state) {
    session();
    hashtrace::set_enabled(false);
    std::uint32_t i = 0;
    for (auto _ : state) {
        TRACEPOINT("Off", hashtrace::inout("loop", i));
        benchmark::DoNotOptimize(++i);
    }
    hashtrace::set_enabled(true);
}

// ---- Per-call cost: median and tail -------------------------------------------
// Google Benchmark reports the mean of a loop. Real-time users care about the
// distribution: each call is bracketed by TSC reads, the bracket's own cost
// (measured the same way around nothing) is subtracted, and the percentiles
// are reported in ns (the TSC's rate measured against steady_clock over the run).
// The bracketing reads are fenced (lfence before and after), so neither runs
// ahead of or behind the instructions it brackets; the tracepoint's stores
// count up to their retirement into the store buffer, as the application sees.
std::uint64_t fenced_tsc() noexcept {
    __builtin_ia32_lfence();
    const std::uint64_t t = hashtrace::detail::read_tsc();
    __builtin_ia32_lfence();
    return t;
}

template <int Kind>
void BM_TracepointPerCall(benchmark::State& state) {
    session();
    const auto p = payload(static_cast<std::size_t>(state.range(0)));
    const auto view = hashtrace::bytes(p.data(), p.size());
    std::vector<std::uint32_t> ticks, empty;
    ticks.reserve(1u << 22);
    empty.reserve(1u << 22);
    const auto wall0 = std::chrono::steady_clock::now();
    const std::uint64_t tsc0 = hashtrace::detail::read_tsc();
    DrainEvery drain(state);
    for (auto _ : state) {
        std::uint64_t a = fenced_tsc();
        std::uint64_t b = fenced_tsc();
        empty.push_back(static_cast<std::uint32_t>(b - a));
        a = fenced_tsc();
        if constexpr (Kind == 1) TRACEPOINT_DEFERRED("PerCallDeferred", hashtrace::in("payload", view), hashtrace::none);
        if constexpr (Kind == 3) TRACEPOINT_FAST_DEFERRED("PerCallFastDeferred", hashtrace::in("payload", view), hashtrace::none);
        b = fenced_tsc();
        ticks.push_back(static_cast<std::uint32_t>(b - a));
        drain.tick();
        if (ticks.size() == ticks.capacity()) break;
    }
    drain.finish();
    const double ns_per_tick =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count() /
        static_cast<double>(hashtrace::detail::read_tsc() - tsc0);
    auto percentile = [](std::vector<std::uint32_t>& v, double q) {
        const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
        return static_cast<double>(v[k]);
    };
    const double bracket = percentile(empty, 0.5);
    for (double q : {0.5, 0.9, 0.99, 0.999})
        state.counters["p" + std::to_string(static_cast<int>(q * 1000 + 0.5) / 10.0).substr(0, 4) + "_ns"] =
            (percentile(ticks, q) - bracket) * ns_per_tick;
    state.counters["bracket_ns"] = bracket * ns_per_tick;
}

// ---- The floor under a tracepoint on this machine --------------------------
// What any tracepoint of this design must pay: reading the clock, and storing
// the sample where another thread will read it. Side by side with the
// tracepoints above, so the distance to the floor is visible.

void BM_FloorClockTsc(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(hashtrace::detail::read_tsc());
}

void BM_FloorClockGettime(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(hashtrace::detail::now_ns());
}

// The TSC read plus a producer-token enqueue of a sample's cache lines (1 for
// hashes, 2 for a deferred 64-byte payload) into a moodycamel queue that a
// second thread drains: the hand-off tracepoints made before they wrote into
// their thread's ring in place, kept to show what the ring saves.
struct FloorQueueTraits : moodycamel::ConcurrentQueueDefaultTraits {
    static const size_t BLOCK_SIZE = 256;
    static const size_t EXPLICIT_INITIAL_INDEX_SIZE = 4096;
};
void BM_FloorStampAndEnqueue(benchmark::State& state) {
    using Queue = moodycamel::ConcurrentQueue<hashtrace::detail::QueuedSample, FloorQueueTraits>;
    constexpr std::size_t kCapacity = 1u << 17;
    Queue queue(kCapacity + 2 * FloorQueueTraits::BLOCK_SIZE, 1, 0);
    moodycamel::ProducerToken token(queue);
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> drained{0};
    std::thread consumer([&] {
        std::vector<hashtrace::detail::QueuedSample> batch(1024);
        while (!done.load(std::memory_order_acquire)) {
            const std::size_t n = queue.try_dequeue_bulk(batch.data(), batch.size());
            drained.fetch_add(n, std::memory_order_release);
            if (n == 0) std::this_thread::yield();
        }
    });
    hashtrace::detail::QueuedSample sample{};
    sample.flags = hashtrace::detail::QueuedSample::kDeferred;
    sample.input_len = static_cast<std::uint8_t>(state.range(0));
    std::uint64_t sent = 0;
    for (auto _ : state) {
        sample.time_ns = static_cast<std::int64_t>(hashtrace::detail::read_tsc());
        sample.seq = sent;
        if (!queue.try_enqueue(token, sample)) state.SkipWithError("queue full");
        if (++sent % 65536 == 0) {
            state.PauseTiming();
            while (drained.load(std::memory_order_acquire) < sent) std::this_thread::yield();
            state.ResumeTiming();
        }
    }
    done.store(true, std::memory_order_release);
    consumer.join();
}

// The floor of a tracepoint that writes its sample in place: the TSC read
// and a store of the sample's bytes (its time and the deferred payload) into
// a ring of this thread's, nothing handed to another thread. The deferred
// tracepoint at 10 B and 64 B is measured against it in the same run.
void BM_FloorStampAndStore(benchmark::State& state) {
    constexpr std::size_t kSlots = 4096, kSlotBytes = 128;  // 512 KiB: in L2, as a thread's ring would be
    static thread_local std::vector<unsigned char> ring(kSlots * kSlotBytes);
    const auto p = payload(static_cast<std::size_t>(state.range(0)));
    std::size_t next = 0;
    for (auto _ : state) {
        unsigned char* slot = ring.data() + (next++ % kSlots) * kSlotBytes;
        const std::uint64_t t = hashtrace::detail::read_tsc();
        std::memcpy(slot, &t, sizeof t);
        std::memcpy(slot + sizeof t, p.data(), p.size());
        benchmark::ClobberMemory();
    }
}

#ifdef HASHTRACE_BENCH_LTTNG
// An LTTng-UST event with the two 16-byte hashes given, in the session
// bench/sdk/lttng_side_by_side.sh makes (a user-space channel in discard
// mode): the cost an LTTng user pays to record what a deferred tracepoint
// records. Without a session enabling the event it is one branch, not a
// comparison: refused.
void BM_LttngEventTwoHashes(benchmark::State& state) {
    if (!lttng_ust_tracepoint_enabled(hashtrace_bench, sample)) {
        state.SkipWithError("no LTTng session enables hashtrace_bench:sample (run bench/sdk/lttng_side_by_side.sh)");
        return;
    }
    std::uint8_t input[16], output[16];
    for (int i = 0; i < 16; ++i) input[i] = static_cast<std::uint8_t>(i * 31 + 1), output[i] = static_cast<std::uint8_t>(i * 17 + 3);
    for (auto _ : state) {
        lttng_ust_tracepoint(hashtrace_bench, sample, input, output);
        benchmark::ClobberMemory();
    }
}
#endif

// Payload sizes of the paper's Table 7, plus 64 B (the deferred copy's target).
void Sizes(benchmark::internal::Benchmark* b) {
    for (int n : {10, 64, 100, 1000, 10000, 100000}) b->Arg(n);
}

}  // namespace

BENCHMARK(BM_BareMD5)->Apply(Sizes);
BENCHMARK(BM_Tracepoint<0>)->Name("BM_TracepointInlineMD5")->Apply(Sizes);
BENCHMARK(BM_Tracepoint<1>)->Name("BM_TracepointDeferredMD5")->Apply(Sizes);
BENCHMARK(BM_BareXXH3)->Apply(Sizes);
BENCHMARK(BM_Tracepoint<2>)->Name("BM_TracepointFastXXH3")->Apply(Sizes);
BENCHMARK(BM_Tracepoint<3>)->Name("BM_TracepointFastDeferred")->Apply(Sizes);
BENCHMARK(BM_TracepointSwitchedOff);
BENCHMARK(BM_TracepointPerCall<1>)->Name("BM_TracepointDeferredMD5PerCall")->Arg(10)->Arg(64);
BENCHMARK(BM_TracepointPerCall<3>)->Name("BM_TracepointFastDeferredPerCall")->Arg(10)->Arg(64);
BENCHMARK(BM_FloorClockTsc);
BENCHMARK(BM_FloorClockGettime);
BENCHMARK(BM_FloorStampAndEnqueue)->ArgName("payload")->Arg(32)->Arg(72);
BENCHMARK(BM_FloorStampAndStore)->Arg(10)->Arg(64);
#ifdef HASHTRACE_BENCH_LTTNG
BENCHMARK(BM_LttngEventTwoHashes);
#endif

BENCHMARK_MAIN();
