// `hashtrace critical-path`: which segments decide each interval's latency.
#include "command.hpp"
#include "output.hpp"
#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/render.hpp"
#include "hashtrace/graph/parallel.hpp"
#include "pipeline.hpp"
#include "sharding.hpp"

#include <cstdio>
#include <optional>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace critical-path LOGS... --spec FILE [--interval NAME]... [--json FILE] [--markdown FILE] [options]\n"
    "  For every instance of each interval of the spec (or each one named), the critical path: from the\n"
    "  `to` sample back to the `from` sample along the input that arrived last (hash edges and the\n"
    "  thread's program order), as segments node/tracepoint -> node/tracepoint of kind local, queue,\n"
    "  message or thread. Per interval and segment: how often it is on the path, its mean contribution\n"
    "  (ms and share of the mean latency), its contribution in the p50, p95 and p99 instances, and its\n"
    "  slack (how much it could grow before the instance's end moves; median over instances).\n"
    "  --interval NAME      only this interval (repeatable)\n"
    "  --json FILE          write {\"critical_path\": [...]}\n"
    "  --markdown FILE      write the tables as Markdown\n";

void render(const std::vector<hashtrace::critical_path::IntervalCriticalPath>& paths, const std::optional<std::string>& json,
            const std::optional<std::string>& markdown) {
    using namespace hashtrace;
    std::fputs(critical_path::render_table(paths).c_str(), stdout);
    if (json) cli::write_file(*json, critical_path::render_json(paths));
    if (markdown) cli::write_file(*markdown, critical_path::render_markdown(paths));
}

int run_critical_path(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    auto pipeline = cli::read_pipeline_options(args);
    const auto names = args.option_all("--interval");
    const auto json = args.option("--json");
    const auto markdown = args.option("--markdown");
    const auto sharding = cli::read_sharding_options(args);
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs to analyze (files or directories)");
    if (!pipeline.spec_file) throw cli::UsageError("--spec FILE is required (the intervals come from it)");

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    std::vector<const graph::IntervalSpec*> intervals;
    try {
        intervals = critical_path::select_intervals(spec, names);
    } catch (const std::invalid_argument& e) {
        throw cli::UsageError(e.what());
    }
    if (intervals.empty()) throw cli::UsageError("the spec " + spec.file + " defines no interval");
    // A run that does not fit is walked in time shards (a range of one, --since/--until, whole).
    const bool ranged = pipeline.since || pipeline.until;
    if (const auto plan = ranged ? std::nullopt : cli::plan_stage(cli::find_log_files(inputs), sharding, pipeline)) {
        cli::report_input_health(plan->run);
        timings.mark("index");
        const auto paths = cli::sharded_critical_path_stage(*plan, spec, intervals, pipeline, sharding);
        timings.mark("shards");
        render(paths, json, markdown);
        timings.mark("output");
        timings.print();
        return 0;
    }
    if (!ranged) pipeline.budget_checked = true;  // the plan found that it fits
    pipeline.reuse_freed_memory = true;  // measured by its time, not its peak
    const auto run = cli::linked_run_stage(inputs, spec, pipeline, timings);
    // The model and the intervals' instances, each from the run alone, are
    // found side by side: each leaves a core idle in its serial steps.
    std::optional<critical_path::DependenceModel> model;
    std::vector<critical_path::IntervalInstances> instances;
    graph::parallel::both([&] { model.emplace(run.samples, run.graph, pipeline.threads); },
                   [&] { instances = critical_path::InstanceFinder(run.samples, run.graph, pipeline.threads).find(intervals); });
    timings.mark("model, instances");
    const auto paths = critical_path::critical_paths(*model, instances, intervals, {pipeline.threads});
    timings.mark("critical path");

    render(paths, json, markdown);
    timings.mark("output");
    timings.print();
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("critical-path", "which segments decide each interval's latency (critical path, slack)", run_critical_path,
                  kUsage, hashtrace::cli::kPipelineOptionsHelp, hashtrace::cli::kShardingOptionsHelp);
