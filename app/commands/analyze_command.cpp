// `hashtrace analyze`: logs of a run -> causality graph -> the paper's metrics.
#include "command.hpp"
#include "hashtrace/clock_analysis/clock_analysis.hpp"
#include "hashtrace/clock_analysis/edge_estimate.hpp"
#include "hashtrace/infer/evidence.hpp"
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
    "  --clock-correct      correct each log's times by its clock's offset and drift, from the\n"
    "                       clock-*.htclock records next to the logs (docs/clock-sync.md); those\n"
    "                       records are always reported, with a warning for latencies below the clock error\n"
    "  --clock-correct edges  instead, estimate every clock from the messages themselves (`hashtrace clock\n"
    "                       estimate`), correct onto the reference's clock, report each cross-node latency\n"
    "                       with its clock error bound, and check recorded PTP/PPS corrections against it\n";

int run_analyze(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    auto pipeline = cli::read_pipeline_options(args);
    const auto files = cli::read_result_files(args);
    const auto html = cli::read_html_option(args);
    metrics::MetricOptions measure;
    measure.keep_all_targets = args.flag("--keep-all-targets");
    const auto clock_correct = args.flag_or_word("--clock-correct", {"records", "edges"});
    const bool by_records = clock_correct && *clock_correct != "edges", by_edges = clock_correct && *clock_correct == "edges";
    const auto estimate = by_edges ? cli::read_clock_estimate_options(args) : cli::ClockEstimateOptions{};
    measure.threads = pipeline.threads;
    const auto sharding = cli::read_sharding_options(args);
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs to analyze (files or directories)");

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    // A run that does not fit is analysed in time shards (a range of one, --since/--until, is analysed whole).
    const bool ranged = pipeline.since || pipeline.until;
    if (const auto plan = ranged ? std::nullopt : cli::plan_stage(cli::find_log_files(inputs), sharding, pipeline)) {
        cli::refuse_unsharded_options({{"--keep-all", pipeline.keep_all},
                                       {"--keep-all-targets", measure.keep_all_targets},
                                       {"--clock-correct", clock_correct.has_value()}});
        cli::report_input_health(plan->run);
        timings.mark("index");
        const auto analysis = cli::sharded_analysis_stage(*plan, spec, pipeline, sharding);
        timings.mark("shards");
        cli::output_stage(analysis.result, files);
        if (html) cli::write_sharded_html_report(*html, *plan, analysis, spec, pipeline);
        timings.mark("output");
        timings.print();
        return 0;
    }
    if (!ranged) pipeline.budget_checked = true;  // the plan found that it fits
    auto samples = cli::load_stage(inputs, pipeline);
    timings.mark("load");
    cli::report_input_health(samples);
    const auto clocks = clocksync::load_clock_analysis(samples);
    if (by_records) graph::correct_times(samples, clocksync::time_correction(clocks));
    std::optional<clock_analysis::TimeBase> base;  // by_edges: the clocks from the messages
    std::vector<std::string> correction_warnings;
    if (by_edges) {
        base = cli::estimate_clocks_stage(samples, spec, pipeline, estimate, /*keep_hash_ids=*/true);  // relinked below
        graph::correct_times(samples, clock_analysis::edge_time_correction(*base, samples, correction_warnings));
        timings.mark("estimate");
    }
    const auto warnings = cli::check_spec_stage(spec, samples, pipeline);
    timings.mark("checks");
    // Only the HTML report, and the hint below, read the hash ids after linking (8 bytes a sample).
    const bool specless = !pipeline.spec_file;
    const auto graph = cli::link_stage(samples, spec, pipeline, /*keep_hash_ids=*/html.has_value() || specless);
    timings.mark("link");
    // Without a spec every pair may link: say how much of that a spec would
    // undo, and draw the system a spec would describe in the report.
    std::optional<infer::Evidence> evidence;
    if (specless && !pipeline.keep_all) evidence = infer::gather_evidence(samples, graph);
    if (specless && !html) samples.drop_hash_ids();
    auto result = metrics::analyze(samples, graph, spec, measure);
    result.warnings = warnings;
    clocksync::add_clock_report(clocks, samples, by_records, result);
    if (base) {
        result.warnings.insert(result.warnings.end(), correction_warnings.begin(), correction_warnings.end());
        const auto faults = clock_analysis::check_recorded_clocks(*base, samples, clocks, result.first_time_ns, result.last_time_ns);
        clock_analysis::add_edge_clock_report(*base, samples, faults, result);
    }
    timings.mark("metrics");

    cli::output_stage(result, files);
    if (html) cli::write_html_report(*html, samples, graph, spec, result, evidence ? &*evidence : nullptr, pipeline.threads);
    timings.mark("output");
    timings.print();
    if (specless) {
        std::fprintf(stderr, "note: no --spec, so every pair of tracepoints may link");
        if (evidence)
            std::fprintf(stderr, "; %llu of these %llu links join tracepoints a spec would not pair, or would keep within a thread or instance",
                         (unsigned long long)evidence->links_a_spec_removes(), (unsigned long long)result.edges);
        std::fputs(".\n      `hashtrace infer LOGS -o spec.toml` writes a spec from the logs, with the evidence; then\n"
                   "      hashtrace analyze LOGS --spec spec.toml\n", stderr);
    }
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("analyze", "link logs into a causality graph and print the paper's metrics", run_analyze,
                  kUsage, hashtrace::cli::kHtmlOptionsHelp, hashtrace::cli::kPipelineOptionsHelp, hashtrace::cli::kShardingOptionsHelp,
                  hashtrace::cli::kClockEstimateOptionsHelp);
