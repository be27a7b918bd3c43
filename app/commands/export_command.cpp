// `hashtrace export`: logs of a run -> causality graph -> trace-viewer files
// (Chrome JSON trace events, Perfetto protobuf). docs/report.md shows how to
// open them.
#include "command.hpp"
#include "hashtrace/clock_analysis/clock_analysis.hpp"
#include "hashtrace/report/build.hpp"
#include "hashtrace/report/trace_export.hpp"
#include "output.hpp"
#include "pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace export LOGS... [--chrome FILE] [--perfetto FILE] [--spec FILE] [options]\n"
    "  Links the logs like `analyze` and writes the causality graph for trace viewers: one process\n"
    "  per node instance, one thread track per recording thread, each sample an event, each edge a\n"
    "  flow arrow from producer to consumer. Open either file in ui.perfetto.dev; the JSON also\n"
    "  opens in chrome://tracing. --since T --until T (or --from T --to T) export a time range of the run.\n"
    "  --chrome FILE        Chrome JSON trace event format\n"
    "  --perfetto FILE      Perfetto protobuf trace (.pftrace; compact, written as the run is read)\n"
    "  --hashes             also each sample's output hash, and its input hash where no flow brings it,\n"
    "                       in the Perfetto trace (~40 bytes a sample more; the Chrome JSON always has them)\n"
    "  --slice-us X         longest slice drawn per sample in the Chrome JSON, microseconds (default 1)\n"
    "  --no-critical-path   do not mark each interval instance's critical path (with a --spec that has\n"
    "                       intervals, it is marked by default: a track per interval, and flows named\n"
    "                       critical_path:NAME in the Chrome JSON)\n"
    "  --clock-correct      correct each log's times by its clock's offset and drift first, as\n"
    "                       `analyze --clock-correct` does (viewers draw arrows by time)\n";

// A time range (--since/--until) that holds no sample: an error that says
// where the run is, not an empty trace.
void refuse_an_empty_range(const std::vector<std::string>& inputs, const hashtrace::cli::PipelineOptions& pipeline) {
    using namespace hashtrace;
    const auto run = shard::index_run(cli::find_log_files(inputs), pipeline.lenient, pipeline.threads);
    std::string range = (pipeline.since ? pipeline.since_name + " " + *pipeline.since : std::string()) +
                        (pipeline.since && pipeline.until ? " " : "") + (pipeline.until ? pipeline.until_name + " " + *pipeline.until : std::string());
    if (run.samples == 0) throw cli::UsageError(range + " holds no sample: the logs hold none");
    char span[160];
    std::snprintf(span, sizeof span, "the run spans 0 to %.3f s (%.3f to %.3f s since the epoch)", double(run.last_ns - run.first_ns) / 1e9,
                  double(run.first_ns) / 1e9, double(run.last_ns) / 1e9);
    throw cli::UsageError(range + " holds no sample: " + span);
}

std::size_t count_backward_edges(const hashtrace::graph::SampleSet& samples, const hashtrace::graph::Graph& graph) {
    return static_cast<std::size_t>(std::count_if(graph.edges.begin(), graph.edges.end(), [&](const hashtrace::graph::Edge& e) {
        return samples.time_ns[e.to] < samples.time_ns[e.from];
    }));
}

// The Chrome JSON is written from a TraceModel of the whole run (its flows
// are written after its slices). Returns the tracks it holds.
hashtrace::report::TraceTracks write_chrome(const std::string& file, const hashtrace::graph::SampleSet& samples,
                                            const hashtrace::graph::Graph& graph, const hashtrace::report::TraceCriticalPaths& paths,
                                            double slice_us) {
    using namespace hashtrace;
    auto model = report::build_trace_model(samples, graph, std::llround(slice_us * 1000));
    model.critical_path_intervals = paths.intervals;
    model.segment_names = paths.segment_names;
    model.critical_paths = paths.paths;
    model.critical_segments = paths.segments;
    cli::write_file(file, [&](std::ostream& out) { report::write_chrome_json(model, out); });
    return {model.processes.size(), model.threads.size()};
}

void warn_if_too_large_for_a_browser(const std::string& file, const hashtrace::graph::SampleSet& samples) {
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    const double span_s = samples.size() ? double(samples.time_ns[samples.size() - 1] - samples.time_ns[0]) / 1e9 : 0;
    if (const auto warning = hashtrace::report::too_large_for_a_browser(file, error ? 0 : size, span_s); !warning.empty())
        std::fprintf(stderr, "warning: %s\n", warning.c_str());
}

struct Written {
    hashtrace::report::TraceTracks tracks;
    std::optional<hashtrace::report::MarkedCriticalPaths> marked;
};

