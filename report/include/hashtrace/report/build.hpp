// hashtrace/report/build.hpp - the stages that turn a linked run into what
// the report and the trace viewers show:
//
//   auto samples = graph::load_samples(files, {.keep_hash_values = true});
//   auto graph = graph::link(samples, spec);
//   auto result = metrics::analyze(samples, graph, spec, {.keep_values = true});
//   auto data = report::build_report(samples, graph, spec, result, options);   // -> html_report.hpp
//   data.critical_paths = report::critical_path_section(samples, graph, spec);  // a spec with intervals
//   data.system = report::system_section(infer::gather_evidence(samples, graph));  // a spec-less run
//   auto trace = report::build_trace_model(samples, graph);                    // -> trace_export.hpp
//   report::add_critical_paths(trace, samples, graph, spec);                   // optional
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/route.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/infer/evidence.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/metrics/compare.hpp"
#include "hashtrace/report/report_data.hpp"
#include "hashtrace/report/trace_export.hpp"
#include "hashtrace/report/trace_model.hpp"
#include "hashtrace/shard/summary.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace hashtrace::report {

struct ReportOptions {
    std::string title = "hashtrace report";
    std::string run_name = "run";
    std::size_t top_k = 10;                  // slowest messages listed, each with its route
    double idle_threshold_ms = 100;          // a node silent longer than this is an idle gap
    std::uint32_t flag_concurrent = 2;       // gaps shared by this many node instances are flagged
    std::size_t max_gaps = 200;              // longest gaps listed
    std::size_t histogram_bins = 40;
    std::size_t time_bins = 120;             // latency-over-time percentile bins
    std::size_t max_points = 3000;           // latency dots per interval
    std::size_t density_bins = 1500;         // space-time density columns over the run
    std::size_t max_ticks = 60000;           // sample ticks embedded
    std::size_t max_edges = 6000;            // message arrows embedded
    // A run of more than max_ticks samples is shown as density, except in one
    // window where every sample and message edge is embedded and where the
    // space-time diagram opens: this one (UTC ns), or else max_ticks/4
    // samples around the slowest message.
    std::optional<std::pair<std::int64_t, std::int64_t>> detail_window_ns;
    // The run's first sample (UTC ns) when the samples given are a window
    // of a longer run: the report's times are then seconds since the run's start.
    std::optional<std::int64_t> run_first_ns;
    graph::RouteOptions route{16, 200};
};

// One observation of an interval (docs/spec.md section 5): the `from` sample and the
// earliest `to` sample reached from it on one node instance.
struct IntervalObservation {
    graph::SampleIndex from = 0;
    graph::SampleIndex to = 0;
    double ms = 0;
};
std::vector<IntervalObservation> interval_observations(const graph::SampleSet& samples, const graph::Graph& graph,
                                                       const graph::IntervalSpec& interval);

// Each node's clock error bound (ms) from the "clock_sync" section that
// clock sync adds to an analysis (clock_analysis::add_clock_report); nodes whose
// bound is unknown are absent. Throws std::invalid_argument if the section is
// not the JSON documented in docs/clock-sync.md.
std::map<std::string, double> clock_error_ms_by_node(const metrics::AnalysisResult& result);

// The metric table column of one run (compare puts several side by side).
RunMetrics run_metrics(const std::string& name, const metrics::AnalysisResult& result);

ReportData build_report(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                        const metrics::AnalysisResult& result, const ReportOptions& options);

// A page of several runs' metric and interval tables side by side (the
// report of `hashtrace compare`); the per-run charts are in each run's own report.
ReportData comparison_report(const std::string& title, std::span<const metrics::NamedRun> runs);

// Per interval of the spec: which segments decide its latency, in the mean,
// the p50, p95 and p99 instance, and their slack (critical_path.hpp, over the
// run's dependence model; `threads` 0 = every core).
std::vector<CriticalPathChart> critical_path_section(const graph::SampleSet& samples, const graph::Graph& graph,
                                                     const graph::AnalysisSpec& spec, unsigned threads = 0);

// The system as `hashtrace infer` draws it (infer/system_picture.hpp), from
// the evidence of a spec-less run.
SystemDrawing system_section(const infer::Evidence& evidence);

// Lanes of the run: one per (node instance, thread) in first-seen order, and
// each sample's lane (unless !of_each_sample: a writer that looks it up as it goes).
struct Lanes {
    std::vector<Lane> lanes;
    std::vector<std::uint32_t> instance;   // per lane: index into SampleSet::instances
    std::vector<std::uint32_t> of_sample;  // per sample: its lane
};
Lanes assign_lanes(const graph::SampleSet& samples, bool of_each_sample = true);

// One process per node instance, one thread track per lane, every sample an
// event and every edge a flow. Times are the SampleSet's: apply clock
// correction (graph::correct_times) before, since viewers draw arrows by time.
TraceModel build_trace_model(const graph::SampleSet& samples, const graph::Graph& graph, std::int64_t slice_ns = 1000);
// The model's tracks and names alone (no events, no flows), as build_trace_model
// makes them; `name_of_tracepoint` gets each tracepoint's index into its names.
TraceModel build_trace_tracks(const graph::SampleSet& samples, const Lanes& lanes, std::vector<std::uint32_t>& name_of_tracepoint);

struct MarkedCriticalPaths {
    std::size_t intervals = 0, instances = 0, segments = 0;
    std::uint64_t not_followed = 0;  // instances whose path could not be followed (critical_path.hpp)
};
// Each instance's critical path (critical_path.hpp), for every interval of
// the spec, into `out` (its sample indices the run's).
MarkedCriticalPaths find_trace_critical_paths(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                                              TraceCriticalPaths& out);
// The same into a model build_trace_model made of the same samples and
// graph: its events are the samples, in order.
MarkedCriticalPaths add_critical_paths(TraceModel& model, const graph::SampleSet& samples, const graph::Graph& graph,
                                       const graph::AnalysisSpec& spec);
// Each interval instance's critical path for the Perfetto trace of a run,
// found as the writing reaches the instance's first sample, so that only the
// paths being drawn are held: made here (the dependence model), handed to
// write_perfetto_trace, which finds the instances of `stretch` samples at a
// time (8 bytes each). The trace is the same, byte for byte, as with
// find_trace_critical_paths' paths.
class CriticalPathStream {
public:
    static constexpr std::size_t kStretch = std::size_t{1} << 20;
    CriticalPathStream(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                       std::size_t stretch = kStretch);
    ~CriticalPathStream();
    CriticalPathStream(const CriticalPathStream&) = delete;
    CriticalPathStream& operator=(const CriticalPathStream&) = delete;
    // What the writing marked (all of it once the trace is written).
    const MarkedCriticalPaths& marked() const;

    struct Finder;  // perfetto_trace.cpp
    std::unique_ptr<Finder> finder;
};
TraceTracks write_perfetto_trace(const graph::SampleSet& samples, const graph::Graph& graph, CriticalPathStream& paths, std::ostream& out,
                                 const TraceOptions& options = {});

// A run analysed in time shards (docs/sharding.md): `d` is the report of
// a window of it (build_report over the window's samples, with the merged
// result and options.run_first_ns), made to cover the whole run wherever
// the merged summary can: the nodes' samples and unlinked inputs, and each
// interval's histogram and latency over time (within the summary's stated
// error). What needs the samples themselves stays the window's, and the
// page says which window (ReportData::samples_window).
void cover_whole_run(ReportData& d, const shard::ShardSummary& merged, std::pair<std::int64_t, std::int64_t> window_ns,
                     const ReportOptions& options);

}  // namespace hashtrace::report
