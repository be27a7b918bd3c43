// hashtrace/metrics/analysis.hpp - the measure stage: SampleSet + Graph + spec
// -> AnalysisResult (docs/spec.md section 5). Pure: no clock, no disk.
//
//   auto result = hashtrace::metrics::analyze(samples, graph, spec);
//   std::cout << hashtrace::metrics::render_table(result);   // render.hpp
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/metrics/statistics.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::metrics {

struct MetricOptions {
    bool keep_all_targets = false;  // intervals: every reachable `to` sample, not only the earliest per instance
    bool keep_values = false;       // keep raw observations (compare needs them for significance tests)
    double m3_sample_period_s = 1e-3;  // keep_values: M3 is observed as the in-flight count on this grid
    unsigned threads = 0;           // 0 = hardware concurrency
    // Samples the forward searches of one interval (or the matrix) may visit
    // before it is answered by full passes over the graph instead; 0 = automatic
    // (twice the samples). Both give the same answers; tests force each way.
    std::size_t reach_search_budget = 0;
};

struct IntervalResult {
    std::string name;
    graph::IntervalKind kind = graph::IntervalKind::process;
    std::string from, to;  // the spec's selectors ("node/tracepoint"): what it measures, whatever its name
    Summary latency_ms;
    std::vector<double> values_ms;  // only with keep_values; in order of the `from` sample's time
};

struct ParallelismResult {  // M3, time-weighted over the run window
    double mean = 0, sd = 0, max = 0;
    std::vector<double> samples;  // only with keep_values: in-flight count on the sampling grid
};

struct NodeLatency {  // one cell of the node latency matrix (paper's Figure 4)
    std::string from, to;
    std::size_t count = 0;
    double mean_ms = 0, max_ms = 0;
};

// Extra output another stage adds (e.g. clock sync errors, issue 5): rendered
// after the metrics; `json` must be a complete JSON value, put under `key`.
struct ExtraSection {
    std::string key;
    std::string title;
    std::vector<std::string> text_lines;
    std::string json;
};

struct AnalysisResult {
    std::uint64_t samples = 0, edges = 0, message_edges = 0, local_edges = 0;
    std::uint64_t unlinked_inputs = 0, unconsumed_outputs = 0;
    std::uint64_t bad_records = 0, dropped_samples = 0, lost_samples = 0, torn_files = 0;
    std::vector<std::string> unclean_files;  // binary logs without their end marker (logio::ReadReport::closed_uncleanly)
    std::size_t files = 0, nodes = 0, instances = 0;
    std::int64_t first_time_ns = 0, last_time_ns = 0;
    double window_s = 0;

    std::vector<IntervalResult> intervals;  // in spec order
    ParallelismResult m3;
    double m8 = 0;                           // message edges per second
    Summary m11_ms;                          // message waiting time
    std::vector<double> m11_values_ms;       // only with keep_values
    double m12 = 0;                          // local duration sum / message duration sum (0 if no message edges)
    std::vector<NodeLatency> node_latency;   // sorted by (from, to); absent pairs omitted
    std::vector<std::string> warnings;       // e.g. spec selectors matching nothing (lenient mode)
    std::vector<ExtraSection> extra;
};

AnalysisResult analyze(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                       const MetricOptions& options = {});

}  // namespace hashtrace::metrics
