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
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hashtrace::metrics {

// A time shard's share of a run (time-sharded analysis, docs/analysis.md):
// the shard was linked over its samples and a margin on either side, and
// counts only what it owns, so that the shards of a run count each thing
// once. It owns the samples of [begin, end) (its time range): the interval
// and matrix searches start only from them, and the edge metrics (M8, M11,
// M12) take only the edges they produce (an edge's producer, not its
// consumer: M11's jitter then sees the edges in the run's order). M3
// integrates the messages in flight over [m3_from_ns, m3_to_ns) only; the
// shard that holds the run's last sample adds the count after its changes.
struct Share {
    graph::SampleIndex begin = 0, end = 0;
    std::int64_t m3_from_ns = 0, m3_to_ns = 0;
    bool ends_run = false;
};

struct MetricOptions {
    bool keep_all_targets = false;  // intervals: every reachable `to` sample, not only the earliest per instance
    bool keep_values = false;       // keep raw observations (compare needs them for significance tests)
    double m3_sample_period_s = 1e-3;  // keep_values: M3 is observed as the in-flight count on this grid (0: not observed)
    bool keep_value_times = false;  // beside each interval value kept or taken (take_values) its `from` sample's time (time shards bin them)
    bool summarize_values = true;   // false (with keep_values): the intervals' and M11's summaries left empty, for a caller that summarises the values itself
    // Where the values go where they are, instead of (or beside) copies kept
    // in the result: called once for each interval (its index in the spec;
    // with keep_value_times, each value's `from` time beside it) and once for
    // M11 (kM11Values, no times), on the thread that finished them, several
    // at once. The spans live only during the call. A time shard summarises
    // them there, without the copies (and their fresh memory) keep_values makes.
    static constexpr std::size_t kM11Values = static_cast<std::size_t>(-1);
    std::function<void(std::size_t interval, std::span<const double> values_ms, std::span<const std::int64_t> from_ns)> take_values;
    unsigned threads = 0;           // 0 = hardware concurrency
    // Samples the forward searches of one interval (or the matrix) may visit
    // before it is answered by full passes over the graph instead; 0 = automatic
    // (twice the samples). Both give the same answers; tests force each way.
    std::size_t reach_search_budget = 0;
    std::optional<Share> share;  // none: the whole run is analysed
    // Hand the page pool's free regions (what linking freed) back to the
    // kernel before measuring, so that they do not stay resident under the
    // metrics' buffers. Time shards keep them: the next shard's columns take
    // them without fresh pages for the kernel to zero.
    bool release_pooled_memory = true;
};

struct IntervalResult {
    std::string name;
    graph::IntervalKind kind = graph::IntervalKind::process;
    std::string from, to;  // the spec's selectors ("node/tracepoint"): what it measures, whatever its name
    Summary latency_ms;
    std::vector<double> values_ms;  // only with keep_values; in order of the `from` sample's time
    std::vector<std::int64_t> from_ns;  // only with keep_value_times: each value's `from` sample time
};

struct ParallelismResult {  // M3, time-weighted over the run window
    double mean = 0, sd = 0, max = 0;
    std::vector<double> samples;  // only with keep_values: in-flight count on the sampling grid
};

struct NodeLatency {  // one cell of the node latency matrix (paper's Figure 4)
    std::string from, to;
    std::size_t count = 0;
    double mean_ms = 0, max_ms = 0;
    __int128 sum_ns = 0;   // exact, for a sharded analysis to add up
    std::int64_t max_ns = 0;
};

// Extra output another stage adds (e.g. clock sync errors): rendered
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
    std::uint64_t stream_dropped_samples = 0;  // in the logs, not sent to a live collector (logio::ReadReport::stream_dropped)
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
    // The sums behind M3 and M12, exact (a sharded analysis adds them up).
    struct ExactSums {
        unsigned __int128 in_flight_ns = 0, in_flight_sq_ns = 0;  // M3: integral of the count and of its square
        std::uint64_t in_flight_max = 0;
        __int128 local_ns = 0, message_ns = 0;                    // M12: durations of local and message edges
    } exact;
    std::vector<ExtraSection> extra;
};

AnalysisResult analyze(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                       const MetricOptions& options = {});

// M3, M8 and M12 from what they are made of (docs/spec.md section 5): the
// exact sums, the message edges and the window (first_time_ns,
// last_time_ns, window_s). analyze() and a merge of time shards both finish
// them here, so that a sharded run prints the whole run's figures.
void finish_edge_metrics(AnalysisResult& r);

// One input file's health added to the run's: bad records, drops, losses,
// a torn tail, an unclean close.
void add_input_health(AnalysisResult& r, const std::string& path, const logio::ReadReport& report);

}  // namespace hashtrace::metrics
