// hashtrace/shard/sharded_run.hpp - a run analysed shard by shard in bounded
// memory on one machine: each shard's window loaded (only its blocks of the
// logs), linked, summarised by the kernel and freed before the next; the
// summaries appended in time order.
#pragma once

#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/shard/kernel.hpp"
#include "hashtrace/shard/plan.hpp"
#include "hashtrace/shard/summary.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

namespace hashtrace::shard {

// Links and intervals of real-time systems last milliseconds; a second of
// margin covers them with room, and costs a shard of a 200 k samples/s run
// 400 k samples more to read. A run whose first shard shows longer ones
// gets a wider margin (analyze_sharded).
inline constexpr std::int64_t kDefaultMarginNs = 1'000'000'000;

struct ShardOptions {
    std::int64_t tolerance_ns = 0;  // the linking tolerance (graph::LinkOptions)
    bool lenient = false;
    unsigned threads = 0;
    std::size_t reach_search_budget = 0;  // metrics::MetricOptions', for tests
    // At most how many samples the windows of shards summarised at once may
    // hold together (what the memory budget holds); 0: one shard at a time.
    // Where it holds two, the pages a shard frees are also kept for the next.
    std::uint64_t samples_at_once = 0;
};

// What else a command measures of each shard's linked window (critical
// paths), called once the kernel has summarised it; a shard summarised
// again (the first, when the margin widens) is seen again with the same index.
using WindowHook = std::function<void(std::size_t shard, const graph::SampleSet&, const graph::Graph&, const ShardWindow&)>;

// One shard: its window's samples loaded from `files` (indexed in `run`),
// linked and summarised. `inspect`, when given, sees the loaded samples
// before linking (the callers check the spec's selectors on the first shard).
ShardSummary summarize_window(const std::vector<std::filesystem::path>& files, const RunIndex& run, const graph::AnalysisSpec& spec,
                              const ShardWindow& window, const ShardOptions& options,
                              const std::function<void(const graph::SampleSet&)>& inspect = {},
                              const std::function<void(const graph::SampleSet&, const graph::Graph&)>& also = {});

// Shards [first, count) summarised `lanes` at a time (summarize(k, alone):
// `alone` for the last, which finishes with no other beside it) and handed
// to `take` in shard order as they are done. After a failure no later shard
// starts, and the first failure in shard order is rethrown, as a run in
// turn would throw it.
void summarize_at_once(std::size_t first, std::size_t count, unsigned lanes, const std::function<ShardSummary(std::size_t, bool)>& summarize,
                       const std::function<void(std::size_t, ShardSummary&)>& take);

struct ShardedRun {
    ShardSummary summary;
    std::int64_t margin_ns = 0;         // the margin used (a default widened by the first shard)
    bool margin_widened = false;
};

inline constexpr unsigned kProbeParts = 8;

// Every shard of `shards` (cut_shards) in turn. margin_ns = 0: the default,
// widened to twice the longest link or interval the first shard saw when
// that is longer (the first shard, then an eighth of the first shard given
// (with_probe), read with twice the default margin, is summarised again
// when what it saw was longer than the margin it had), but never past
// max_margin_ns (what the memory holds: a hash reused long after may link
// a stale producer, and such a link must not make every shard read the
// whole run; the margin report then says what was not covered).
// The shards after the first (and the first again, when it is) are
// summarised several at once, one thread each, when options.samples_at_once
// holds their windows together (and no `also` is given); they are appended
// in time order all the same.
ShardedRun analyze_sharded(const std::vector<std::filesystem::path>& files, const RunIndex& run, const graph::AnalysisSpec& spec,
                           const std::vector<TimeRange>& shards, std::int64_t margin_ns, std::int64_t max_margin_ns, const ShardOptions& options,
                           const std::function<void(const graph::SampleSet&)>& inspect = {},
                           const std::function<void(std::size_t done, std::size_t total)>& progress = {}, const WindowHook& also = {});

}  // namespace hashtrace::shard
