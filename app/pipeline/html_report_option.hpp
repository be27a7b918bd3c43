// html_report_option.hpp - the `--html FILE` option of `hashtrace analyze`
// (and its companions), kept here so the analyze command only reads it and
// hands over its stages' results:
//
//   const auto html = hashtrace::cli::read_html_option(args);   // before args.finish()
//   ... load, link, analyze ...
//   if (html) hashtrace::cli::write_html_report(*html, samples, graph, spec, result, evidence, threads);
#pragma once

#include "hashtrace/cli/args.hpp"
#include "hashtrace/report/build.hpp"
#include "sharding.hpp"

#include <optional>
#include <string>
#include <utility>

namespace hashtrace::cli {

struct HtmlReportRequest {
    std::string file;
    report::ReportOptions options;
    std::optional<std::pair<double, double>> window_s;  // --html-window, seconds since the first sample
};

extern const char* const kHtmlOptionsHelp;

// Reads --html FILE, --html-title T, --html-window FROM:TO, --top-k N,
// --idle-ms X; nullopt without --html (the others then are usage errors).
std::optional<HtmlReportRequest> read_html_option(Args& args);

// Parses "FROM:TO" (seconds, FROM < TO); throws UsageError naming the option.
std::pair<double, double> parse_window(const std::string& text);

// With intervals in the spec the report shows their critical paths (the
// costly part: a dependence model of the run, `threads` for its walks, 0 =
// every core); `specless_evidence`, the evidence of a run analysed without a
// spec, adds the system it recovers (null: none).
void write_html_report(const HtmlReportRequest& request, const graph::SampleSet& samples, const graph::Graph& graph,
                       const graph::AnalysisSpec& spec, const metrics::AnalysisResult& result, const infer::Evidence* specless_evidence,
                       unsigned threads);

// A run analysed in time shards: the report of one window of it (the
// --html-window range, else the first shard), loaded and linked alone, with
// what covers the whole run from the merged summary (report::cover_whole_run).
// A window beyond the memory budget is a UsageError before any work.
void write_sharded_html_report(const HtmlReportRequest& request, const ShardPlan& plan, const ShardedAnalysis& analysis,
                               const graph::AnalysisSpec& spec, const PipelineOptions& pipeline);

}  // namespace hashtrace::cli
