// `hashtrace analyze`: logs of a run -> causality graph -> the paper's metrics.
#include "command.hpp"
#include "hashtrace/clock_analysis/clock_analysis.hpp"
#include "hashtrace/clock_analysis/edge_estimate.hpp"
#include "hashtrace/infer/evidence.hpp"
#include "hashtrace/infer/infer.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "html_report_option.hpp"
#include "output.hpp"
#include "pipeline.hpp"
#include "sharding.hpp"

#include <cstdio>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace analyze LOGS... [--spec FILE] [--json FILE] [--markdown FILE] [--csv FILE] [--html FILE] [options]\n"
    "  Collates the logs (files or directories of *.csv / *.htlog, any mix), links samples by hash\n"
    "  (docs/spec.md section 4) and prints M3, M4, M5, M8, M11, M12 and the node latency matrix.\n"
    "  --json FILE          write the docs/spec.md section 5b JSON\n"
    "  --markdown FILE      write the tables as Markdown\n"
    "  --csv FILE           write every statistic as section,name,statistic,value rows\n"
    "  --keep-all-targets   intervals: every reachable `to` sample, not only the earliest per instance\n"
    "  (no --spec)          links as the spec `hashtrace infer` writes would, with an interval per link\n"
    "  --all-pairs          without --spec: let every pair of tracepoints link instead, and name no interval\n"
    "  --clock-correct      correct each log's times by its clock's offset and drift, from the\n"
    "                       clock-*.htclock records next to the logs (docs/clock-sync.md); those\n"
    "                       records are always reported, with a warning for latencies below the clock error\n"
    "  --clock-correct edges  instead, estimate every clock from the messages themselves (`hashtrace clock\n"
    "                       estimate`), correct onto the reference's clock, report each cross-node latency\n"
    "                       with its clock error bound, and check recorded PTP/PPS corrections against it\n";

// Without a spec, the spec `hashtrace infer` would write (pairs, scopes and an
// interval per link), inferred from `specless`: the samples linked with every
// pair allowed, their hash ids kept. Nothing when the logs hold no structure
// to infer; `why_not` then says why, in one line.
struct InferredSpec {
    hashtrace::graph::AnalysisSpec spec;
    hashtrace::infer::Evidence evidence;  // what the report draws
    std::uint64_t specless_links = 0;
};

std::optional<InferredSpec> infer_spec_stage(hashtrace::graph::SampleSet& samples, const hashtrace::graph::Graph& specless,
                                             const hashtrace::cli::PipelineOptions& pipeline, std::string& why_not) {
    using namespace hashtrace;
    infer::InferOptions options;
    options.relink = [&](const graph::AnalysisSpec& pairs) { return cli::link_stage(samples, pairs, pipeline, /*keep_hash_ids=*/true); };
    try {
        auto inferred = infer::infer_structure(samples, specless, options);
        return InferredSpec{graph::parse_spec(inferred.spec_text, "the inferred spec"), std::move(inferred.evidence), specless.edges.size()};
    } catch (const infer::NoStructure& e) {
        const std::string what = e.what();
        why_not = what.substr(0, what.find('\n'));
        return std::nullopt;
    }
}

// The one line that says how a run without a spec was linked; `sharded`:
// the spec was inferred from the first shard, whose spec-less links are counted.
void print_inferred_note(const InferredSpec& inferred, std::uint64_t edges, const hashtrace::cli::ShardPlan* sharded) {
    const std::string where = sharded ? ", inferred from the run's first shard alone (" + sharded->why + ")" : "";
    std::fprintf(stderr,
                 "note: no --spec: linked as the spec `hashtrace infer` writes would%s: %zu pairs, %zu intervals (one per link, one per "
                 "source and sink), %llu links where letting every pair link makes %llu%s; --all-pairs lets every pair link\n",
                 where.c_str(), inferred.spec.pairs.size(), inferred.spec.intervals.size(), (unsigned long long)edges,
                 (unsigned long long)inferred.specless_links, sharded ? " in that shard" : "");
}

