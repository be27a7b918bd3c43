// demo_run.hpp - a small run written as CSV logs (docs/spec.md section 1), loaded,
// linked and analysed by the real pipeline: Chai computes a force and sends it
// from its network thread; Unity receives and renders it. Message i is slower
// every 10th time, and both nodes pause together once.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/metrics/analysis.hpp"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::report::test {

inline std::string hex_id(int kind, int i) {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%08x%024x", kind, i);
    return buf;
}

inline std::string time_text(long long ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%lld.%09lld", ns / 1'000'000'000, ns % 1'000'000'000);
    return buf;
}

struct DemoRun {
    graph::SampleSet samples;
    graph::AnalysisSpec spec;
    graph::Graph graph;
    metrics::AnalysisResult result;
};

constexpr long long kDemoStart = 1'763'800'000'000'000'000;
constexpr int kDemoMessages = 200;
constexpr long long kDemoPeriod = 10'000'000;  // 10 ms
// Messages 100..104 are never sent: both nodes are silent for ~60 ms.
inline bool demo_paused(int i) { return i >= 100 && i < 105; }

// The run's logs as {file name, CSV text}; benchmarks ask for longer runs.
inline std::vector<std::pair<std::string, std::string>> demo_logs(int messages = kDemoMessages) {
    const std::string header = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash,thread\n";
    std::string chai = header, unity = header;
    for (int i = 0; i < messages; ++i) {
        if (demo_paused(i)) continue;
        const long long t = kDemoStart + i * kDemoPeriod;
        const long long delay = i % 10 == 0 ? 5'000'000 : 1'000'000;  // every 10th message is slow
        chai += "Chai,1a,ForceComputed,loop,force," + time_text(t) + "," + hex_id(1, i) + "," + hex_id(2, i) + ",0\n";
        chai += "Chai,1a,MessageSent,force,messageid," + time_text(t + 200'000) + "," + hex_id(2, i) + "," + hex_id(3, i) + ",1\n";
        unity += "Unity,2b,MessageReceived,messageid,transform," + time_text(t + 200'000 + delay) + "," + hex_id(3, i) + "," +
                 hex_id(4, i) + ",0\n";
        unity += "Unity,2b,Rendered,transform,," + time_text(t + 200'000 + delay + 3'000'000) + "," + hex_id(4, i) + ",,0\n";
    }
    // One Unity sample whose input nobody produced.
    unity += "Unity,2b,MessageReceived,messageid,transform," + time_text(kDemoStart + messages * kDemoPeriod) + "," +
             hex_id(9, 9) + "," + hex_id(8, 8) + ",0\n";
    return {{"chai.csv", chai}, {"unity.csv", unity}};
}

inline const char* const kDemoSpec = R"(
[[interval]]
name = "force to render"
from = "Chai/ForceComputed"
to = "Unity/Rendered"
kind = "end_to_end"

[[interval]]
name = "send"
from = "Chai/ForceComputed"
to = "Chai/MessageSent"
kind = "process"
)";

inline DemoRun demo_run() {
    DemoRun run;
    graph::LoadOptions load;
    load.keep_hash_values = true;
    run.samples = graph::load_samples_from_memory(demo_logs(), load);
    run.spec = graph::parse_spec(kDemoSpec, "demo.toml");
    run.graph = graph::link(run.samples, run.spec);
    metrics::MetricOptions measure;
    measure.keep_values = true;
    run.result = metrics::analyze(run.samples, run.graph, run.spec, measure);
    return run;
}

}  // namespace hashtrace::report::test
