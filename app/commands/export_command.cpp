// `hashtrace export`: logs of a run -> causality graph -> trace-viewer files
// (Chrome JSON trace events, Perfetto protobuf). docs/report.md shows how to
// open them.
#include "command.hpp"
#include "hashtrace/clock_analysis/clock_analysis.hpp"
#include "hashtrace/report/build.hpp"
#include "hashtrace/report/trace_export.hpp"
#include "output.hpp"
#include "pipeline.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace export LOGS... [--chrome FILE] [--perfetto FILE] [--spec FILE] [options]\n"
    "  Links the logs like `analyze` and writes the causality graph for trace viewers: one process\n"
    "  per node instance, one thread track per recording thread, each sample a short slice, each\n"
    "  edge a flow arrow from producer to consumer. Open either file in ui.perfetto.dev;\n"
    "  the JSON also opens in chrome://tracing.\n"
    "  --chrome FILE        Chrome JSON trace event format\n"
    "  --perfetto FILE      Perfetto protobuf trace (.pftrace; compact: names interned, times as deltas)\n"
    "  --hashes             also each sample's input and output hash in the Perfetto trace (~75 bytes a\n"
    "                       sample more; the Chrome JSON always has them)\n"
    "  --slice-us X         longest slice drawn per sample, microseconds (default 1)\n"
    "  --no-critical-path   do not mark each interval instance's critical path (with a --spec that has\n"
    "                       intervals, it is marked by default: a track per interval, and flows named\n"
    "                       critical_path:NAME in the Chrome JSON)\n"
    "  --clock-correct      correct each log's times by its clock's offset and drift first, as\n"
    "                       `analyze --clock-correct` does (viewers draw arrows by time)\n";

// The Perfetto UI holds a trace in a browser tab's memory: past about 1 GB
// it cannot open it. Said with the size, and the way to a smaller trace.
void warn_if_too_large_for_a_browser(const std::string& file) {
    constexpr std::uintmax_t kBrowserLimit = 1'000'000'000;
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    if (error || size <= kBrowserLimit) return;
    std::fprintf(stderr,
                 "warning: %s is %.1f GB: ui.perfetto.dev opens traces of up to about 1 GB in a browser tab; "
                 "export a time range of the run (--since T --until T) for one that opens\n",
                 file.c_str(), double(size) / 1e9);
}

int run_export(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto pipeline = cli::read_pipeline_options(args);
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

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    auto samples = cli::load_stage(inputs, pipeline, /*keep_hash_values=*/true);
    timings.mark("load");
    cli::report_input_health(samples);
    if (clock_correct) graph::correct_times(samples, clock_analysis::time_correction(clock_analysis::load_clock_analysis(samples)));
    for (const auto& warning : cli::check_spec_stage(spec, samples, pipeline)) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    const auto graph = cli::link_stage(samples, spec, pipeline, /*keep_hash_ids=*/true);
    timings.mark("link");
    auto model = report::build_trace_model(samples, graph, std::llround(slice_us * 1000));
    timings.mark("model");
    std::optional<report::MarkedCriticalPaths> marked;
    if (with_critical_path && !spec.intervals.empty()) {
        marked = report::add_critical_paths(model, samples, graph, spec);
        timings.mark("critical path");
    }

    if (const auto backward = report::count_backward_flows(model))
        std::fprintf(stderr,
                     "warning: %zu edges end before they start (clock error or --tolerance-ms; see --clock-correct): "
                     "viewers draw them backwards\n",
                     backward);
    if (chrome) cli::write_file(*chrome, [&](std::ostream& out) { report::write_chrome_json(model, out); });
    if (perfetto) cli::write_file(*perfetto, [&](std::ostream& out) { report::write_perfetto_trace(model, out, trace); });
    for (const auto& file : {chrome, perfetto})
        if (file) warn_if_too_large_for_a_browser(*file);
    std::printf("exported %zu samples on %zu node instances (%zu thread tracks) and %zu edges as flows\n", model.events.size(),
                model.processes.size(), model.threads.size(), model.flows.size());
    if (marked) {
        std::printf("marked the critical path of %zu instances of %zu intervals (%zu segments)", marked->instances, marked->intervals,
                    marked->segments);
        if (marked->not_followed) std::printf("; %llu instances could not be followed", (unsigned long long)marked->not_followed);
        std::printf("\n");
    }
    timings.mark("output");
    timings.print();
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("export", "write the causality graph as Chrome JSON / Perfetto traces (flows between samples)", run_export,
                  kUsage, hashtrace::cli::kPipelineOptionsHelp);
