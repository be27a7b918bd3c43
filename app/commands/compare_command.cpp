// `hashtrace compare RUN_A RUN_B ...`: configurations side by side with
// significance tests (the paper's Table 5). Each RUN is a directory of logs
// (or one log file): the raw observations are needed for the tests, which an
// analysis JSON does not hold.
#include "command.hpp"
#include "hashtrace/metrics/compare.hpp"
#include "hashtrace/report/build.hpp"
#include "hashtrace/report/html_report.hpp"
#include "output.hpp"
#include "pipeline.hpp"

#include <cstdio>
#include <filesystem>
#include <ostream>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace compare RUN_A RUN_B [RUN_C ...] [--spec FILE] [--markdown FILE] [options]\n"
    "  Each RUN is a directory of logs (or a log file) of one configuration, analysed with the same\n"
    "  spec. Prints mean and sd per metric and run, names the best run, and tests whether the\n"
    "  runs differ: Welch's t-test for two runs, one-way ANOVA for more (p-values; M8 and M12 are\n"
    "  one number per run and are not tested), and gives each run's difference of means from the\n"
    "  first run with its 95% confidence interval (the effect size beside the p-value).\n"
    "  --markdown FILE      write the comparison as a Markdown table\n"
    "  --html FILE          write the runs' metric and interval tables side by side as an HTML page\n";

int run_compare(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    const auto pipeline = cli::read_pipeline_options(args);
    const auto markdown = args.option("--markdown");
    const auto html = args.option("--html");
    const auto runs_in = args.positionals();
    args.finish();
    if (runs_in.size() < 2) throw cli::UsageError("give at least two runs to compare");

    cli::StageTimings timings(pipeline.timings);
    const auto spec = cli::spec_stage(pipeline);
    metrics::MetricOptions measure;
    measure.keep_values = true;
    measure.threads = pipeline.threads;
    std::vector<metrics::NamedRun> runs;
    for (const auto& run : runs_in) {
        auto samples = cli::load_stage({run}, pipeline);
        timings.mark("load");
        cli::report_input_health(samples);
        const auto warnings = cli::check_spec_stage(spec, samples, pipeline);
        for (const auto& w : warnings) std::fprintf(stderr, "warning: %s: %s\n", run.c_str(), w.c_str());
        const auto graph = cli::link_stage(samples, spec, pipeline, /*keep_hash_ids=*/false);
        timings.mark("link");
        auto name = std::filesystem::path(run).filename().string();
        if (name.empty()) name = std::filesystem::path(run).parent_path().filename().string();
        runs.push_back({name, metrics::analyze(samples, graph, spec, measure)});
        timings.mark("metrics");
    }
    const auto comparison = metrics::compare(runs);
    std::fputs(metrics::render_comparison_table(comparison).c_str(), stdout);
    if (markdown) cli::write_file(*markdown, metrics::render_comparison_markdown(comparison));
    if (html) {
        std::string title = "hashtrace compare:";
        for (const auto& r : runs) title += " " + r.name;
        cli::write_file(*html, [&](std::ostream& out) { report::write_report_html(report::comparison_report(title, runs), out); });
    }
    timings.mark("output");
    timings.print();
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("compare", "compare runs side by side with Welch/ANOVA significance (Table 5)", run_compare,
                  kUsage, hashtrace::cli::kPipelineOptionsHelp);
