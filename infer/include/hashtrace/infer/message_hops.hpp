// hashtrace/infer/message_hops.hpp - which tracepoint sends a message to
// which, across node instances, found from the hashes alone and not from the
// times: what the clocks are estimated from when no spec says it (`clock
// estimate`, `analyze --clock-correct edges` and `infer` on logs whose clocks
// disagree).
//
// Why not from times: a receive is linked to the latest send before it, and
// clocks tens of ms apart put receives before their sends. Worse, a
// pass-through hop (a router or queue that forwards a message with its hash
// unchanged) looks the same both ways: A's send -> B's receive, or B's
// receive -> A's send, a gap of +d or -d, and only the clocks would tell.
//
// A message's journey tells instead. The sample that makes a hash (output h,
// input not h) comes first; every other sample with h comes after it in
// true time, whatever the clocks say. The samples that take h in and give
// something else out (a consumer) end the journey. So when a message visits,
// besides its maker's instance, at most one instance that only passes it on
// and at most one that consumes it, the order is known: maker -> router ->
// consumer. Each hop joins the last sample with h on one instance (within an
// instance one clock orders them) to the first on the next. Where the order
// is not known (two pass-through instances, or several consumers), only the
// hops from the maker, which are certain, are kept.
//
// A hash made by more than one sample (a reused counter, ids from two
// spaces hashed alike) is left out: its journeys cannot be told apart.
#pragma once

#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <vector>

namespace hashtrace::infer {

struct HopPair {
    graph::Selector from, to;           // node/tracepoint, across node instances
    std::uint64_t hops = 0;
    std::uint64_t received_before_sent = 0;  // by the logs' clocks
};

struct MessageHops {
    std::vector<HopPair> pairs;  // most hops first; pairs with too few hops to trust left out
    std::uint64_t messages = 0;              // hashes followed across instances
    std::uint64_t order_unknown = 0;         // of those, only their maker's hops kept
    std::uint64_t hashes_made_twice = 0;     // left out
    std::uint64_t hops = 0, received_before_sent = 0;

    // The pairs as a spec's [[pair]] rules (scope any).
    graph::AnalysisSpec spec() const;
};

// Needs the samples' hash ids (before link_stage drops them).
MessageHops find_message_hops(const graph::SampleSet& samples);

}  // namespace hashtrace::infer
