// `hashtrace shard plan|slice|summarize|merge`: a run's time shards analysed
// by other processes or machines (the Dask driver, bindings/python/hashtrace/
// cluster.py, runs these), each step a file in and a file out:
//
//   hashtrace shard plan LOGS --shard-samples N -o plan.json
//   hashtrace shard slice LOG --from-ns A --to-ns B -o slice.htlog   # on the machine that holds LOG
//   hashtrace shard summarize SLICES --plan plan.json --shard K --spec S -o K.json
//   hashtrace shard merge 0.json 1.json ... --plan plan.json --json analysis.json
//
// `hashtrace analyze` runs the same kernel in one process when a run does
// not fit its memory budget.
#include "command.hpp"
#include "hashtrace/logio/slice.hpp"
#include "hashtrace/shard/result.hpp"
#include "hashtrace/shard/sharded_run.hpp"
#include "output.hpp"
#include "pipeline.hpp"
#include "sharding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace {

using namespace hashtrace;

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

shard::PlanFile read_plan(const std::string& path) {
    try {
        return shard::plan_from_json(read_text(path));
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

void write_or_print(const std::optional<std::string>& path, const std::string& text) {
    if (path) cli::write_file(*path, text);
    else std::fputs(text.c_str(), stdout);
}

constexpr const char* kPlanUsage =
    "usage: hashtrace shard plan LOGS... (--shard-samples N | --memory-budget SIZE) [--margin-ms X] [--tolerance-ms X] [-o FILE]\n"
    "  Indexes the logs (their time index; a scan for logs of older formats) and cuts the run into time shards:\n"
    "  JSON with the logs, their health, and each shard's time range, the window it reads and the logs in it.\n"
    "  --shard-samples N    shards of about N samples; or --memory-budget SIZE: shards that fit in SIZE\n"
    "  --margin-ms X        the window's margin on either side (default 1000)\n"
    "  --tolerance-ms X     the linking tolerance (clock error) every shard links with; default 0\n"
    "  --lenient            skip malformed records and count them\n"
    "  -o FILE              write the plan to FILE (default: standard output)\n";

int run_plan(cli::Args& args) {
    const auto sharding = cli::read_sharding_options(args);
    cli::PipelineOptions pipeline;
    cli::read_memory_budget(args, pipeline);
    const double tolerance_ms = args.number("--tolerance-ms", 0.0);
    const bool lenient = args.flag("--lenient");
    const auto out = args.option("-o");
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs to plan (files or directories)");
    if (!(tolerance_ms >= 0)) throw cli::UsageError("--tolerance-ms must be a number >= 0");
    pipeline.lenient = lenient;
    pipeline.tolerance_ms = tolerance_ms;
    if (sharding.shard_samples == 0 && !pipeline.budget_given) throw cli::UsageError("give --shard-samples or --memory-budget");
    const auto plan = cli::plan_stage(cli::find_log_files(inputs), sharding, pipeline, /*may_run_whole=*/false);
    cli::report_input_health(plan->run);
    write_or_print(out, shard::to_json({plan->run, plan->shards, sharding.margin_ns > 0 ? sharding.margin_ns : shard::kDefaultMarginNs,
                                        std::llround(tolerance_ms * 1e6)}));
    return 0;
}

constexpr const char* kSliceUsage =
    "usage: hashtrace shard slice LOG --from-ns A --to-ns B -o OUT [--lenient]\n"
    "  Writes what a reader of the times [A, B) (ns since the epoch) needs of LOG as a log OUT, with every\n"
    "  tracepoint and thread LOG defines: what one shard's window needs of a log held on this machine. A\n"
    "  binary log of format 3 is cut by blocks, copied as they are; others are decoded and written anew.\n";

int run_slice(cli::Args& args) {
    const std::int64_t from = args.integer("--from-ns", std::numeric_limits<long long>::min());
    const std::int64_t to = args.integer("--to-ns", std::numeric_limits<long long>::max());
    const bool lenient = args.flag("--lenient");
    const auto out = args.option("-o");
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.size() != 1 || !out) throw cli::UsageError("give one LOG and -o OUT");
    logio::slice_log(inputs[0], *out, from, to, lenient);
    return 0;
}

constexpr const char* kSummarizeUsage =
    "usage: hashtrace shard summarize LOGS... --plan PLAN --shard K [--spec FILE] [-o FILE]\n"
    "  Summarises shard K of the plan (0 = the first) from LOGS (the plan's logs, or slices of them holding\n"
    "  the shard's window, given in the plan's order): JSON that `hashtrace shard merge` adds up. The\n"
    "  window, the margin and the linking tolerance are the plan's.\n"
    "  --spec FILE          analysis spec (TOML): allowed pairs and intervals\n"
    "  --lenient            skip malformed log records and count them; unmatched spec selectors warn\n"
    "  --threads N          threads (default: all cores)\n"
    "  --quiet              accepted as the other analysis commands accept it (no progress line is drawn)\n";

int run_summarize(cli::Args& args) {
    cli::PipelineOptions pipeline;
    pipeline.spec_file = args.option("--spec");
    pipeline.lenient = args.flag("--lenient");
    const long long threads = args.integer("--threads", 0);
    if (threads < 0 || threads > 256) throw cli::UsageError("--threads must be between 0 and 256");
    pipeline.threads = static_cast<unsigned>(threads);
    args.flag("--quiet");  // taken as the analysis commands take it: this one draws no progress line
    const auto plan_path = args.option("--plan");
    const long long k = args.integer("--shard", -1);
    const auto out = args.option("-o");
    const auto inputs = args.positionals();
    args.finish();
    if (!plan_path || inputs.empty()) throw cli::UsageError("give the logs and --plan");
    const shard::PlanFile plan = read_plan(*plan_path);
    if (k < 0 || static_cast<std::size_t>(k) >= plan.shards.size())
        throw cli::UsageError("--shard must be between 0 and " + std::to_string(plan.shards.size() - 1) + " (the plan's shards)");
    const auto spec = cli::spec_stage(pipeline);
    shard::ShardOptions options;
    options.tolerance_ns = plan.tolerance_ns;
    options.lenient = pipeline.lenient;
    options.threads = pipeline.threads;
    const shard::TimeRange range = plan.shards[static_cast<std::size_t>(k)];
    const shard::ShardWindow window{range.from_ns, range.to_ns, plan.run.first_ns, plan.run.last_ns, plan.margin_ns};
    const auto check_spec = [&](const graph::SampleSet& samples) {
        if (k == 0)
            for (const auto& w : cli::check_spec_stage(spec, samples, pipeline)) std::fprintf(stderr, "warning: %s\n", w.c_str());
    };
    write_or_print(out, shard::to_json(shard::summarize_window(cli::find_log_files(inputs), shard::RunIndex{}, spec, window, options, check_spec)));
    return 0;
}

constexpr const char* kMergeUsage =
    "usage: hashtrace shard merge SUMMARIES... (--plan PLAN [--json FILE] [--markdown FILE] [--csv FILE] | -o MERGED)\n"
    "  Adds up summaries of shards that follow each other in time (given in any order). With --plan, they must\n"
    "  cover every shard of the plan once: prints the analysis of the whole run as `hashtrace analyze` does,\n"
    "  with its `sharding` section. With -o, writes their sum as one summary (for merging in a tree).\n";

// The summaries in time order, each starting where the previous ends.
std::vector<std::pair<shard::ShardSummary, std::string>> read_summaries(const std::vector<std::string>& paths) {
    std::vector<std::pair<shard::ShardSummary, std::string>> parts;
    for (const auto& path : paths) try {
            parts.emplace_back(shard::from_json(read_text(path)), path);
        } catch (const std::invalid_argument& e) {
            throw std::runtime_error(path + ": " + e.what());
        }
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first.own_from_ns < b.first.own_from_ns; });
    for (std::size_t k = 1; k < parts.size(); ++k)
        if (parts[k].first.own_from_ns != parts[k - 1].first.own_to_ns)
            throw std::runtime_error(parts[k - 1].second + " and " + parts[k].second + ": " +
                                     (parts[k].first.own_from_ns < parts[k - 1].first.own_to_ns ? "their time ranges overlap (a shard given twice?)"
                                                                                                  : "a gap between their time ranges (a shard missing)"));
    return parts;
}

