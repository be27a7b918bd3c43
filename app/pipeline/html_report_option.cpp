#include "html_report_option.hpp"

#include "hashtrace/graph/load.hpp"
#include "hashtrace/report/html_report.hpp"
#include "output.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace hashtrace::cli {

const char* const kHtmlOptionsHelp =
    "  --html FILE          write a self-contained HTML report (docs/report.md)\n"
    "  --html-title TEXT    its title (default: the first input's name)\n"
    "  --html-window A:B    embed every sample of seconds A..B after the first sample and open the\n"
    "                       space-time diagram there (default: around the slowest message)\n"
    "  --top-k N            slowest messages listed with their routes (default 10)\n"
    "  --idle-ms X          a node silent longer than X ms is an idle gap (default 100)\n";

std::pair<double, double> parse_window(const std::string& text) {
    const auto colon = text.find(':');
    std::size_t used_from = 0, used_to = 0;
    double from = 0, to = 0;
    try {
        if (colon == std::string::npos) throw std::invalid_argument("no colon");
        from = std::stod(text.substr(0, colon), &used_from);
        to = std::stod(text.substr(colon + 1), &used_to);
    } catch (const std::exception&) {
        throw UsageError("--html-window wants FROM:TO in seconds, not '" + text + "'");
    }
    if (used_from != colon || used_to != text.size() - colon - 1 || !std::isfinite(from) || !std::isfinite(to) ||
        !(from < to))
        throw UsageError("--html-window wants FROM:TO in seconds with FROM < TO, not '" + text + "'");
    return {from, to};
}

std::optional<HtmlReportRequest> read_html_option(Args& args) {
    const auto file = args.option("--html");
    const auto title = args.option("--html-title");
    const auto window = args.option("--html-window");
    // Sentinels tell "not given" from a value.
    const long long top_k = args.integer("--top-k", -1);
    const double idle_ms = args.number("--idle-ms", std::nan(""));
    if (!file) {
        // The companions alone would silently do nothing.
        if (title || window || top_k != -1 || !std::isnan(idle_ms))
            throw UsageError("--html-title, --html-window, --top-k and --idle-ms need --html FILE");
        return std::nullopt;
    }
    HtmlReportRequest request;
    request.file = *file;
    if (title) request.options.title = *title;
    if (top_k != -1) {
        if (top_k < 0 || top_k > 1000) throw UsageError("--top-k must be between 0 and 1000");
        request.options.top_k = static_cast<std::size_t>(top_k);
    }
    if (!std::isnan(idle_ms)) {
        if (!(idle_ms > 0) || !std::isfinite(idle_ms)) throw UsageError("--idle-ms must be a number > 0");
        request.options.idle_threshold_ms = idle_ms;
    }
    if (window) request.window_s = parse_window(*window);
    return request;
}

namespace {

// --html-window's seconds since the run's first sample, in UTC ns.
std::pair<std::int64_t, std::int64_t> window_ns(std::pair<double, double> window_s, std::int64_t first_ns) {
    return {first_ns + std::llround(window_s.first * 1e9), first_ns + std::llround(window_s.second * 1e9)};
}

void write_report_file(const HtmlReportRequest& request, const report::ReportData& data) {
    write_file(request.file, [&](std::ostream& out) { report::write_report_html(data, out); });
    if (request.window_s && !data.space_time.detail_window)
        std::fprintf(stderr, "warning: --html-window %g:%g holds more than %zu samples: the report shows it as density\n",
                     request.window_s->first, request.window_s->second, request.options.max_ticks);
}

// The sharded report's window: the one asked for, else the first shard's;
// refused when the budget cannot hold it.
shard::TimeRange report_window(const HtmlReportRequest& request, const ShardPlan& plan) {
    if (!request.window_s) return plan.shards.front();
    const auto [from, to] = window_ns(*request.window_s, plan.run.first_ns);
    const shard::TimeRange range{from, to};
    if (shard::samples_in(plan.run, range) * kBytesPerSample > plan.budget) {
        char text[160];
        std::snprintf(text, sizeof text, "--html-window %g:%g holds more samples than --memory-budget %s holds: ask for a shorter window",
                      request.window_s->first, request.window_s->second, size_text(plan.budget).c_str());
        throw UsageError(text);
    }
    return range;
}

}  // namespace

void write_html_report(const HtmlReportRequest& request, const graph::SampleSet& samples, const graph::Graph& graph,
                       const graph::AnalysisSpec& spec, const metrics::AnalysisResult& result, const infer::Evidence* specless_evidence,
                       unsigned threads) {
    auto options = request.options;
    if (request.window_s && samples.size()) options.detail_window_ns = window_ns(*request.window_s, samples.time_ns.front());
    auto data = report::build_report(samples, graph, spec, result, options);
    data.critical_paths = report::critical_path_section(samples, graph, spec, threads);
    if (specless_evidence) data.system = report::system_section(*specless_evidence);
    write_report_file(request, data);
}

void write_sharded_html_report(const HtmlReportRequest& request, const ShardPlan& plan, const ShardedAnalysis& analysis,
                               const graph::AnalysisSpec& spec, const PipelineOptions& pipeline) {
    const shard::TimeRange window = report_window(request, plan);
    graph::LoadOptions load;
    load.lenient = pipeline.lenient;
    load.threads = pipeline.threads;
    load.from_ns = window.from_ns;
    load.to_ns = window.to_ns;
    const graph::SampleSet samples = graph::load_samples(plan.files, load);
    graph::LinkOptions link;
    link.tolerance_ns = std::llround(pipeline.tolerance_ms * 1e6);
    link.threads = pipeline.threads;
    const graph::Graph graph = graph::link(samples, spec, link);
    auto options = request.options;
    options.run_first_ns = plan.run.first_ns;
    if (request.window_s) options.detail_window_ns = std::pair{window.from_ns, window.to_ns};
    auto data = report::build_report(samples, graph, spec, analysis.result, options);
    data.critical_paths = report::critical_path_section(samples, graph, spec, pipeline.threads);
    report::cover_whole_run(data, analysis.summary, {window.from_ns, window.to_ns}, options);
    write_report_file(request, data);
}

}  // namespace hashtrace::cli
