// `hashtrace whatif`: an interval's latency predicted with some segments
// faster or slower, by re-simulating the recorded run.
#include "command.hpp"
#include "output.hpp"
#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/render.hpp"
#include "hashtrace/critical_path/whatif.hpp"
#include "pipeline.hpp"

#include <cstdio>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace whatif LOGS... --spec FILE --interval NAME --change CHANGE [--change CHANGE]... [--json FILE] [options]\n"
    "  Replays the recorded run with the changed segments (every sample at the latest of its inputs'\n"
    "  new times plus its own recorded durations, in thread order, queued inputs served in their new\n"
    "  arrival order) and prints the interval's baseline and predicted count, mean, p50, p95, p99 and M8.\n"
    "  --change \"FROM->TO*F\"   scale the durations of segment FROM -> TO (node/tracepoint selectors) by F > 0\n"
    "  --change \"FROM->TO+D\"   add D (unit ms, us or s); \"FROM->TO-D\" removes D, never below zero\n"
    "  --json FILE            write {interval, changes, baseline, predicted, ...}\n";

int run_whatif(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    auto pipeline = cli::read_pipeline_options(args);
    const auto name = args.option("--interval");
    const auto change_texts = args.option_all("--change");
    const auto json = args.option("--json");
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs to analyze (files or directories)");
    if (!pipeline.spec_file) throw cli::UsageError("--spec FILE is required (the interval comes from it)");
    if (!name) throw cli::UsageError("--interval NAME is required");
    if (change_texts.empty()) throw cli::UsageError("give at least one --change");
    std::vector<critical_path::Change> changes;
    for (const auto& text : change_texts) {
        try {
            changes.push_back(critical_path::parse_change(text));
        } catch (const std::invalid_argument& e) {
            throw cli::UsageError(std::string("--change ") + e.what());
        }
    }

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    std::vector<const graph::IntervalSpec*> selected;
    try {
        selected = critical_path::select_intervals(spec, {*name});
    } catch (const std::invalid_argument& e) {
        throw cli::UsageError(e.what());
    }
    const auto* interval = selected.front();
    pipeline.reuse_freed_memory = true;  // measured by its time, not its peak
    const auto run = cli::linked_run_stage(inputs, spec, pipeline, timings);
    const critical_path::DependenceModel model(run.samples, run.graph, pipeline.threads);
    timings.mark("model");
    critical_path::WhatIfResult result;
    try {
        result = critical_path::what_if(model, *interval, changes);
    } catch (const std::invalid_argument& e) {
        throw cli::UsageError(std::string("--change ") + e.what());
    }
    timings.mark("replay");

    std::fputs(critical_path::render_table(result).c_str(), stdout);
    if (json) cli::write_file(*json, critical_path::render_json(result));
    timings.mark("output");
    timings.print();
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("whatif", "predict an interval's latency with some segments faster or slower (re-simulation)", run_whatif,
                  kUsage, hashtrace::cli::kPipelineOptionsHelp);
