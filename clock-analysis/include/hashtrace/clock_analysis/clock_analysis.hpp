// hashtrace/clock_analysis/clock_analysis.hpp - clock records in `hashtrace analyze`.
//
//   auto samples = load_stage(...);
//   auto clocks = hashtrace::clock_analysis::load_clock_analysis(samples);       // clock files next to the logs
//   if (clock_correct) hashtrace::graph::correct_times(samples, hashtrace::clock_analysis::time_correction(clocks));
//   ... link, analyze ...
//   hashtrace::clock_analysis::add_clock_report(clocks, samples, clock_correct, result);
//
// The report (an ExtraSection "clock_sync") gives each clock's sync error over
// the run; the warnings name node pairs whose latency is smaller than their
// clocks' combined error bound, and nodes whose clock error is unknown.
#pragma once

#include "hashtrace/clocksync/clock_quality.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/metrics/analysis.hpp"

#include <map>
#include <optional>
#include <string>

namespace hashtrace::clock_analysis {

struct ClockAnalysis {
    clocksync::RunClocks clocks;  // report_of_log is indexed like SampleSet::files
};

ClockAnalysis load_clock_analysis(const graph::SampleSet& samples);

// Per file: its clock's offset + drift correction; identity for files whose
// clock is the reference, unknown or ambiguous.
graph::TimeCorrection time_correction(const ClockAnalysis& analysis);

// A node's clock error bound: the largest over the files holding its samples
// (corrected or not); nullopt when any of them has no measured clock.
struct NodeClock {
    std::optional<std::int64_t> bound_ns;
    std::vector<std::size_t> reports;  // the clock tracks its files use
};
std::map<std::string, NodeClock> node_clocks(const ClockAnalysis& analysis, const graph::SampleSet& samples, bool corrected);

// Pure: warnings for cross-node latencies not larger than the combined error
// bound of the two nodes' clocks (0 when both nodes share one clock).
std::vector<std::string> latency_warnings(const std::vector<metrics::NodeLatency>& latencies,
                                          const std::map<std::string, NodeClock>& nodes);

// Adds the "clock_sync" section and the warnings to an analysis result.
// Does nothing when the run has no clock files at all.
void add_clock_report(const ClockAnalysis& analysis, const graph::SampleSet& samples, bool corrected,
                      metrics::AnalysisResult& result);

}  // namespace hashtrace::clock_analysis
