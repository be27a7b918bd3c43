// hashtrace/shard/kernel.hpp - one time shard of a run, measured: the
// samples of the shard's window (its time range and a margin on either
// side), linked as usual, then counted only where the shard owns them.
//
// Why a margin: links and intervals are local in time. A link spans at most
// the system's longest latency, so a shard that reads [from - H, to + H)
// links every sample it owns exactly as the whole run would, as long as no
// link or interval is longer than H. Where one is, the kernel sees it (a
// consumer late in the window sees further back than H) and says so
// (MarginReport): never silent.
//
//   auto samples = graph::load_samples(files, {.from_ns = w.read_from_ns(), .to_ns = w.read_to_ns(tolerance)});
//   auto graph = graph::link(samples, spec, link_options);
//   ShardSummary s = summarize(samples, graph, spec, w, measure);
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/shard/summary.hpp"

#include <cstdint>

namespace hashtrace::shard {

struct ShardWindow {
    std::int64_t own_from_ns = 0, own_to_ns = 0;      // [from, to): the samples the shard owns
    std::int64_t run_first_ns = 0, run_last_ns = 0;   // the whole run's first and last sample times
    std::int64_t margin_ns = 0;

    // The times the shard reads: the margin on either side, and past the
    // end the linking tolerance too (a producer that late may still be a
    // consumer's latest).
    std::int64_t read_from_ns() const noexcept;
    std::int64_t read_to_ns(std::int64_t tolerance_ns) const noexcept;
};

// The samples' hash ids must still be there (the kernel counts the inputs
// without producer and the outputs never consumed it owns). `measure`:
// threads and the search budget; keep_all_targets is refused by the callers.
ShardSummary summarize(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                       const ShardWindow& window, const metrics::MetricOptions& measure = {});

}  // namespace hashtrace::shard