// The summaries cover the plan: its range, each shard once.
void check_covers(const shard::ShardSummary& merged, const shard::PlanFile& plan) {
    if (plan.shards.empty() || merged.own_from_ns != plan.shards.front().from_ns || merged.own_to_ns != plan.shards.back().to_ns ||
        merged.shards != plan.shards.size())
        throw std::runtime_error("the summaries cover " + std::to_string(merged.shards) + " shards of [" + std::to_string(merged.own_from_ns) +
                                 ", " + std::to_string(merged.own_to_ns) + "), not the plan's " + std::to_string(plan.shards.size()) +
                                 " (a shard missing at an end?)");
}

int run_merge(cli::Args& args) {
    const auto plan_path = args.option("--plan");
    const auto files = cli::read_result_files(args);
    const auto out = args.option("-o");
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty() || plan_path.has_value() == out.has_value()) throw cli::UsageError("give the shards' summaries and either --plan or -o");
    const auto parts = read_summaries(inputs);
    shard::ShardSummary merged = parts[0].first;
    for (std::size_t k = 1; k < parts.size(); ++k) merged.append(parts[k].first);
    if (out) {
        cli::write_file(*out, shard::to_json(merged));
        return 0;
    }
    const shard::PlanFile plan = read_plan(*plan_path);
    check_covers(merged, plan);
    cli::output_stage(shard::to_result(merged, plan.run), files);
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("shard plan", "cut a run into time shards for analysis elsewhere (JSON)", run_plan, kPlanUsage);
HASHTRACE_COMMAND("shard slice", "write the samples of a log within a time range as a log", run_slice, kSliceUsage);
HASHTRACE_COMMAND("shard summarize", "summarise one time shard of a plan (JSON)", run_summarize, kSummarizeUsage);
HASHTRACE_COMMAND("shard merge", "merge the shards' summaries into the analysis of the whole run", run_merge, kMergeUsage);
