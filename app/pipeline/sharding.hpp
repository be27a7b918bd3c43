// sharding.hpp - when and how a command analyses a run in time shards
// (docs/sharding.md): the memory budget, the shard size, the margin, and
// the decision, made from the logs' sizes and, when they might not fit,
// from their time index.
//
//   auto sharding = read_sharding_options(args);          // --shard-samples, --margin-ms
//   auto plan = plan_stage(files, sharding, pipeline);    // nullopt: the run fits, analyse it whole
//   if (plan) result = sharded_analysis_stage(*plan, ...);
#pragma once

#include "hashtrace/cli/args.hpp"
#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/shard/plan.hpp"
#include "hashtrace/shard/sharded_run.hpp"
#include "hashtrace/shard/summary.hpp"
#include "pipeline.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::cli {

struct ShardingOptions {
    std::uint64_t shard_samples = 0;   // --shard-samples: shard even a run that fits
    std::int64_t margin_ns = 0;        // --margin-ms; 0: shard::kDefaultMarginNs, widened by the first shard
};

ShardingOptions read_sharding_options(Args& args);
extern const char* const kShardingOptionsHelp;

// "512M", "4G", "1.5GiB", "800000000": bytes. UsageError otherwise.
std::uint64_t parse_size(const std::string& text, const char* option);
std::string size_text(std::uint64_t bytes);
// A quarter of the machine's memory: room for the page cache and the other
// processes of a lab machine.
std::uint64_t default_memory_budget();

// --since/--until resolved against the run (its index, when a time is
// relative to its first sample), and a run (or range) that needs more
// memory than the budget refused before any work, with the range that fits.
shard::TimeRange time_range_stage(const std::vector<std::filesystem::path>& files, const PipelineOptions& options);

// The peak a sample costs an analysis held in memory (columns, links,
// metrics), with room: docs/benchmarks.md measures about 50 bytes.
inline constexpr std::uint64_t kBytesPerSample = 100;

struct ShardPlan {
    std::vector<std::filesystem::path> files;
    shard::RunIndex run;
    std::vector<shard::TimeRange> shards;
    std::uint64_t budget = 0;
    std::int64_t max_margin_ns = 0;  // the widest margin whose samples the budget holds beside a shard (plan_stage)
    std::string why;  // one line for the output: why the run was sharded
};

// Nothing when the run fits the budget, no shard size was given and
// `may_run_whole` (the caller analyses it whole; otherwise such a run is one
// shard). Else the run's index and its shards, or a UsageError before any
// work when the budget cannot hold one shard and its margin (naming the
// budget that would).
std::optional<ShardPlan> plan_stage(const std::vector<std::filesystem::path>& files, const ShardingOptions& sharding,
                                    const PipelineOptions& pipeline, bool may_run_whole = true);

// Options a sharded analysis cannot honour yet: UsageError naming them.
void refuse_unsharded_options(const std::vector<std::pair<const char*, bool>>& given);

struct ShardedAnalysis {
    metrics::AnalysisResult result;  // the whole run's, with the `sharding` section
    shard::ShardSummary summary;     // merged: what the report draws of the whole run
};
// The run analysed shard by shard and merged into the whole run's result.
// Selector warnings (or, not lenient, errors) come from the first shard, as
// a whole run's would.
ShardedAnalysis sharded_analysis_stage(const ShardPlan& plan, const graph::AnalysisSpec& spec, const PipelineOptions& pipeline,
                                       const ShardingOptions& sharding, const shard::WindowHook& also = {});

// `critical-path` of a run in time shards: each shard's instances (by their
// `from` sample) walked in its window, the summaries merged into the tables
// (critical_path::path_tables). How the run was cut, and where the margin did not
// hold, goes to stderr.
std::vector<critical_path::IntervalCriticalPath> sharded_critical_path_stage(const ShardPlan& plan, const graph::AnalysisSpec& spec,
                                                                        const std::vector<const graph::IntervalSpec*>& intervals,
                                                                        const PipelineOptions& pipeline, const ShardingOptions& sharding);

}  // namespace hashtrace::cli
