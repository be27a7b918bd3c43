#include "hashtrace/shard/sharded_run.hpp"

#include "hashtrace/graph/column.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"

#include <algorithm>

namespace hashtrace::shard {

ShardSummary summarize_window(const std::vector<std::filesystem::path>& files, const RunIndex& run, const graph::AnalysisSpec& spec,
                              const ShardWindow& window, const ShardOptions& options,
                              const std::function<void(const graph::SampleSet&)>& inspect,
                              const std::function<void(const graph::SampleSet&, const graph::Graph&)>& also) {
    graph::LoadOptions load;
    load.lenient = options.lenient;
    load.threads = options.threads;
    load.from_ns = window.read_from_ns();
    load.to_ns = window.read_to_ns(options.tolerance_ns);
    load.expected_samples = samples_per_log(run, {load.from_ns, load.to_ns});
    const graph::SampleSet samples = graph::load_samples(files, load);
    if (inspect) inspect(samples);
    graph::LinkOptions link;
    link.tolerance_ns = options.tolerance_ns;
    link.threads = options.threads;
    const graph::Graph graph = graph::link(samples, spec, link);
    metrics::MetricOptions measure;
    measure.threads = options.threads;
    measure.reach_search_budget = options.reach_search_budget;
    measure.release_pooled_memory = false;  // the next shard reuses them
    ShardSummary summary = summarize(samples, graph, spec, window, measure);
    if (also) also(samples, graph);
    return summary;
}

ShardedRun analyze_sharded(const std::vector<std::filesystem::path>& files, const RunIndex& run, const graph::AnalysisSpec& spec,
                           const std::vector<TimeRange>& given, std::int64_t margin_ns, std::int64_t max_margin_ns, const ShardOptions& options,
                           const std::function<void(const graph::SampleSet&)>& inspect,
                           const std::function<void(std::size_t, std::size_t)>& progress, const WindowHook& also) {
    const graph::KeepPooledMemory reuse;  // each shard's columns in the pages of the one before
    ShardedRun out;
    out.margin_ns = margin_ns > 0 ? margin_ns : kDefaultMarginNs;
    // A default margin is checked on a probe, an eighth of the first shard:
    // if the run's links outgrow it, only the probe is summarised again.
    const std::vector<TimeRange> shards = margin_ns > 0 || given.size() < 2 ? given : with_probe(run, given, kProbeParts);
    auto window = [&](const TimeRange& r) { return ShardWindow{r.from_ns, r.to_ns, run.first_ns, run.last_ns, out.margin_ns}; };
    const auto summarize_shard = [&](std::size_t k, const std::function<void(const graph::SampleSet&)>& inspect_first) {
        const ShardWindow w = window(shards[k]);
        const auto hook = [&](const graph::SampleSet& samples, const graph::Graph& graph) { also(k, samples, graph, w); };
        return summarize_window(files, run, spec, w, options, inspect_first, also ? hook : std::function<void(const graph::SampleSet&, const graph::Graph&)>{});
    };
    for (std::size_t k = 0; k < shards.size(); ++k) {
        ShardSummary s = summarize_shard(k, k == 0 ? inspect : nullptr);
        // A run of one shard reads all of it: no margin to widen. The first
        // shard is summarised again only when what it saw exceeded the
        // margin it had; within it, it was exact, and the wider margin is
        // for the shards after it.
        if (k == 0 && shards.size() > 1 && margin_ns <= 0 && 2 * s.margin.needed_ns() > out.margin_ns &&
            2 * s.margin.needed_ns() <= max_margin_ns) {
            const bool exceeded = s.margin.needed_ns() > out.margin_ns;
            out.margin_ns = 2 * s.margin.needed_ns();
            out.margin_widened = true;
            if (exceeded) s = summarize_shard(k, nullptr);
        }
        if (k == 0) out.summary = std::move(s);
        else out.summary.append(s);
        if (progress) progress(k + 1, shards.size());
    }
    return out;
}

}  // namespace hashtrace::shard