// A run over the memory budget is inferred from its first shard: that shard
// loaded alone (as --since/--until would), linked with every pair allowed.
std::optional<InferredSpec> infer_from_first_shard(const std::vector<std::string>& inputs, const hashtrace::cli::ShardPlan& plan,
                                                   hashtrace::cli::PipelineOptions pipeline, std::string& why_not) {
    using namespace hashtrace;
    auto seconds = [](std::int64_t ns) {
        char text[48];
        std::snprintf(text, sizeof text, "%lld.%09lld", (long long)(ns / 1'000'000'000), (long long)(ns % 1'000'000'000));
        return std::string(text);
    };
    pipeline.since = seconds(plan.shards.front().from_ns);
    pipeline.until = seconds(plan.shards.front().to_ns);
    auto samples = cli::load_stage(inputs, pipeline);
    const auto specless = cli::link_stage(samples, graph::AnalysisSpec{}, pipeline, /*keep_hash_ids=*/true);
    return infer_spec_stage(samples, specless, pipeline, why_not);
}

// What the command line asks for.
struct AnalyzeOptions {
    hashtrace::cli::PipelineOptions pipeline;
    hashtrace::cli::ResultFiles files;
    std::optional<hashtrace::cli::HtmlReportRequest> html;
    hashtrace::metrics::MetricOptions measure;
    std::optional<std::string> clock_correct;  // "records" or "edges" (a bare --clock-correct: records)
    hashtrace::cli::ClockEstimateOptions estimate;
    hashtrace::cli::ShardingOptions sharding;
    bool infer_links = false;  // no spec: link as the inferred spec would
    std::vector<std::string> inputs;
    bool by_records() const { return clock_correct && *clock_correct != "edges"; }
    bool by_edges() const { return clock_correct && *clock_correct == "edges"; }
};

AnalyzeOptions read_analyze_options(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    AnalyzeOptions o;
    o.pipeline = cli::read_pipeline_options(args);
    o.files = cli::read_result_files(args);
    o.html = cli::read_html_option(args);
    o.measure.keep_all_targets = args.flag("--keep-all-targets");
    o.clock_correct = args.flag_or_word("--clock-correct", {"records", "edges"});
    if (o.by_edges()) o.estimate = cli::read_clock_estimate_options(args);
    o.measure.threads = o.pipeline.threads;
    o.sharding = cli::read_sharding_options(args);
    const bool all_pairs = args.flag("--all-pairs");
    o.inputs = args.positionals();
    args.finish();
    if (o.inputs.empty()) throw cli::UsageError("give the logs to analyze (files or directories)");
    if (all_pairs && o.pipeline.spec_file) throw cli::UsageError("--all-pairs is for a run without --spec: the spec says which pairs link");
    // Without a spec the run is linked as the inferred spec would link it,
    // unless every pair is asked for (--all-pairs, or --keep-all: infer takes
    // the latest producer per source, as a spec does).
    o.infer_links = !o.pipeline.spec_file && !all_pairs && !o.pipeline.keep_all;
    return o;
}

// A run that does not fit, in time shards.
int run_sharded(const AnalyzeOptions& o, const hashtrace::cli::ShardPlan& plan, hashtrace::graph::AnalysisSpec spec,
                hashtrace::cli::StageTimings& timings) {
    using namespace hashtrace;
    cli::refuse_unsharded_options({{"--keep-all", o.pipeline.keep_all},
                                   {"--keep-all-targets", o.measure.keep_all_targets},
                                   {"--clock-correct", o.clock_correct.has_value()}});
    cli::report_input_health(plan.run);
    timings.mark("index");
    std::string why_not;
    const auto inferred = o.infer_links ? infer_from_first_shard(o.inputs, plan, o.pipeline, why_not) : std::nullopt;
    if (inferred) spec = inferred->spec;
    timings.mark("infer");
    const auto analysis = cli::sharded_analysis_stage(plan, spec, o.pipeline, o.sharding);
    timings.mark("shards");
    cli::output_stage(analysis.result, o.files);
    if (o.html) cli::write_sharded_html_report(*o.html, plan, analysis, spec, o.pipeline);
    timings.mark("output");
    timings.print();
    if (inferred)
        print_inferred_note(*inferred, analysis.result.edges, &plan);
    else if (o.infer_links)
        std::fprintf(stderr, "note: no --spec, and %s: every pair of tracepoints may link\n", why_not.c_str());
    return 0;
}