// The Perfetto trace alone: each critical path (with `spec`) found as the
// writing reaches it, so that only the paths being drawn are held.
Written write_perfetto(const std::string& file, const hashtrace::graph::SampleSet& samples, const hashtrace::graph::Graph& graph,
                       const hashtrace::graph::AnalysisSpec* spec, const hashtrace::report::TraceOptions& trace,
                       hashtrace::cli::StageTimings& timings) {
    using namespace hashtrace;
    Written out;
    std::optional<report::CriticalPathStream> paths;
    if (spec) {
        paths.emplace(samples, graph, *spec);
        timings.mark("critical path");
    }
    cli::write_file(file, [&](std::ostream& o) {
        out.tracks = paths ? report::write_perfetto_trace(samples, graph, *paths, o, trace) : report::write_perfetto_trace(samples, graph, nullptr, o, trace);
    });
    if (paths) out.marked = paths->marked();
    timings.mark("perfetto");
    return out;
}

// The Chrome JSON, and the Perfetto trace if asked for, with the critical
// paths (with `spec`) found once and held for both.
Written write_both(const std::string& chrome, const std::optional<std::string>& perfetto, const hashtrace::graph::SampleSet& samples,
                   const hashtrace::graph::Graph& graph, const hashtrace::graph::AnalysisSpec* spec, double slice_us,
                   const hashtrace::report::TraceOptions& trace, hashtrace::cli::StageTimings& timings) {
    using namespace hashtrace;
    Written out;
    report::TraceCriticalPaths paths;
    if (spec) {
        out.marked = report::find_trace_critical_paths(samples, graph, *spec, paths);
        timings.mark("critical path");
    }
    out.tracks = write_chrome(chrome, samples, graph, paths, slice_us);
    timings.mark("chrome");
    if (!perfetto) return out;
    cli::write_file(*perfetto, [&](std::ostream& o) { report::write_perfetto_trace(samples, graph, spec ? &paths : nullptr, o, trace); });
    timings.mark("perfetto");
    return out;
}

int run_export(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto pipeline = [&] {
        auto options = cli::read_pipeline_options(args);
        cli::read_range_aliases(args, options);
        return options;
    }();
    const auto chrome = args.option("--chrome");
    const auto perfetto = args.option("--perfetto");
    const double slice_us = args.number("--slice-us", 1.0);
    const bool clock_correct = args.flag("--clock-correct");
    const bool with_critical_path = !args.flag("--no-critical-path");
    report::TraceOptions trace;
    trace.hashes = args.flag("--hashes");
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs to export (files or directories)");
    if (!chrome && !perfetto) throw cli::UsageError("give --chrome FILE and/or --perfetto FILE");
    if (!(slice_us >= 0) || !std::isfinite(slice_us)) throw cli::UsageError("--slice-us must be a finite number >= 0");

    // The hashes only where a file shows them: without, the run is held as `analyze` holds it.
    const bool hashes = chrome || (perfetto && trace.hashes);
    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    auto samples = cli::load_stage(inputs, pipeline, /*keep_hash_values=*/hashes);
    timings.mark("load");
    if (samples.size() == 0 && (pipeline.since || pipeline.until)) refuse_an_empty_range(inputs, pipeline);
    cli::report_input_health(samples);
    if (clock_correct) graph::correct_times(samples, clock_analysis::time_correction(clock_analysis::load_clock_analysis(samples)));
    for (const auto& warning : cli::check_spec_stage(spec, samples, pipeline)) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    const auto graph = cli::link_stage(samples, spec, pipeline, /*keep_hash_ids=*/hashes);
    timings.mark("link");
    if (const auto backward = count_backward_edges(samples, graph))
        std::fprintf(stderr,
                     "warning: %zu edges end before they start (clock error or --tolerance-ms; see --clock-correct): "
                     "viewers draw them backwards\n",
                     backward);
    const bool mark_paths = with_critical_path && !spec.intervals.empty();
    Written written;
    if (chrome) written = write_both(*chrome, perfetto, samples, graph, mark_paths ? &spec : nullptr, slice_us, trace, timings);
    else written = write_perfetto(*perfetto, samples, graph, mark_paths ? &spec : nullptr, trace, timings);
    const auto& [tracks, marked] = written;
    for (const auto& file : {chrome, perfetto})
        if (file) warn_if_too_large_for_a_browser(*file, samples);
    std::printf("exported %zu samples on %zu node instances (%zu thread tracks) and %zu edges as flows\n", samples.size(), tracks.processes,
                tracks.threads, graph.edges.size());
    if (marked) {
        std::printf("marked the critical path of %zu instances of %zu intervals (%zu segments)", marked->instances, marked->intervals,
                    marked->segments);
        if (marked->not_followed) std::printf("; %llu instances could not be followed", (unsigned long long)marked->not_followed);
        std::printf("\n");
    }
    timings.print();
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("export", "write the causality graph as Chrome JSON / Perfetto traces (flows between samples)", run_export,
                  kUsage, hashtrace::cli::kPipelineOptionsHelp);
