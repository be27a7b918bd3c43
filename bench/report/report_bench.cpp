// What the report and the exports cost on top of the analysis they follow.
// Baseline: metrics::analyze on the same linked run (what `hashtrace analyze`
// does anyway). Results and the command: docs/benchmarks.md, "## report".
// Rates use wall time: analyze runs threads, whose CPU time the main thread
// does not see.
#include "demo_run.hpp"

#include "hashtrace/report/build.hpp"
#include "hashtrace/report/html_report.hpp"
#include "hashtrace/report/trace_export.hpp"

#include <benchmark/benchmark.h>

#include <ostream>
#include <streambuf>

namespace {

using namespace hashtrace;

// 50,000 messages: 200,000 samples, 150,000 edges.
const report::test::DemoRun& run() {
    static const report::test::DemoRun r = [] {
        report::test::DemoRun d;
        graph::LoadOptions load;
        load.keep_hash_values = true;
        d.samples = graph::load_samples_from_memory(report::test::demo_logs(50'000), load);
        d.spec = graph::parse_spec(report::test::kDemoSpec, "demo.toml");
        d.graph = graph::link(d.samples, d.spec);
        d.result = metrics::analyze(d.samples, d.graph, d.spec);
        return d;
    }();
    return r;
}

// Counts bytes and drops them: the benchmarks measure encoding, not the disk.
class CountingBuffer : public std::streambuf {
public:
    std::size_t bytes = 0;

protected:
    int_type overflow(int_type c) override {
        ++bytes;
        return c;
    }
    std::streamsize xsputn(const char*, std::streamsize n) override {
        bytes += std::size_t(n);
        return n;
    }
};

void per_sample(benchmark::State& state, std::size_t bytes = 0) {
    state.SetItemsProcessed(std::int64_t(state.iterations() * run().samples.size()));
    if (bytes) state.counters["bytes"] = double(bytes);
}

void BM_Baseline_Analyze(benchmark::State& state) {
    const auto& r = run();
    for (auto _ : state) benchmark::DoNotOptimize(metrics::analyze(r.samples, r.graph, r.spec));
    per_sample(state);
}
BENCHMARK(BM_Baseline_Analyze)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BuildReport(benchmark::State& state) {
    const auto& r = run();
    for (auto _ : state) benchmark::DoNotOptimize(report::build_report(r.samples, r.graph, r.spec, r.result, {}));
    per_sample(state);
}
BENCHMARK(BM_BuildReport)->Unit(benchmark::kMillisecond)->UseRealTime();

// Times one writer on data built once, into a byte-counting stream.
template <class Data, class Write>
void measure_writer(benchmark::State& state, const Data& data, Write write) {
    CountingBuffer buffer;
    std::ostream out(&buffer);
    for (auto _ : state) {
        buffer.bytes = 0;
        write(data, out);
    }
    per_sample(state, buffer.bytes);
}

void BM_WriteReportHtml(benchmark::State& state) {
    const auto& r = run();
    measure_writer(state, report::build_report(r.samples, r.graph, r.spec, r.result, {}), report::write_report_html);
}
BENCHMARK(BM_WriteReportHtml)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ChromeJson(benchmark::State& state) {
    const auto& r = run();
    measure_writer(state, report::build_trace_model(r.samples, r.graph), report::write_chrome_json);
}
BENCHMARK(BM_ChromeJson)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfettoTrace(benchmark::State& state) {
    const auto& r = run();
    measure_writer(state, report::build_trace_model(r.samples, r.graph),
                   [](const report::TraceModel& m, std::ostream& out) { report::write_perfetto_trace(m, out); });
}
BENCHMARK(BM_PerfettoTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