// --clock-correct edges: the clocks from the messages, the samples moved onto
// the reference's clock, and the linking tolerance their bounds allow.
struct EdgeClocks {
    hashtrace::clock_analysis::TimeBase base;
    std::vector<std::string> warnings;
};
EdgeClocks correct_by_edges(hashtrace::graph::SampleSet& samples, const hashtrace::graph::AnalysisSpec& spec, const AnalyzeOptions& o,
                            hashtrace::cli::PipelineOptions& pipeline) {
    using namespace hashtrace;
    EdgeClocks c{cli::estimate_clocks_stage(samples, spec, pipeline, o.estimate, /*keep_hash_ids=*/true), {}};  // relinked after
    graph::correct_times(samples, clock_analysis::edge_time_correction(c.base, samples, c.warnings));
    // The corrected times are right within the bounds only: a link whose gap is inside them is no violation.
    if (samples.size()) {
        const auto tolerance = clock_analysis::corrected_link_tolerance_ns(c.base, samples.time_ns.front(), samples.time_ns.back());
        pipeline.tolerance_ms = std::max(pipeline.tolerance_ms, static_cast<double>(tolerance) * 1e-6);
    }
    return c;
}

void print_specless_note(const std::string& why_not, const std::optional<hashtrace::infer::Evidence>& evidence, std::uint64_t edges) {
    if (!why_not.empty()) std::fprintf(stderr, "note: no --spec, and %s\n", why_not.c_str());
    std::fprintf(stderr, "note: no --spec, so every pair of tracepoints may link");
    if (evidence)
        std::fprintf(stderr, "; %llu of these %llu links join tracepoints a spec would not pair, or would keep within a thread or instance",
                     (unsigned long long)evidence->links_a_spec_removes(), (unsigned long long)edges);
    std::fputs(".\n      `hashtrace infer LOGS -o spec.toml` writes a spec from the logs, with the evidence; then\n"
               "      hashtrace analyze LOGS --spec spec.toml\n", stderr);
}

