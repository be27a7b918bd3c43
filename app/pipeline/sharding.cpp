#include "sharding.hpp"

#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/critical_path/path_summary.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/shard/result.hpp"
#include "hashtrace/shard/sharded_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unistd.h>

namespace hashtrace::cli {
namespace {

// At most how many samples the files hold, from their sizes alone: a binary
// sample takes 6 bytes at the least (tag, tracepoint, a time delta, two
// hashes by ring slot), a CSV row 60. Enough to pass over the index for
// runs that plainly fit.
std::uint64_t samples_at_most(const std::vector<std::filesystem::path>& files) {
    std::uint64_t n = 0;
    for (const auto& f : files) {
        std::error_code unknown;
        const auto bytes = std::filesystem::file_size(f, unknown);
        if (!unknown) n += bytes / (f.extension() == ".csv" ? 60 : 6) + 1;
    }
    return n;
}

// A time as --since/--until give it: absolute seconds since the epoch (from
// 2001 on: 1e9 s), or seconds from the run's first sample.
std::int64_t time_of(const std::string& text, const shard::RunIndex& run, const char* option) {
    const auto seconds = parse_number(text);
    std::int64_t absolute = 0;
    if (seconds && *seconds >= 1e9 && logio::parse_time_ns(text, absolute)) return absolute;
    if (!seconds || *seconds < 0 || *seconds >= 1e9)
        throw UsageError(std::string(option) + " takes seconds from the run's first sample or since the epoch, not \"" + text + "\"");
    return run.first_ns + std::llround(*seconds * 1e9);
}

}  // namespace

std::uint64_t default_memory_budget() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::uint64_t{4} << 30;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 4;
}

shard::TimeRange time_range_stage(const std::vector<std::filesystem::path>& files, const PipelineOptions& options) {
    shard::TimeRange range{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    const std::uint64_t fits = options.memory_budget / kBytesPerSample;
    const bool check_budget = !options.budget_checked && samples_at_most(files) > fits;
    if (!options.since && !options.until && !check_budget) return range;
    const shard::RunIndex run = shard::index_run(files, options.lenient, options.threads);
    if (options.since) range.from_ns = time_of(*options.since, run, options.since_name.c_str());
    if (options.until) range.to_ns = time_of(*options.until, run, options.until_name.c_str());
    if (range.from_ns >= range.to_ns) throw UsageError(options.since_name + " must come before " + options.until_name);
    const std::uint64_t samples = shard::samples_in(run, range);
    if (options.budget_checked || samples <= fits) return range;
    char fitting[64];
    std::snprintf(fitting, sizeof fitting, "%.3g", double(fits) / run.samples_per_s());
    throw UsageError("the run holds about " + std::to_string(samples) + " samples" + (options.since || options.until ? " in that range" : "") +
                     ", more than the memory budget of " + size_text(options.memory_budget) + " holds (about " + std::to_string(fits) +
                     "): analyse a part of it with --since/--until (about " + fitting +
                     " s fit), or give a larger --memory-budget; `hashtrace analyze` analyses runs of any length in time shards");
}

const char* const kShardingOptionsHelp =
    "  --shard-samples N    analyse in time shards of about N samples each, whatever the run's size\n"
    "  --margin-ms X        each shard also reads X ms on either side, for links and intervals that cross its edges;\n"
    "                       default 1000, widened to twice the longest the first shard sees; longer ones are reported\n";

std::uint64_t parse_size(const std::string& text, const char* option) {
    std::size_t digits = 0;
    while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) ++digits;
    const auto number = parse_number(std::string_view(text).substr(0, digits));
    std::string unit = text.substr(digits);
    if (unit.size() > 1 && (unit.ends_with("iB") || unit.ends_with("B"))) unit = unit.substr(0, 1);
    const std::string units = "KMGT";
    const auto power = unit.empty() ? std::string::npos : units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
    if (!number || *number <= 0 || (!unit.empty() && (unit.size() != 1 || power == std::string::npos)))
        throw UsageError(std::string(option) + " takes a size such as 512M or 4G, not \"" + text + "\"");
    const double bytes = *number * std::pow(1024.0, unit.empty() ? 0 : double(power + 1));
    if (bytes >= 1.8e19) throw UsageError(std::string(option) + " is too large: " + text);
    return static_cast<std::uint64_t>(bytes);
}

std::string size_text(std::uint64_t bytes) {
    char buf[64];
    if (bytes >= (std::uint64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1u << 30));
    else std::snprintf(buf, sizeof buf, "%.0f MiB", double(bytes) / double(1u << 20));
    return buf;
}

ShardingOptions read_sharding_options(Args& args) {
    ShardingOptions o;
    const long long samples = args.integer("--shard-samples", 0);
    if (samples < 0) throw UsageError("--shard-samples must be a positive number of samples");
    o.shard_samples = static_cast<std::uint64_t>(samples);
    const double margin_ms = args.number("--margin-ms", 0);
    if (!(margin_ms >= 0) || !std::isfinite(margin_ms) || margin_ms > 1e9) throw UsageError("--margin-ms must be a number of ms >= 0");
    o.margin_ns = std::llround(margin_ms * 1e6);
    return o;
}

