// hashtrace/clock_analysis/edge_constraints.hpp - the send and receive times of
// every message between two process instances: the facts about their clocks
// that a linked run holds (a message is received after it was sent).
#pragma once

#include "hashtrace/clock_analysis/convex_hull.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"

#include <cstdint>
#include <vector>

namespace hashtrace::clock_analysis {

struct Message {
    std::int64_t send_ns = 0;     // on the sender's clock
    std::int64_t receive_ns = 0;  // on the receiver's clock
};

// Messages from one instance to another (SampleSet::instances indices), in
// send order. Edges within one instance (across its threads) share a clock
// and say nothing; they are left out.
struct InstanceMessages {
    std::uint32_t from = 0, to = 0;
    std::vector<Message> messages;
};

// One list per ordered pair of instances with at least one message edge,
// ordered by (from, to). Pure: reads the samples' times and the graph. A
// message its producer put out several times in a row (one send per
// receiver) is dated by the first of them, where the samples hold their
// hash ids: by clocks apart the latest before a receive may be a send made
// after it.
//
// With `confirmed_by`: `graph` was linked with a tolerance for clock offsets
// (a receive may precede its send) and `confirmed_by` as the clocks say, on
// the same samples. A reused hash then may link a later producer within the
// tolerance, so an edge a -> b is kept only where `confirmed_by` does not
// link b to another producer of a's instance (it links the same one, or,
// where the offset hid it, none).
// threads: workers over the edges (0 = all cores).
std::vector<InstanceMessages> message_times(const graph::SampleSet& samples, const graph::Graph& graph,
                                            const graph::Graph* confirmed_by = nullptr, unsigned threads = 0);

// The constraints on theta = other - axis (pair_estimate.hpp): upper points
// (s, r - s) from axis -> other messages, lower points (r', s' - r') from
// other -> axis messages, each sorted by x.
std::vector<Point> upper_points(const std::vector<Message>& axis_to_other);
std::vector<Point> lower_points(const std::vector<Message>& other_to_axis);

}  // namespace hashtrace::clock_analysis