// A run that fits (or a range of one), in memory.
int run_whole(const AnalyzeOptions& o, hashtrace::cli::PipelineOptions pipeline, hashtrace::graph::AnalysisSpec spec,
              hashtrace::cli::StageTimings& timings) {
    using namespace hashtrace;
    auto samples = cli::load_stage(o.inputs, pipeline);
    timings.mark("load");
    cli::report_input_health(samples);
    const auto clocks = clock_analysis::load_clock_analysis(samples);
    if (o.by_records()) graph::correct_times(samples, clock_analysis::time_correction(clocks));
    std::optional<EdgeClocks> edge_clocks;
    // The corrected run links within the clocks' bounds; but the structure is
    // inferred with the tolerance given: within the bounds a pass-through
    // hop's reverse would link as well.
    cli::PipelineOptions linking = pipeline;
    if (o.by_edges()) {
        edge_clocks = correct_by_edges(samples, spec, o, linking);
        timings.mark("estimate");
    }
    const auto warnings = cli::check_spec_stage(spec, samples, pipeline);
    timings.mark("checks");
    // Only the HTML report, and the hint below, read the hash ids after linking (8 bytes a sample).
    const bool specless = !pipeline.spec_file;
    if (specless && o.infer_links && !o.by_edges())
        if (const auto disagreement = cli::clock_disagreement_stage(samples); disagreement.matters())
            std::fprintf(stderr, "warning: %s: the structure inferred from them is wrong across instances; --clock-correct edges "
                                 "estimates the clocks from the messages and corrects them first\n", disagreement.text().c_str());
    auto graph = cli::link_stage(samples, spec, o.infer_links ? pipeline : linking, /*keep_hash_ids=*/o.html.has_value() || specless);
    timings.mark("link");
    // Without a spec: linked again as the inferred spec would, or (--all-pairs,
    // or nothing to infer) every pair may link, with a note on how much of
    // that a spec would undo; the report draws the system either way.
    std::string why_not;
    auto inferred = o.infer_links ? infer_spec_stage(samples, graph, pipeline, why_not) : std::nullopt;
    if (inferred) {
        spec = inferred->spec;
        graph = {};  // the spec-less graph is done with: not held beside the new one
        graph = cli::link_stage(samples, spec, linking, /*keep_hash_ids=*/o.html.has_value());
        timings.mark("infer");
    } else if (o.infer_links && linking.tolerance_ms != pipeline.tolerance_ms) {
        graph = cli::link_stage(samples, spec, linking, /*keep_hash_ids=*/true);  // every pair, within the bounds
    }
    std::optional<infer::Evidence> evidence;
    if (inferred) evidence = std::move(inferred->evidence);
    else if (specless && !pipeline.keep_all) evidence = infer::gather_evidence(samples, graph);
    if (specless && !o.html) samples.drop_hash_ids();
    auto result = metrics::analyze(samples, graph, spec, o.measure);
    result.warnings = warnings;
    clock_analysis::add_clock_report(clocks, samples, o.by_records(), result);
    if (edge_clocks) {
        result.warnings.insert(result.warnings.end(), edge_clocks->warnings.begin(), edge_clocks->warnings.end());
        const auto faults = clock_analysis::check_recorded_clocks(edge_clocks->base, samples, clocks, result.first_time_ns, result.last_time_ns);
        const auto links = clock_analysis::count_corrected_links(samples, graph, std::llround(linking.tolerance_ms * 1e6));
        clock_analysis::add_edge_clock_report(edge_clocks->base, samples, faults, links, result);
    }
    timings.mark("metrics");

    cli::output_stage(result, o.files);
    if (o.html) cli::write_html_report(*o.html, samples, graph, spec, result, evidence ? &*evidence : nullptr, pipeline.threads);
    timings.mark("output");
    timings.print();
    if (inferred) print_inferred_note(*inferred, result.edges, nullptr);
    else if (specless) print_specless_note(why_not, evidence, result.edges);
    return 0;
}

int run_analyze(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const AnalyzeOptions o = read_analyze_options(args);
    cli::StageTimings timings(o.pipeline.timings);
    auto spec = cli::spec_stage(o.pipeline);
    // A run that does not fit is analysed in time shards (a range of one, --since/--until, is analysed whole).
    const bool ranged = o.pipeline.since || o.pipeline.until;
    if (const auto plan = ranged ? std::nullopt : cli::plan_stage(cli::find_log_files(o.inputs), o.sharding, o.pipeline))
        return run_sharded(o, *plan, std::move(spec), timings);
    cli::PipelineOptions pipeline = o.pipeline;
    if (!ranged) pipeline.budget_checked = true;  // the plan found that it fits
    return run_whole(o, pipeline, std::move(spec), timings);
}

}  // namespace

HASHTRACE_COMMAND("analyze", "link logs into a causality graph and print the paper's metrics", run_analyze,
                  kUsage, hashtrace::cli::kHtmlOptionsHelp, hashtrace::cli::kPipelineOptionsHelp, hashtrace::cli::kShardingOptionsHelp,
                  hashtrace::cli::kClockEstimateOptionsHelp);