std::optional<ShardPlan> plan_stage(const std::vector<std::filesystem::path>& files, const ShardingOptions& sharding,
                                    const PipelineOptions& pipeline, bool may_run_whole) {
    const std::uint64_t fits = pipeline.memory_budget / kBytesPerSample;
    if (may_run_whole && sharding.shard_samples == 0 && samples_at_most(files) <= fits) return std::nullopt;
    ShardPlan plan{files, shard::index_run(files, pipeline.lenient, pipeline.threads), {}, pipeline.memory_budget, 0, {}};
    const bool fits_whole = sharding.shard_samples == 0 && plan.run.samples <= fits;
    if (may_run_whole && fits_whole) return std::nullopt;
    const double rate = plan.run.samples_per_s();
    const double margin_s = double(sharding.margin_ns > 0 ? sharding.margin_ns : shard::kDefaultMarginNs) / 1e9;
    // Both margins of a shard, at the run's mean rate (bursts are what the headroom of kBytesPerSample is for).
    const auto margin_samples = static_cast<std::uint64_t>(rate * 2 * margin_s);
    std::uint64_t shard_samples = sharding.shard_samples;
    if (fits_whole) {
        shard_samples = std::max<std::uint64_t>(plan.run.samples, 1);  // one shard
        plan.why = "the run fits the memory budget of " + size_text(pipeline.memory_budget);
    } else if (shard_samples == 0) {
        if (fits < 2 * margin_samples + 1000)
            throw UsageError("--memory-budget " + size_text(pipeline.memory_budget) + " cannot hold one shard and its margins (about " +
                             std::to_string(margin_samples) + " samples at this run's rate); give at least " +
                             size_text((4 * margin_samples + 100000) * kBytesPerSample) + ", or a smaller --margin-ms");
        shard_samples = fits - margin_samples;
        plan.why = "the run's " + std::to_string(plan.run.samples) + " samples need more than the memory budget of " +
                   size_text(pipeline.memory_budget) + (pipeline.budget_given ? "" : " (a quarter of this machine's memory; --memory-budget)");
    } else plan.why = "--shard-samples " + std::to_string(shard_samples);
    plan.shards = shard::cut_shards(plan.run, shard_samples);
    // The widest margin the budget holds, at the run's mean rate: beside a
    // shard sized by the budget, half the shard on both sides together (the
    // budget's 100 bytes a sample keep that much room over the ~50 a
    // shard takes); beside one of --shard-samples, what the budget holds
    // beyond it.
    const double room = sharding.shard_samples ? (double(fits) - double(shard_samples)) / 2 : double(shard_samples) / 4;
    plan.max_margin_ns = static_cast<std::int64_t>(std::clamp(room / rate * 1e9, 0.0, 1e18));
    return plan;
}

void refuse_unsharded_options(const std::vector<std::pair<const char*, bool>>& given) {
    for (const auto& [option, is_given] : given)
        if (is_given)
            throw UsageError(std::string(option) + " needs the whole run in memory, and this run is analysed in time shards; "
                             "give a larger --memory-budget, or analyse a time range (--since/--until) of it");
}

ShardedAnalysis sharded_analysis_stage(const ShardPlan& plan, const graph::AnalysisSpec& spec, const PipelineOptions& pipeline,
                                       const ShardingOptions& sharding, const shard::WindowHook& also) {
    keep_freed_blocks_for_reuse();
    shard::ShardOptions options;
    options.tolerance_ns = std::llround(pipeline.tolerance_ms * 1e6);
    options.lenient = pipeline.lenient;
    options.threads = pipeline.threads;
    options.samples_at_once = plan.budget / kBytesPerSample;
    std::vector<std::string> warnings;
    const auto check_spec = [&](const graph::SampleSet& first) { warnings = check_spec_stage(spec, first, pipeline); };
    const auto progress = [&](std::size_t done, std::size_t total) {
        if (pipeline.progress) std::fprintf(stderr, "\r\033[Kanalysing in time shards: %zu/%zu", done, total);
    };
    shard::ShardedRun run = shard::analyze_sharded(plan.files, plan.run, spec, plan.shards, sharding.margin_ns, plan.max_margin_ns, options,
                                                     check_spec, progress, also);
    if (pipeline.progress) std::fputs("\r\033[K", stderr);
    metrics::AnalysisResult result = shard::to_result(run.summary, plan.run);
    result.warnings.insert(result.warnings.begin(), warnings.begin(), warnings.end());
    std::vector<std::string>& lines = result.extra.back().text_lines;  // the sharding section
    lines.insert(lines.begin(), "sharded because " + plan.why);
    if (run.margin_widened)
        lines.push_back("the margin was widened to " + std::to_string(run.margin_ns / 1'000'000) +
                        " ms: the first shard saw links or intervals longer than half the default");
    return {std::move(result), std::move(run.summary)};
}

std::vector<critical_path::IntervalCriticalPath> sharded_critical_path_stage(const ShardPlan& plan, const graph::AnalysisSpec& spec,
                                                                        const std::vector<const graph::IntervalSpec*>& intervals,
                                                                        const PipelineOptions& pipeline, const ShardingOptions& sharding) {
    std::vector<std::vector<critical_path::IntervalPathSummary>> parts;  // per shard run (a probe may precede the plan's first)
    const auto walk = [&](std::size_t k, const graph::SampleSet& s, const graph::Graph& g, const shard::ShardWindow& w) {
        if (parts.size() <= k) parts.resize(k + 1);
        parts[k] = critical_path::summarize_window_paths(s, g, intervals, w.own_from_ns, w.own_to_ns, pipeline.threads);
    };
    const ShardedAnalysis analysis = sharded_analysis_stage(plan, spec, pipeline, sharding, walk);
    for (const auto& line : analysis.result.extra.back().text_lines) std::fprintf(stderr, "%s\n", line.c_str());
    for (const auto& warning : analysis.result.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    std::vector<critical_path::IntervalPathSummary> merged = std::move(parts.front());
    for (std::size_t k = 1; k < parts.size(); ++k) critical_path::append_paths(merged, parts[k]);
    return critical_path::path_tables(merged);
}

}  // namespace hashtrace::cli
