// hashtrace/clock_analysis/edge_estimate.hpp - the time base of a linked run
// for the commands: `hashtrace clock estimate` (text, JSON) and
// `hashtrace analyze --clock-correct edges` (correction, latency bounds, and
// the check of recorded PTP/PPS corrections against the messages).
//
//   auto base = estimate_from_graph(samples, graph, options);   // link with a tolerance first
//   graph::correct_times(samples, edge_time_correction(base, samples, warnings));
//   ... link again, analyze ...
//   add_edge_clock_report(base, samples, records, result);
#pragma once

#include "hashtrace/clock_analysis/clock_analysis.hpp"
#include "hashtrace/clock_analysis/time_base.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/metrics/analysis.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::clock_analysis {

// "Node/instance".
std::string instance_name(const graph::SampleSet& samples, std::uint32_t instance);

// --reference NODE or NODE/INSTANCE: of a node's instances, the one with the
// most messages. Throws std::invalid_argument when nothing matches.
std::uint32_t resolve_reference(const graph::SampleSet& samples, const std::vector<InstanceMessages>& messages,
                                const std::string& reference);

// confirmed_by: see message_times.
TimeBase estimate_from_graph(const graph::SampleSet& samples, const graph::Graph& graph, const std::optional<std::string>& reference,
                             const graph::Graph* confirmed_by = nullptr, const FitOptions& fit = {});

// Re-linking per piece (docs/clock-sync.md section 8). The first linking
// admits one tolerance over the whole run on the clocks as they are; where
// hashes are reused, a step (or an offset the tolerance had to cover) makes
// it pick wrong producers or none, and the estimate built on them is wrong
// or blind there. So: each placed instance's times are moved onto the
// reference's clock piece by piece (`base`), the run is linked again, and
// the clocks are estimated again from those links on the recorded times;
// repeated while the links change, at most `max_rounds` times, and a round
// whose estimate places fewer instances or refuses more pairs is not taken.
// The window of the linking: the bounds' tolerance (corrected_link_tolerance_ns),
// widened to a quarter of `reuse_ns` (the shortest period at which a
// producer repeats a hash value) up to `max_tolerance_ns`: on corrected
// times a message's producer is that near and the next use of its hash
// farther, so a change the estimate has not found yet (a step) is still
// linked right, and found in the next round. Pairs with an instance not
// placed keep the first links (`first`). `link(copy, tolerance_ns)` links a
// time-corrected copy of the samples (which hold their hash ids).
using LinkCorrected = std::function<graph::Graph(graph::SampleSet& corrected, std::int64_t tolerance_ns)>;
struct Relinked {
    TimeBase base;
    std::uint64_t changed_edges = 0;  // message edges in the first links or the last, not both
    unsigned rounds = 0;              // linkings done (0: none was needed)
};
Relinked relink_by_pieces(const graph::SampleSet& samples, const std::vector<InstanceMessages>& first, TimeBase base,
                          const LinkCorrected& link, const EstimateOptions& options, std::int64_t reuse_ns,
                          std::int64_t max_tolerance_ns, unsigned max_rounds = 3);

// The estimate of `estimate_from_graph`, then re-linked per piece where the
// first estimate found a piece or `confirmed_by` says the first linking had
// to admit a tolerance (max_tolerance_ns: that tolerance, the widest window
// the re-linking may use). TimeBase::relinked_edges says what changed.
TimeBase estimate_and_relink(const graph::SampleSet& samples, const graph::Graph& graph, const std::optional<std::string>& reference,
                             const LinkCorrected& link, std::int64_t max_tolerance_ns, const graph::Graph* confirmed_by = nullptr,
                             const FitOptions& fit = {});

// Conventions (docs/clock-sync.md): offset_ns = instance clock - reference
// clock at the reference's first sample; drift_ppm = (rate / reference rate
// - 1) x 1e6; offset_lo_ns / offset_hi_ns bound offset_ns (null: unbounded).
std::string render_estimate_text(const TimeBase& base, const graph::SampleSet& samples);
std::string render_estimate_json(const TimeBase& base, const graph::SampleSet& samples);  // {"reference", "origin_ns", "clock_estimates", "warnings"[, "relinked_edges"]}

// Per file: its instance's timestamps on the reference's clock. Files whose
// instance is not placed (or that mix instances) are left as they are, with
// a warning each.
graph::TimeCorrection edge_time_correction(const TimeBase& base, const graph::SampleSet& samples, std::vector<std::string>& warnings);

// Linking the corrected run: a receive may still precede its send by as much
// as the two instances' error bounds together, so links are admitted that
// far back (the two largest bounds over [first_ns, last_ns], rounded up).
// 0 when fewer than two instances are placed with bounds. The bounds are
// taken at the ends and at every later piece's start, plus the size of its
// change there: a sample stamped near a step may be corrected by the wrong side.
std::int64_t corrected_link_tolerance_ns(const TimeBase& base, std::int64_t first_ns, std::int64_t last_ns);

// The links of the corrected run whose consumer is stamped before its
// producer: admitted because the gap lies inside the clocks' bounds.
struct CorrectedLinks {
    std::int64_t tolerance_ns = 0;
    std::uint64_t admitted = 0;           // links with a negative gap
    std::int64_t most_negative_ns = 0;    // the largest such gap (<= 0)
};
CorrectedLinks count_corrected_links(const graph::SampleSet& samples, const graph::Graph& graph, std::int64_t tolerance_ns);

// A recorded (PTP/PPS) correction that disagrees with the messages: over
// [first_ns, last_ns] the records' offset of the instance from the reference
// lies outside the bounds the messages allow, so correcting by the records
// would put receives before sends.
struct ClockFault {
    std::uint32_t instance = 0;
    std::int64_t first_ns = 0, last_ns = 0;
    long double worst_outside_ns = 0;  // the largest distance outside the bounds
};
// Checked every `step_ns` over the run. Instances whose clock has no recorded
// correction are not checked; the reference's recorded offset (0 for a
// grandmaster) is subtracted.
std::vector<ClockFault> check_recorded_clocks(const TimeBase& base, const graph::SampleSet& samples,
                                              const clock_analysis::ClockAnalysis& records, std::int64_t first_ns,
                                              std::int64_t last_ns, std::int64_t step_ns = 1'000'000'000);

// The "clock_edges" section of `analyze --clock-correct edges`: every
// instance's estimate, every cross-node latency (node latency matrix) with
// its clock error bound, and the faults; warnings for latencies not larger
// than their bound and for the faults.
void add_edge_clock_report(const TimeBase& base, const graph::SampleSet& samples, const std::vector<ClockFault>& faults,
                           const CorrectedLinks& links, metrics::AnalysisResult& result);

}  // namespace hashtrace::clock_analysis
