#include "pipeline.hpp"

#include "sharding.hpp"

#include "hashtrace/clock_analysis/edge_estimate.hpp"
#include "hashtrace/infer/message_hops.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/metrics/render.hpp"
#include "output.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

namespace hashtrace::cli {
namespace {

// Redraws one status line at most 10 times a second.
class ProgressLine {
public:
    explicit ProgressLine(bool enabled) : enabled_(enabled) {}
    ~ProgressLine() {
        if (drawn_) std::fputs("\r\033[K", stderr);
    }
    template <typename... T>
    void show(const char* fmt, T... values) {
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
        last_ = now;
        drawn_ = true;
        std::fputs("\r\033[K", stderr);
        std::fprintf(stderr, fmt, values...);
        std::fflush(stderr);
    }

private:
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point last_{};
};

// A run's columns, tables and graph are a few large blocks each stage
// allocates and the next frees. glibc raises its mmap threshold after the
// first large free and then keeps such blocks in its heap, where the freed
// ones of one stage stay resident under the next (+25-35% on the peak of a
// 4M-sample analyze). A fixed threshold maps every block of 256 KiB or more
// on its own and unmaps it when freed, for more page faults (~0.1 s there;
// docs/benchmarks.md). The environment's MALLOC_MMAP_THRESHOLD_ still wins.
void return_large_blocks_to_the_kernel() {
#ifdef __GLIBC__
    if (!std::getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

}  // namespace

void keep_freed_blocks_for_reuse() {
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

const char* const kPipelineOptionsHelp =
    "  --spec FILE          analysis spec (TOML, docs/analysis.md): allowed pairs and intervals\n"
    "  --tolerance-ms X     admit a producer up to X ms after its consumer (clock error); default 0\n"
    "  --keep-all           link every candidate producer per source, not only the latest\n"
    "  --lenient            skip malformed log records and count them; unmatched spec selectors warn\n"
    "  --threads N          parsing/linking threads (default: all cores)\n"
    "  --quiet              no progress line on stderr\n"
    "  --timings            print each stage's wall and CPU time and the peak memory to stderr\n"
    "  --since T, --until T only the samples from T and before T: seconds from the run's first sample (0.5,\n"
    "                       120), or absolute seconds since the epoch (1764300000.25)\n"
    "  --memory-budget SIZE the memory a run may take (e.g. 512M, 4G); default: a quarter of this machine's.\n"
    "                       A run that needs more is analysed in time shards by analyze, refused by the others\n";

namespace {

std::optional<std::string> alias_of(Args& args, const std::optional<std::string>& given, const std::string& name, const char* alias,
                                    std::string& given_as) {
    auto other = args.option(alias);
    if (given && other) throw UsageError(name + " and " + alias + " are one option: give one of them");
    if (!other) return given;
    given_as = alias;
    return other;
}

}  // namespace

void read_range_aliases(Args& args, PipelineOptions& options) {
    options.since = alias_of(args, options.since, options.since_name, "--from", options.since_name);
    options.until = alias_of(args, options.until, options.until_name, "--to", options.until_name);
}

PipelineOptions read_pipeline_options(Args& args) {
    PipelineOptions o;
    o.spec_file = args.option("--spec");
    o.tolerance_ms = args.number("--tolerance-ms", 0.0);
    if (!(o.tolerance_ms >= 0) || !std::isfinite(o.tolerance_ms)) throw UsageError("--tolerance-ms must be a finite number >= 0");
    o.keep_all = args.flag("--keep-all");
    o.lenient = args.flag("--lenient");
    const long long threads = args.integer("--threads", 0);
    if (threads < 0 || threads > 256) throw UsageError("--threads must be between 0 and 256");
    o.threads = static_cast<unsigned>(threads);
    o.progress = !args.flag("--quiet") && isatty(STDERR_FILENO);
    o.timings = args.flag("--timings");
    o.since = args.option("--since");
    o.until = args.option("--until");
    read_memory_budget(args, o);
    return o;
}

void read_memory_budget(Args& args, PipelineOptions& options) {
    const auto budget = args.option("--memory-budget");
    options.budget_given = budget.has_value();
    options.memory_budget = budget ? parse_size(*budget, "--memory-budget") : default_memory_budget();
}

ResultFiles read_result_files(Args& args) { return {args.option("--json"), args.option("--markdown"), args.option("--csv")}; }

void output_stage(const metrics::AnalysisResult& result, const ResultFiles& files) {
    std::fputs(metrics::render_table(result).c_str(), stdout);
    if (files.json) write_file(*files.json, metrics::render_json(result));
    if (files.markdown) write_file(*files.markdown, metrics::render_markdown(result));
    if (files.csv) write_file(*files.csv, metrics::render_csv(result));
}

graph::AnalysisSpec spec_stage(const PipelineOptions& options) {
    return options.spec_file ? graph::load_spec(*options.spec_file) : graph::AnalysisSpec{};
}

graph::SampleSet load_stage(const std::vector<std::string>& inputs, const PipelineOptions& options, bool keep_hash_values) {
    const auto files = find_log_files(inputs);
    const shard::TimeRange range = time_range_stage(files, options);
    if (options.reuse_freed_memory) keep_freed_blocks_for_reuse();
    else return_large_blocks_to_the_kernel();
    ProgressLine line(options.progress);
    graph::LoadOptions load;
    load.lenient = options.lenient;
    load.keep_hash_values = keep_hash_values;
    load.threads = options.threads;
    load.from_ns = range.from_ns;
    load.to_ns = range.to_ns;
    load.progress = [&](const graph::LoadProgress& p) {
        line.show("reading logs: %zu/%zu files, %llu samples", p.files_done, p.files_total, (unsigned long long)p.samples_read);
    };
    return graph::load_samples(files, load);
}

std::vector<std::string> check_spec_stage(const graph::AnalysisSpec& spec, const graph::SampleSet& samples, const PipelineOptions& options) {
    std::vector<std::string> warnings;
    if (options.spec_file)
        if (auto empty = graph::empty_spec_warning(spec); !empty.empty()) warnings.push_back(std::move(empty));
    for (const auto& problem : graph::unmatched_selectors(spec, samples)) {
        if (!options.lenient) throw problem;
        warnings.push_back(problem.what());
    }
    return warnings;
}

graph::Graph link_stage(graph::SampleSet& samples, const graph::AnalysisSpec& spec, const PipelineOptions& options, bool keep_hash_ids) {
    ProgressLine line(options.progress);
    graph::LinkOptions link;
    link.tolerance_ns = std::llround(options.tolerance_ms * 1e6);
    link.keep_all = options.keep_all;
    link.threads = options.threads;
    link.progress = [&](std::uint64_t done, std::uint64_t edges) {
        line.show("linking: %llu/%zu samples, %llu edges", (unsigned long long)done, samples.size(), (unsigned long long)edges);
    };
    auto joined = graph::join(samples, spec, link);
    if (!keep_hash_ids) samples.drop_hash_ids();
    return graph::place(std::move(joined));
}

const char* const kClockEstimateOptionsHelp =
    "  --reference NODE     the clock the others are given against: a node (its instance with the most\n"
    "                       messages) or NODE/INSTANCE; default: the instance with the most messages\n"
    "  --max-offset-ms X    link receives up to X ms before their sends (clocks that far apart); default 1000\n";

ClockEstimateOptions read_clock_estimate_options(Args& args) {
    ClockEstimateOptions o;
    o.max_offset_ms = args.number("--max-offset-ms", o.max_offset_ms);
    if (!(o.max_offset_ms >= 0) || !std::isfinite(o.max_offset_ms)) throw UsageError("--max-offset-ms must be a finite number >= 0");
    o.reference = args.option("--reference");
    return o;
}

namespace {
void print_hop_pairs(const infer::MessageHops& hops) {
    std::fprintf(stderr,
                 "note: no --spec: the clocks are estimated from the %zu message pairs the hashes' journeys show (%llu messages "
                 "followed; %llu in an order the hashes do not tell, of which only the maker's hops count; %llu hashes made twice "
                 "left out):\n",
                 hops.pairs.size(), (unsigned long long)hops.messages, (unsigned long long)hops.order_unknown,
                 (unsigned long long)hops.hashes_made_twice);
    constexpr std::size_t kShown = 12;
    for (std::size_t i = 0; i < hops.pairs.size() && i < kShown; ++i) {
        const auto& p = hops.pairs[i];
        std::fprintf(stderr, "  %s -> %s: %llu hops, %llu received before sent by the logs' clocks\n", p.from.text().c_str(),
                     p.to.text().c_str(), (unsigned long long)p.hops, (unsigned long long)p.received_before_sent);
    }
    if (hops.pairs.size() > kShown) std::fprintf(stderr, "  and %zu more\n", hops.pairs.size() - kShown);
}
}  // namespace

graph::AnalysisSpec clock_spec_stage(const graph::SampleSet& samples, const graph::AnalysisSpec& spec, const infer::MessageHops* found) {
    if (!spec.pairs.empty()) return spec;
    const auto hops = found ? *found : infer::find_message_hops(samples);
    if (hops.pairs.empty()) return spec;
    print_hop_pairs(hops);
    return hops.spec();
}

ClockDisagreement clock_disagreement_stage(const graph::SampleSet& samples) {
    return {infer::find_message_hops(samples)};
}

std::string ClockDisagreement::text() const {
    return "by the logs' clocks, " + std::to_string(found.received_before_sent) + " of the " + std::to_string(found.hops) +
           " message hops are received before they are sent";
}

clock_analysis::TimeBase estimate_clocks_stage(graph::SampleSet& samples, const graph::AnalysisSpec& given, const PipelineOptions& options,
                                               const ClockEstimateOptions& estimate, bool keep_hash_ids, const infer::MessageHops* found) {
    const graph::AnalysisSpec spec = clock_spec_stage(samples, given, found);
    try {
        // Re-linking per piece links time-corrected copies, with the hash ids.
        const clock_analysis::LinkCorrected relink = [&](graph::SampleSet& copy, std::int64_t tolerance_ns) {
            PipelineOptions o = options;
            o.tolerance_ms = static_cast<double>(std::max<std::int64_t>(tolerance_ns, std::llround(options.tolerance_ms * 1e6))) * 1e-6;
            o.progress = false;
            return link_stage(copy, spec, o, /*keep_hash_ids=*/true);  // messages sent several times dated by the first
        };
        const bool may_widen = estimate.max_offset_ms > options.tolerance_ms;
        const auto graph = link_stage(samples, spec, options, /*keep_hash_ids=*/true);
        const std::int64_t widest = std::llround(std::max(estimate.max_offset_ms, options.tolerance_ms) * 1e6);
        auto base = clock_analysis::estimate_and_relink(samples, graph, estimate.reference, relink, widest);
        // Warnings: an instance not placed, or constraints refused.
        if (!may_widen || graph.unlinked_inputs * 100 <= graph.edges.size()) {
            if (!keep_hash_ids) samples.drop_hash_ids();
            return base;
        }
        PipelineOptions wide = options;
        wide.tolerance_ms = estimate.max_offset_ms;
        const auto wide_graph = link_stage(samples, spec, wide, /*keep_hash_ids=*/true);
        base = clock_analysis::estimate_and_relink(samples, wide_graph, estimate.reference, relink, widest, &graph);
        if (!keep_hash_ids) samples.drop_hash_ids();
        return base;
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

namespace {
void report_file_health(const std::string& path, const logio::ReadReport& report) {
    if (report.bad_records) {
        std::fprintf(stderr, "warning: %s: %llu bad records skipped\n", path.c_str(), (unsigned long long)report.bad_records);
        for (const auto& m : report.bad_record_messages) std::fprintf(stderr, "  %s\n", m.c_str());
    }
    if (report.torn)
        std::fprintf(stderr, "warning: %s: torn tail at byte %llu ignored (%s)\n", path.c_str(), (unsigned long long)report.torn_tail.offset,
                     report.torn_tail.reason.c_str());
    if (report.closed_uncleanly()) std::fprintf(stderr, "warning: %s: not closed cleanly: %s\n", path.c_str(), logio::kUncleanCloseMeaning);
}
}  // namespace

void report_input_health(const graph::SampleSet& samples) {
    for (const auto& f : samples.files) report_file_health(f.path, f.report);
}

void report_input_health(const shard::RunIndex& run) {
    for (const auto& log : run.logs) report_file_health(log.path, log.report);
}

std::vector<std::filesystem::path> find_log_files(const std::vector<std::string>& inputs) {
    return logio::find_logs(std::vector<std::filesystem::path>(inputs.begin(), inputs.end()));
}

StageTimings::StageTimings(bool enabled) : enabled_(enabled) {
    if (enabled_) marks_.push_back(now("start"));
}

void StageTimings::mark(const char* stage) {
    if (!enabled_) return;
    Mark m = now(stage);
    m.peak_kib = std::max(m.peak_kib, marks_.back().peak_kib);
    marks_.push_back(m);
}

StageTimings::Mark StageTimings::now(const char* stage) {
    timespec wall, cpu;
    clock_gettime(CLOCK_MONOTONIC, &wall);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    long size_pages = 0, resident_pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(statm, "%ld %ld", &size_pages, &resident_pages) != 2) resident_pages = 0;
        std::fclose(statm);
    }
    const long held_kib = resident_pages * (sysconf(_SC_PAGESIZE) / 1024);
    // The kernel updates the high-water mark lazily: it may trail what is resident now.
    return {stage, wall.tv_sec + wall.tv_nsec * 1e-9, cpu.tv_sec + cpu.tv_nsec * 1e-9, std::max(usage.ru_maxrss, held_kib), held_kib};
}

void StageTimings::print() const {
    if (marks_.size() < 2) return;
    std::fprintf(stderr, "%-10s %9s %9s %12s %12s\n", "stage", "wall ms", "cpu ms", "peak MiB", "held MiB");
    for (std::size_t i = 1; i < marks_.size(); ++i)
        std::fprintf(stderr, "%-10s %9.1f %9.1f %12.1f %12.1f\n", marks_[i].stage, (marks_[i].wall_s - marks_[i - 1].wall_s) * 1e3,
                     (marks_[i].cpu_s - marks_[i - 1].cpu_s) * 1e3, marks_[i].peak_kib / 1024.0, marks_[i].held_kib / 1024.0);
    std::fprintf(stderr, "%-10s %9.1f %9.1f %12.1f\n", "total", (marks_.back().wall_s - marks_.front().wall_s) * 1e3,
                 (marks_.back().cpu_s - marks_.front().cpu_s) * 1e3, marks_.back().peak_kib / 1024.0);
}

LinkedRun linked_run_stage(const std::vector<std::string>& inputs, const graph::AnalysisSpec& spec, const PipelineOptions& options,
                           StageTimings& timings, KeepHashes keep) {
    LinkedRun run{load_stage(inputs, options, keep.values), {}};
    timings.mark("load");
    report_input_health(run.samples);
    for (const auto& warning : check_spec_stage(spec, run.samples, options)) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    timings.mark("checks");
    run.graph = link_stage(run.samples, spec, options, keep.ids);
    timings.mark("link");
    return run;
}

}  // namespace hashtrace::cli
