// hashtrace/shard/result.hpp - a merged shard summary as the analysis of the
// whole run: the same metrics::AnalysisResult the in-memory analysis makes,
// so that the same renderers print the same tables and JSON, plus the
// `sharding` section that says how the run was cut and where the margin did
// not hold.
#pragma once

#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/shard/plan.hpp"
#include "hashtrace/shard/summary.hpp"

namespace hashtrace::shard {

// `run`: the logs' health (bad records, drops, losses, torn and unclean
// logs), which the index found once for the whole run. The result's
// warnings are margin_warnings(), its last extra section sharding_section().
metrics::AnalysisResult to_result(const ShardSummary& merged, const RunIndex& run);

// {shards, margin_ms, inputs_beyond_margin, percentile_relative_error, ...}
// and, when the margin did not hold, a warning naming the tracepoints and
// the margin that would have covered them.
metrics::ExtraSection sharding_section(const ShardSummary& merged);
std::vector<std::string> margin_warnings(const ShardSummary& merged);

}  // namespace hashtrace::shard
