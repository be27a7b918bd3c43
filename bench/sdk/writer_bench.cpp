// Writer throughput: samples per second from the first tracepoint until the
// log is completely on disk (stop() returned), from 1 and 2 producer threads,
// in both formats, with the block policy so nothing may be dropped; and the
// bytes each sample costs on disk.
//
//   build/bench/sdk/bench_writer
#include <hashtrace/hashtrace.hpp>

#include <benchmark/benchmark.h>

#include <filesystem>
#include <thread>
#include <vector>

namespace {

constexpr std::uint32_t kSamplesPerThread = 2'000'000;

void BM_WriterThroughput(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    const auto format = state.range(1) == 0 ? hashtrace::LogFormat::binary : hashtrace::LogFormat::csv;
    const auto dir = std::filesystem::temp_directory_path() / "hashtrace-bench-writer";
    std::uint64_t written = 0, bytes = 0, dropped = 0;
    for (auto _ : state) {
        std::filesystem::remove_all(dir);
        hashtrace::Config c;
        c.node_name = "Physics";
        c.log_dir = dir.string();
        c.format = format;
        c.when_full = hashtrace::FullPolicy::block;
        c.queue_capacity = 1u << 16;
        c.install_signal_handlers = false;
        hashtrace::start(c);
        std::vector<std::thread> producers;
        for (int t = 0; t < threads; ++t)
            producers.emplace_back([t] {
                // A realistic mix: a loop counter in, a message id out, and a hop that passes the id on.
                for (std::uint32_t i = 0; i < kSamplesPerThread; i += 2) {
                    TRACEPOINT_FAST("Simulate", hashtrace::in("loop", i), hashtrace::out("messageid", t, i));
                    TRACEPOINT_FAST("Send", hashtrace::inout("messageid", t, i));
                }
            });
        for (auto& p : producers) p.join();
        hashtrace::stop();
        const auto st = hashtrace::stats();
        written += st.written;
        bytes += st.bytes;
        dropped += st.dropped;
    }
    if (dropped != 0) state.SkipWithError("samples were dropped");
    if (written != state.iterations() * threads * std::uint64_t{kSamplesPerThread}) state.SkipWithError("samples missing");
    state.SetItemsProcessed(static_cast<std::int64_t>(written));
    state.counters["bytes_per_sample"] = static_cast<double>(bytes) / static_cast<double>(written);
    std::filesystem::remove_all(dir);
}

}  // namespace

BENCHMARK(BM_WriterThroughput)
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->ArgNames({"threads", "csv"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

BENCHMARK_MAIN();
