// hashtrace/report/report_data.hpp - the data model of the HTML report.
//
// Everything the page draws, already aggregated or sampled: a run of millions
// of samples becomes a few hundred kilobytes. report_json.cpp writes it as the
// JSON the page's script reads (docs/report.md documents each field). Times are
// seconds since the run's first sample unless a name says otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::report {

struct Statistics {  // milliseconds, as docs/spec.md section 5b defines them
    std::uint64_t count = 0;
    double mean = 0, sd = 0, min = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

struct MetricRow {
    std::string name;
    std::string unit;
    std::string better;  // "lower", "higher" or "" (used to mark the best run)
    std::optional<double> value;
};

struct IntervalRow {
    std::string name;
    std::string kind;  // "process" or "end_to_end"
    Statistics latency;
};

struct RunMetrics {
    std::string name;
    std::vector<MetricRow> metrics;
    std::vector<IntervalRow> intervals;
};

struct NodeHealth {
    std::string node, instance, host, clock_source;
    std::uint64_t samples = 0, dropped = 0, unlinked_inputs = 0;
    std::optional<double> clock_error_ms;  // from clock sync, when the run has it
};

struct Health {
    std::uint64_t samples = 0, edges = 0, message_edges = 0, dropped_samples = 0;
    std::uint64_t unlinked_inputs = 0, unconsumed_outputs = 0, bad_records = 0, torn_files = 0;
    std::vector<NodeHealth> nodes;
    std::vector<std::string> unclean_files;  // logs not closed cleanly (metrics::AnalysisResult::unclean_files)
};

struct Histogram {
    double lo_ms = 0, width_ms = 1;
    std::vector<std::uint64_t> counts;
    std::uint64_t overflow = 0;  // values above the last bin (a long tail is not drawn to scale)
    double hi_ms = 0;            // where the last bin ends: above it, overflow
};

struct TimeBin {  // latency percentiles of the observations starting in [t_s, t_s + bin_s)
    double t_s = 0;
    std::uint64_t count = 0;
    double min = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

struct LatencyOverTime {
    double bin_s = 1;
    std::vector<TimeBin> bins;
    std::vector<std::pair<double, double>> points;  // (t_s, ms): a sample of the observations, outliers kept
};

struct IntervalChart {
    std::string name;
    std::string kind;  // "process" or "end_to_end"
    Statistics summary;
    Histogram histogram;
    LatencyOverTime over_time;
};

struct MatrixCell {
    std::string from, to;
    std::uint64_t count = 0;
    double mean_ms = 0, max_ms = 0;
};

struct NodeMatrix {
    std::vector<std::string> nodes;
    std::vector<MatrixCell> cells;  // absent pairs (no path) are omitted
};

struct Lane {  // one node instance and thread
    std::string label, node, instance;
    std::optional<std::uint32_t> thread;
};

struct DrawnEdge {
    std::uint32_t from_lane = 0;
    double from_s = 0;
    std::uint32_t to_lane = 0;
    double to_s = 0;
};

struct SpaceTime {
    double duration_s = 0;
    std::vector<Lane> lanes;
    std::uint32_t density_bins = 0;
    std::vector<std::vector<std::uint32_t>> density;    // [lane][bin] sample counts
    std::vector<std::pair<std::uint32_t, double>> ticks;  // (lane, t_s), sampled when over the cap
    std::uint64_t ticks_total = 0;                      // samples the ticks stand for
    std::vector<DrawnEdge> edges;                       // message edges, sampled when over the cap
    std::uint64_t edges_total = 0;
    // When set, `ticks` holds every sample inside this window (and none outside).
    std::optional<std::pair<double, double>> detail_window;
    // Where the page opens the diagram (the whole run when absent).
    std::optional<std::pair<double, double>> open_window;
};

struct RouteSample {
    std::string label, tracepoint;
    std::uint32_t lane = 0;
    double t_s = 0;
};

struct RouteDrawing {
    std::string title;
    std::vector<RouteSample> samples;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // indices into samples
    std::uint32_t origin = 0;                                     // index into samples
    bool truncated = false;
};

struct SlowMessage {
    std::string interval, from, to;
    double latency_ms = 0, t_s = 0;
    std::uint32_t route = 0;  // index into ReportData::routes
};

struct IdleGap {
    std::string node;  // "node instance"
    double start_s = 0, end_s = 0, duration_ms = 0;
    std::uint32_t concurrent = 1;  // node instances idle at some common moment of this gap, itself included
};

struct IdleGaps {
    double threshold_ms = 0;
    std::uint32_t flag_concurrent = 2;
    std::vector<IdleGap> gaps;
    std::uint64_t gaps_total = 0;
};

struct CriticalSegment {  // one segment class of an interval's critical paths (critical_path.hpp's SegmentSummary)
    std::string from, to;  // "node/tracepoint"
    std::string kind;      // "local", "queue", "message" or "thread"
    double on_path_fraction = 0, mean_ms = 0, share = 0;
    double p50_ms = 0, p95_ms = 0, p99_ms = 0;  // its contribution in the p50, p95, p99 instance
    double slack_ms = 0;
};

struct CriticalPathChart {  // one interval
    std::string interval;
    std::uint64_t count = 0, unreached_starts = 0, not_followed = 0;
    double mean_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0;
    std::vector<CriticalSegment> segments;  // by mean contribution
};

struct SystemTracepoint {
    std::string selector, name;
    std::uint64_t samples = 0;
    bool source = false, sink = false;
    std::uint32_t depth = 0;  // chain depth: the page's column
};

struct SystemNode {  // a box: one node's tracepoints
    std::string name;
    std::vector<SystemTracepoint> tracepoints;
};

struct SystemEdge {
    std::string from, to;  // selectors
    double rate_per_s = 0, p50_ms = 0;
    bool suspect = false;
    std::string verdict;  // "kept" or why it is suspect
    std::string scope;    // of a kept pair: "any", "instance" or "thread"
};

// The system `hashtrace infer` recovers from the run, drawn when analyze ran without a spec.
struct SystemDrawing {
    std::vector<SystemNode> nodes;
    std::vector<SystemEdge> edges;
    std::uint64_t kept = 0, suspect = 0, shortcuts = 0;
    std::uint32_t depths = 0;
    std::uint64_t links = 0, links_a_spec_removes = 0;  // of the spec-less run
};

struct ReportData {
    std::string title = "hashtrace report";
    bool comparison = false;  // only `runs` is filled: the page shows the tables alone
    std::string generated_by;
    std::int64_t t0_ns = 0;  // UTC time of the run's first sample
    double window_s = 0;
    // A run analysed in time shards: the part of it (seconds since its first
    // sample) whose samples the space-time diagram, the latency dots, the
    // slowest messages, the idle gaps and the critical paths show; the
    // tables, histograms and latency over time cover the whole run.
    std::optional<std::pair<double, double>> samples_window;
    std::vector<RunMetrics> runs;  // one for analyze; several, side by side, for compare
    Health health;
    std::vector<IntervalChart> intervals;
    NodeMatrix node_matrix;
    SpaceTime space_time;
    std::vector<SlowMessage> slowest;
    std::vector<RouteDrawing> routes;
    IdleGaps idle_gaps;
    std::vector<CriticalPathChart> critical_paths;  // per interval of the spec
    std::optional<SystemDrawing> system;            // analyze without a spec
};

}  // namespace hashtrace::report
