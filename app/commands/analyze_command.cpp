// `hashtrace analyze`: logs of a run -> causality graph -> the paper's metrics.
#include "command.hpp"
#include "hashtrace/clock_analysis/clock_analysis.hpp"
#include "hashtrace/infer/evidence.hpp"
#include "hashtrace/metrics/analysis.hpp"
#include "hashtrace/metrics/render.hpp"
#include "html_report_option.hpp"
#include "pipeline.hpp"

#include <cstdio>
#include <fstream>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace analyze LOGS... [--spec FILE] [--json FILE] [--markdown FILE] [--csv FILE] [--html FILE] [options]\n"
    "  Collates the logs (files or directories of *.csv / *.htlog, any mix), links samples by hash\n"
    "  (SPEC.md section 4) and prints M3, M4, M5, M8, M11, M12 and the node latency matrix.\n"
    "  --json FILE          write the SPEC.md 5b JSON\n"
    "  --markdown FILE      write the tables as Markdown\n"
    "  --csv FILE           write every statistic as section,name,statistic,value rows\n"
    "  --keep-all-targets   intervals: every reachable `to` sample, not only the earliest per instance\n"
    "  --clock-correct      correct each log's times by its clock's offset and drift, from the\n"
    "                       clock-*.htclock records next to the logs (docs/clock-sync.md); those\n"
    "                       records are always reported, with a warning for latencies below the clock error\n";

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error(path + ": cannot write");
}

int run_analyze(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    if (args.help_requested()) {
        std::printf("%s%s%s", kUsage, cli::kHtmlOptionsHelp, cli::kPipelineOptionsHelp);
        return 0;
    }
    const auto pipeline = cli::read_pipeline_options(args);
    const auto json = args.option("--json");
    const auto markdown = args.option("--markdown");
    const auto csv = args.option("--csv");
    const auto html = cli::read_html_option(args);
    metrics::MetricOptions measure;
    measure.keep_all_targets = args.flag("--keep-all-targets");
    const bool clock_correct = args.flag("--clock-correct");
    measure.threads = pipeline.threads;
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw cli::UsageError("give the logs to analyze (files or directories)");

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    auto samples = cli::load_stage(inputs, pipeline);
    timings.mark("load");
    cli::report_input_health(samples);
    const auto clocks = clocksync::load_clock_analysis(samples);
    if (clock_correct) graph::correct_times(samples, clocksync::time_correction(clocks));
    const auto warnings = cli::check_spec_stage(spec, samples, pipeline);
    timings.mark("checks");
    // Only the HTML report, and the hint below, read the hash ids after linking (8 bytes a sample).
    const bool specless = !pipeline.spec_file;
    const auto graph = cli::link_stage(samples, spec, pipeline, /*keep_hash_ids=*/html.has_value() || specless);
    timings.mark("link");
    // Without a spec every pair may link: say how much of that a spec would undo.
    const std::uint64_t unconstrained = specless && !pipeline.keep_all ? infer::gather_evidence(samples, graph).links_a_spec_removes() : 0;
    if (specless && !html) samples.drop_hash_ids();
    auto result = metrics::analyze(samples, graph, spec, measure);
    result.warnings = warnings;
    clocksync::add_clock_report(clocks, samples, clock_correct, result);
    timings.mark("metrics");

    std::fputs(metrics::render_table(result).c_str(), stdout);
    if (json) write_file(*json, metrics::render_json(result));
    if (markdown) write_file(*markdown, metrics::render_markdown(result));
    if (csv) write_file(*csv, metrics::render_csv(result));
    if (html) cli::write_html_report(*html, samples, graph, spec, result);
    timings.mark("output");
    timings.print();
    if (specless) {
        std::fprintf(stderr, "note: no --spec, so every pair of tracepoints may link");
        if (!pipeline.keep_all)
            std::fprintf(stderr, "; %llu of these %llu links join tracepoints a spec would not pair, or would keep within a thread or instance",
                         (unsigned long long)unconstrained, (unsigned long long)result.edges);
        std::fputs(".\n      `hashtrace infer LOGS -o spec.toml` writes a spec from the logs, with the evidence; then\n"
                   "      hashtrace analyze LOGS --spec spec.toml\n", stderr);
    }
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("analyze", "link logs into a causality graph and print the paper's metrics", run_analyze);
