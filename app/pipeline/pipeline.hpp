// pipeline.hpp - the stages every analysis command runs, with the options
// they share (parse -> link -> measure; rendering stays in each command):
//
//   PipelineOptions o = read_pipeline_options(args);    // --spec, --tolerance-ms, ...
//   auto samples = load_stage(inputs, o);               // disk, progress on a TTY
//   // clock correction (--clock-correct) plugs in here: graph::correct_times(samples, ...)
//   auto graph = link_stage(samples, spec, o, keep_hash_ids);
#pragma once

#include "hashtrace/cli/args.hpp"
#include "hashtrace/clock_analysis/time_base.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/infer/message_hops.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/shard/plan.hpp"

#include <string>
#include <vector>

namespace hashtrace::cli {

struct PipelineOptions {
    std::optional<std::string> spec_file;
    double tolerance_ms = 0;
    bool keep_all = false;
    bool lenient = false;
    unsigned threads = 0;
    bool progress = false;  // stderr is a terminal and --quiet was not given
    bool timings = false;   // --timings
    // The allocator keeps what a stage frees for the next stage (commands
    // whose goal is time, not peak memory; see load_stage).
    bool reuse_freed_memory = false;
    // --since/--until: a time range of the run (seconds from its first sample,
    // or absolute: seconds since the epoch); only its samples are read.
    std::optional<std::string> since, until;
    std::string since_name = "--since", until_name = "--until";  // or --from, --to: as given, for messages
    // --memory-budget: a run that needs more is refused by the commands that
    // hold it whole (with the range that would fit), and sharded by analyze.
    std::uint64_t memory_budget = 0;
    bool budget_given = false;
    bool budget_checked = false;  // the caller planned with the run's index already (analyze)
};

// The other way than the loading stage's default (large blocks handed back
// to the kernel when freed), for commands measured by their time
// (critical-path, whatif) and for the time shards, which free and allocate
// the same sizes shard after shard: every block from the heap and none
// handed back, so what one stage or shard frees the next reuses without
// fresh pages for the kernel to zero (a large share of their CPU:
// docs/benchmarks.md), for a few MB more at the peak.
void keep_freed_blocks_for_reuse();

// Reads --spec, --tolerance-ms, --keep-all, --lenient, --threads, --quiet, --timings,
// --since, --until, --memory-budget.
PipelineOptions read_pipeline_options(Args& args);
// --from T, --to T: --since and --until under the names trace viewers' users
// look for, for commands where they name nothing else (`route --from` is a tracepoint).
void read_range_aliases(Args& args, PipelineOptions& options);
extern const char* const kPipelineOptionsHelp;

graph::AnalysisSpec spec_stage(const PipelineOptions& options);
graph::SampleSet load_stage(const std::vector<std::string>& inputs, const PipelineOptions& options, bool keep_hash_values = false);
// Selectors matching nothing are an error naming the spec's file and line;
// with --lenient they are returned as warnings instead. A spec file that
// holds no rule at all is always a warning.
std::vector<std::string> check_spec_stage(const graph::AnalysisSpec& spec, const graph::SampleSet& samples, const PipelineOptions& options);
// Links the samples. Unless keep_hash_ids (routes, exports and the HTML
// report read them later), frees their hash-id columns as soon as the join
// has read them, before the graph's rows are laid out (graph::join/place).
graph::Graph link_stage(graph::SampleSet& samples, const graph::AnalysisSpec& spec, const PipelineOptions& options, bool keep_hash_ids);

// Clocks from causality (`clock estimate`, `analyze --clock-correct edges`):
// links as the clocks say and estimates every instance's clock from the
// message edges. Clocks far apart hide a direction (its receives precede
// their sends and stay unlinked): when more than 1% of the inputs are
// unlinked (an instance placed from the rest may still be wrong: clocks a
// drift apart lose only the later part of a direction), it links again with a tolerance of
// --max-offset-ms and estimates from the edges the first linking does not
// contradict (a reused hash may link a later producer within the tolerance).
// keep_hash_ids: for a caller that relinks.
struct ClockEstimateOptions {
    double max_offset_ms = 1000;
    std::optional<std::string> reference;  // --reference NODE[/INSTANCE]
};
ClockEstimateOptions read_clock_estimate_options(Args& args);
// The pairs the clocks are estimated from: the spec's; with no [[pair]], the
// message hops the hashes' journeys show (infer/message_hops.hpp: a
// pass-through hop linked by time goes both ways), said on stderr; with none
// found, the spec as given (every pair may link).
// `found`: the hops already followed (ClockDisagreement), not followed again.
graph::AnalysisSpec clock_spec_stage(const graph::SampleSet& samples, const graph::AnalysisSpec& spec,
                                     const infer::MessageHops* found = nullptr);
extern const char* const kClockEstimateOptionsHelp;
// Whether the logs' clocks disagree by more than a message's transit: over
// 1% of the message hops the hashes show (infer/message_hops.hpp) received
// before they are sent. A structure inferred from such logs is wrong unless
// the clocks are corrected first (`--clock-correct edges`).
struct ClockDisagreement {
    infer::MessageHops found;  // also for the estimate that follows, if any
    bool matters() const { return static_cast<double>(found.received_before_sent) > 0.01 * static_cast<double>(found.hops); }
    std::string text() const;  // "by the logs' clocks, N of the M message hops are received before they are sent"
};
ClockDisagreement clock_disagreement_stage(const graph::SampleSet& samples);
clock_analysis::TimeBase estimate_clocks_stage(graph::SampleSet& samples, const graph::AnalysisSpec& spec, const PipelineOptions& options,
                                               const ClockEstimateOptions& estimate, bool keep_hash_ids,
                                               const infer::MessageHops* found = nullptr);

// --memory-budget SIZE into `options` (a quarter of this machine's memory when absent).
void read_memory_budget(Args& args, PipelineOptions& options);

// An analysis's files: --json, --markdown, --csv.
struct ResultFiles {
    std::optional<std::string> json, markdown, csv;
};
ResultFiles read_result_files(Args& args);
// The result's table on standard output, and each file asked for.
void output_stage(const metrics::AnalysisResult& result, const ResultFiles& files);

// Bad records skipped, torn tails and logs not closed cleanly, one line per file, for stderr.
void report_input_health(const graph::SampleSet& samples);
void report_input_health(const shard::RunIndex& run);

// The log files the inputs name (files, or directories searched): logio::find_logs.
std::vector<std::filesystem::path> find_log_files(const std::vector<std::string>& inputs);

// --timings: where a large run's time and memory go, without a profiler.
// mark() ends a stage; print() writes each stage's wall time, CPU time (all
// threads: CPU / wall shows how well it used the cores), the process's peak
// resident memory so far and what is still resident when the stage ends
// (the peak less that is what the stage held only for a while) to stderr.
class StageTimings {
public:
    explicit StageTimings(bool enabled);
    void mark(const char* stage);
    void print() const;

private:
    struct Mark {
        const char* stage;
        double wall_s, cpu_s;
        long peak_kib;
        long held_kib;
    };
    static Mark now(const char* stage);
    bool enabled_;
    std::vector<Mark> marks_;
};

// The run loaded and linked as the spec says, for the commands that need
// nothing between: load (its health on stderr), the spec's selectors checked
// (warnings on stderr), link; each stage marked in `timings`.
struct LinkedRun {
    graph::SampleSet samples;
    graph::Graph graph;
};
struct KeepHashes {
    bool values = false;  // load_stage's keep_hash_values
    bool ids = false;     // link_stage's keep_hash_ids
};
LinkedRun linked_run_stage(const std::vector<std::string>& inputs, const graph::AnalysisSpec& spec, const PipelineOptions& options,
                           StageTimings& timings, KeepHashes keep = {});

}  // namespace hashtrace::cli
