// hashtrace/clock_analysis/time_base.hpp - every instance's clock relative to
// one reference instance, from the messages of a linked run.
//
//   auto messages = message_times(samples, graph);                  // edge_constraints.hpp
//   auto base = estimate_time_base(messages, first_sample_ns(samples), {});
//   base.at(instance, t)            // offset, drift, guaranteed bounds at reference time t
//   base.to_reference(instance, t)  // an instance's timestamp on the reference's clock
//
// Each pair of instances with messages both ways is fitted (pair_estimate.hpp)
// on either clock. Where messages go one way only, a path of messages back
// (a cycle A -> B -> C -> A) bounds the other side: a message from A received
// at r on B's clock, then B's clock at r mapped to C's clock by an upper
// bound of B -> C's theta there, is a virtual message A -> C that is
// received no earlier than it really was (clocks run forward), so it is as
// safe a constraint as a direct one. That bound holds across steps: cones
// first, then each hop's convex envelope per piece of its pair as the cones
// fitted it (src/hop_envelope.hpp). Instances are placed by the paths from
// the reference whose summed bound widths are smallest (Dijkstra).
#pragma once

#include "hashtrace/clock_analysis/edge_constraints.hpp"
#include "hashtrace/clock_analysis/pair_estimate.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::clock_analysis {

// One fitted pair, theta = other - axis on the axis clock.
struct DirectedFit {
    std::uint32_t axis = 0, other = 0;
    PairFit fit;
    std::size_t direct_upper = 0, direct_lower = 0;  // messages axis -> other, other -> axis
    std::size_t cycle_upper = 0, cycle_lower = 0;    // virtual ones, from cycles (when a direction has none)
};

struct ClockPiece {
    std::int64_t from_ns = 0;  // reference time where the piece starts
    long double offset_ns = 0, drift_ppm = 0;
    Bounds bounds;  // on offset_ns
};

struct InstanceClock {
    std::uint32_t instance = 0;
    bool placed = false;             // has an estimate with both bounds
    std::optional<long double> offset_ns, drift_ppm;  // at the origin (placed only)
    Bounds bounds;                   // on the offset at the origin; one side for an instance bounded one way only
    std::size_t messages_used = 0;   // direct messages of the fits on its path
    std::vector<ClockPiece> pieces;  // placed only
    std::vector<std::size_t> path;   // indices into TimeBase::fits, from the reference
    std::string note;                // why it is not placed
};

struct ClockAt {
    std::optional<long double> offset_ns;  // instance clock - reference clock
    long double rate = 0;                  // instance rate / reference rate - 1
    Bounds bounds;
};

struct TimeBase {
    std::uint32_t reference = 0;
    std::int64_t origin_ns = 0;             // the reference's first sample
    std::vector<DirectedFit> fits;
    std::vector<InstanceClock> clocks;      // one per instance
    std::vector<std::string> warnings;      // refusals and instances that cannot be placed (names by the caller's namer)
    // Set by re-linking per piece (edge_estimate.hpp): message edges it
    // changed, and the linkings it did; nullopt when it did not run.
    std::optional<std::uint64_t> relinked_edges;
    unsigned relink_rounds = 0;

    ClockAt at(std::uint32_t instance, std::int64_t reference_ns) const;
    // The reference time of an instance's timestamp; nullopt unless placed.
    std::optional<std::int64_t> to_reference(std::uint32_t instance, std::int64_t local_ns) const;
    // The largest distance of the estimate from a bound over [first, last]
    // (the widths are convex in time, so the ends hold it); nullopt unless placed.
    std::optional<long double> error_bound(std::uint32_t instance, std::int64_t first_ns, std::int64_t last_ns) const;
};

struct EstimateOptions {
    std::optional<std::uint32_t> reference;  // default: the instance with the most messages
    FitOptions fit;
    std::size_t max_cycle_hops = 4;          // the longest path back that closes a cycle
};

// first_sample_ns: per instance (the origin is the reference's); names: per
// instance, for warnings. Pure.
TimeBase estimate_time_base(const std::vector<InstanceMessages>& messages, const std::vector<std::int64_t>& first_sample_ns,
                            const std::vector<std::string>& names, const EstimateOptions& options = {});

// The first sample time of each instance of a run.
std::vector<std::int64_t> first_sample_ns(const graph::SampleSet& samples);

}  // namespace hashtrace::clock_analysis
