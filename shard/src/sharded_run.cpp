#include "hashtrace/shard/sharded_run.hpp"

#include "hashtrace/graph/column.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/graph/parallel.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

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
    for (const logio::LogIndex& log : run.logs) load.jumps.push_back(logio::jumps_outside(log, load.from_ns, load.to_ns));
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

namespace {

// How many of `windows` (shards' read ranges) the memory holds at once: as
// many as the largest that many together hold no more samples than
// options.samples_at_once allows, up to `most`.
unsigned windows_held(const RunIndex& run, const std::vector<TimeRange>& windows, const ShardOptions& options, std::size_t most) {
    std::vector<std::uint64_t> samples;
    for (const TimeRange& w : windows) samples.push_back(samples_in(run, w));
    std::sort(samples.begin(), samples.end(), std::greater<>());
    most = std::min(most, samples.size());
    unsigned held_windows = 1;
    for (std::uint64_t held = samples.empty() ? 0 : samples[0]; held_windows < most && held + samples[held_windows] <= options.samples_at_once;
         ++held_windows)
        held += samples[held_windows];
    return held_windows;
}

}  // namespace

void summarize_at_once(std::size_t first, std::size_t count, unsigned lanes, const std::function<ShardSummary(std::size_t, bool)>& summarize,
                       const std::function<void(std::size_t, ShardSummary&)>& take) {
    std::mutex mutex;
    std::map<std::size_t, ShardSummary> done;  // ahead of the next to take
    std::size_t next = first;
    std::map<std::size_t, std::exception_ptr> failed;
    graph::parallel::for_each(count - first, lanes, [&](std::size_t i, unsigned) {
        const std::size_t k = first + i;
        {
            const std::lock_guard lock(mutex);
            if (!failed.empty() && failed.begin()->first < k) return;
        }
        try {
            ShardSummary s = summarize(k, count - k < lanes);
            const std::lock_guard lock(mutex);
            done.emplace(k, std::move(s));
            // Shards before a failure are still taken, whenever they finish: a
            // later shard's failure may come first (it was seen under load).
            while (!done.empty() && done.begin()->first == next && (failed.empty() || next < failed.begin()->first)) {
                take(next++, done.begin()->second);
                done.erase(done.begin());
            }
        } catch (...) {
            const std::lock_guard lock(mutex);
            failed.emplace(k, std::current_exception());
        }
    });
    if (!failed.empty()) std::rethrow_exception(failed.begin()->second);
}

ShardedRun analyze_sharded(const std::vector<std::filesystem::path>& files, const RunIndex& run, const graph::AnalysisSpec& spec,
                           const std::vector<TimeRange>& given, std::int64_t margin_ns, std::int64_t max_margin_ns, const ShardOptions& options,
                           const std::function<void(const graph::SampleSet&)>& inspect,
                           const std::function<void(std::size_t, std::size_t)>& progress, const WindowHook& also) {
    ShardedRun out;
    out.margin_ns = margin_ns > 0 ? margin_ns : kDefaultMarginNs;
    // A default margin is checked on a probe, an eighth of the first shard:
    // if the run's links outgrow it, only the probe is summarised again.
    const bool probing = margin_ns <= 0 && given.size() >= 2;
    const std::vector<TimeRange> shards = probing ? with_probe(run, given, kProbeParts) : given;
    // The probe reads twice the default margin (past its end only: it starts
    // the run), so that links longer than the default but not than that need
    // no second summary of it: a second of samples more, read once.
    const std::int64_t probe_margin = probing ? std::max(out.margin_ns, std::min(2 * out.margin_ns, max_margin_ns)) : out.margin_ns;
    auto window = [&](const TimeRange& r, std::int64_t margin) { return ShardWindow{r.from_ns, r.to_ns, run.first_ns, run.last_ns, margin}; };
    const auto summarize_shard = [&](std::size_t k, const std::function<void(const graph::SampleSet&)>& inspect_first, unsigned threads,
                                     std::int64_t margin) {
        const ShardWindow w = window(shards[k], margin);
        const auto hook = [&](const graph::SampleSet& samples, const graph::Graph& graph) { also(k, samples, graph, w); };
        ShardOptions shard_options = options;
        shard_options.threads = threads;
        return summarize_window(files, run, spec, w, shard_options, inspect_first,
                                also ? hook : std::function<void(const graph::SampleSet&, const graph::Graph&)>{});
    };
    ShardSummary first = summarize_shard(0, inspect, options.threads, probe_margin);
    // A run of one shard reads all of it: no margin to widen. The first
    // shard is summarised again only when what it saw exceeded the
    // margin it had (with the others: they need only the margin); within
    // it, it was exact, and the wider margin is for the shards after it.
    std::size_t next = 1;
    if (probing && 2 * first.margin.needed_ns() > out.margin_ns && 2 * first.margin.needed_ns() <= max_margin_ns) {
        if (first.margin.needed_ns() > probe_margin) next = 0;
        out.margin_ns = 2 * first.margin.needed_ns();
        out.margin_widened = true;
    }
    first.margin.margin_ns = out.margin_ns;  // the shards', which the margin report holds the links to
    const auto take = [&](std::size_t k, ShardSummary& s) {
        if (k == 0) out.summary = std::move(s);
        else out.summary.append(s);
        if (progress) progress(k + 1, shards.size());
    };
    if (next == 1) take(0, first);
    std::vector<TimeRange> windows;
    for (std::size_t k = next; k < shards.size(); ++k) {
        const ShardWindow w = window(shards[k], out.margin_ns);
        windows.push_back({w.read_from_ns(), w.read_to_ns(options.tolerance_ns)});
    }
    // Where the memory holds two windows, the pages a shard frees are kept
    // for the next (its columns in them: not zeroed again by the kernel), and
    // shards go as many at once as there are threads and the memory holds.
    std::optional<graph::KeepPooledMemory> reuse;
    if (windows_held(run, windows, options, 2) == 2) reuse.emplace();
    const unsigned lanes = also ? 1 : windows_held(run, windows, options, graph::parallel::thread_count(options.threads));
    for (std::size_t k = next; lanes == 1 && k < shards.size(); ++k) {
        ShardSummary s = summarize_shard(k, nullptr, options.threads, out.margin_ns);
        take(k, s);
    }
    const auto summarize_lane = [&](std::size_t k, bool alone) { return summarize_shard(k, nullptr, alone ? options.threads : 1, out.margin_ns); };
    if (lanes > 1) summarize_at_once(next, shards.size(), lanes, summarize_lane, take);
    return out;
}

}  // namespace hashtrace::shard
