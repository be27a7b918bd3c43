// Graph builder and metrics benchmarks (docs/benchmarks.md, "Graph builder
// and metrics"): `analyze` end to end from binary and CSV logs of a synthetic
// Case Study 2 run, its stages alone, and side by side the same linking plus
// one interval done with pandas and with SQLite (baseline.py) on a smaller run.
//
// Sizes: HASHTRACE_BENCH_SAMPLES (default 4000000), HASHTRACE_BENCH_BASELINE_SAMPLES
// (default 300000: a pandas merge of a wrapping loop counter grows quadratically).
// Datasets are cached under $TMPDIR/hashtrace-bench-graph.
#include "dataset.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/metrics/analysis.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace {

namespace fs = std::filesystem;
using namespace hashtrace;

std::uint64_t env_size(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 10) : fallback;
}

const std::uint64_t kSamples = env_size("HASHTRACE_BENCH_SAMPLES", 4'000'000);
const std::uint64_t kBaselineSamples = env_size("HASHTRACE_BENCH_BASELINE_SAMPLES", 300'000);

// The dataset directory for (format, size), generated once.
fs::path dataset(LogFormat format, std::uint64_t samples) {
    const fs::path dir = fs::temp_directory_path() / "hashtrace-bench-graph" /
                         ((format == LogFormat::csv ? "csv-" : "binary-") + std::to_string(samples));
    const fs::path done = dir / "complete";
    if (!fs::exists(done)) {
        fs::remove_all(dir);
        bench::generate_dataset(dir, samples, format);
        std::ofstream(dir / "spec.toml") << bench::bench_spec();
        std::ofstream(done) << "ok\n";
    }
    return dir;
}

const graph::AnalysisSpec& spec() {
    static const graph::AnalysisSpec s = graph::parse_spec(bench::bench_spec(), "bench_spec.toml");
    return s;
}

graph::SampleSet load(const fs::path& dir) { return graph::load_samples(logio::find_logs({dir})); }

template <typename T, typename A>
std::size_t bytes(const std::vector<T, A>& v) { return v.capacity() * sizeof(T); }

// Resident bytes of the analysis structures after linking, per sample.
double bytes_per_sample(const graph::SampleSet& s, const graph::Graph& g) {
    const std::size_t total = bytes(s.time_ns) + bytes(s.input) + bytes(s.output) + bytes(s.tracepoint) + bytes(s.thread) +
                              bytes(g.edges) + bytes(g.out_offset) + bytes(g.in_edges) + bytes(g.in_offset);
    return double(total) / double(s.size());
}

void analyze_end_to_end(benchmark::State& state, LogFormat format, std::uint64_t samples) {
    const fs::path dir = dataset(format, samples);
    std::size_t n = 0, edges = 0;
    double per_sample = 0;
    for (auto _ : state) {
        const auto s = load(dir);
        const auto g = graph::link(s, spec());
        const auto r = metrics::analyze(s, g, spec());
        benchmark::DoNotOptimize(r.m12);
        n = s.size();
        edges = g.edges.size();
        per_sample = bytes_per_sample(s, g);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
    state.counters["samples"] = double(n);
    state.counters["edges"] = double(edges);
    state.counters["bytes_per_sample"] = per_sample;
}

void BM_AnalyzeBinary(benchmark::State& state) { analyze_end_to_end(state, LogFormat::binary, kSamples); }
void BM_AnalyzeCsv(benchmark::State& state) { analyze_end_to_end(state, LogFormat::csv, kSamples); }
void BM_AnalyzeCsvBaselineSize(benchmark::State& state) { analyze_end_to_end(state, LogFormat::csv, kBaselineSamples); }

void BM_StageLoadBinary(benchmark::State& state) {
    const fs::path dir = dataset(LogFormat::binary, kSamples);
    std::size_t n = 0;
    for (auto _ : state) n = load(dir).size();
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void BM_StageLink(benchmark::State& state) {
    const auto s = load(dataset(LogFormat::binary, kSamples));
    for (auto _ : state) benchmark::DoNotOptimize(graph::link(s, spec()).edges.size());
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

void BM_StageMetrics(benchmark::State& state) {
    const auto s = load(dataset(LogFormat::binary, kSamples));
    const auto g = graph::link(s, spec());
    for (auto _ : state) benchmark::DoNotOptimize(metrics::analyze(s, g, spec()).m12);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

// Runs baseline.py and reports its edge count next to hashtrace's on the same
// logs: pandas matches exactly; SQLite with REAL (double) times sees a few
// extra ties (doubles resolve ~240 ns at 1.7e9 s), see docs/benchmarks.md.
void baseline(benchmark::State& state, const char* engine) {
    const fs::path dir = dataset(LogFormat::csv, kBaselineSamples);
    const auto s = load(dir);
    const auto expected_edges = graph::link(s, spec()).edges.size();
    const std::string command = std::string("/usr/bin/python3 ") + HASHTRACE_BASELINE_PY + " " + engine + " " + dir.string() + " " + (dir / "spec.toml").string();
    std::size_t edges = 0;
    for (auto _ : state) {
        FILE* pipe = popen(command.c_str(), "r");
        std::array<char, 512> line{};
        const bool got = std::fgets(line.data(), line.size(), pipe) != nullptr;
        if (pclose(pipe) != 0 || !got) {
            state.SkipWithError(("baseline failed: " + command).c_str());
            return;
        }
        const char* e = std::strstr(line.data(), "edges=");
        edges = e ? std::strtoull(e + 6, nullptr, 10) : 0;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
    state.counters["edges"] = double(edges);
    state.counters["edges_hashtrace"] = double(expected_edges);
}

void BM_BaselinePandas(benchmark::State& state) { baseline(state, "pandas"); }
void BM_BaselineSqlite(benchmark::State& state) { baseline(state, "sqlite"); }

}  // namespace

BENCHMARK(BM_AnalyzeBinary)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(BM_AnalyzeCsv)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StageLoadBinary)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(BM_StageLink)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(BM_StageMetrics)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(BM_AnalyzeCsvBaselineSize)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK(BM_BaselinePandas)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_BaselineSqlite)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK_MAIN();
