// hashtrace/infer/chains.hpp - structure recovery, step 2: the kept pairs as a
// system: sources, sinks, the main route from each source to each sink it
// reaches, fan-out and fan-in points, and the intervals a spec should measure.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/infer/evidence.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::infer {

struct Route {
    ClassId source = 0, sink = 0;
    std::vector<ClassId> path;      // source ... sink, along kept pairs
    std::uint64_t bottleneck = 0;   // fewest links of any pair on it
};

struct ProposedInterval {
    std::string name;
    ClassId from = 0, to = 0;
    graph::IntervalKind kind = graph::IntervalKind::process;  // process within one node, end_to_end across nodes
    std::string why;  // "link", "end to end", "along the route"
};

struct Chains {
    std::vector<ClassId> sources;  // kept outgoing pairs, no kept incoming ones (self-loops aside)
    std::vector<ClassId> sinks;    // kept incoming pairs, no kept outgoing ones
    std::vector<ClassId> fan_out;  // more than one kept outgoing pair
    std::vector<ClassId> fan_in;   // more than one kept incoming pair
    // One per (source, sink) it reaches: the widest path (most links at its
    // narrowest), then the shortest; then one through each kept pair no such
    // main route takes (a parallel branch), from a source and on to a sink.
    std::vector<Route> routes;
};

Chains recover_chains(const Evidence& evidence);

// One interval per consecutive pair of every main route, one from each source
// to each sink it reaches, and with `all_along_routes` one for every ordered
// pair of tracepoints along a route; each (from, to) once, in route order.
std::vector<ProposedInterval> propose_intervals(const Evidence& evidence, const Chains& chains, bool all_along_routes);

// Tracepoints joined by a route need not be joined by any sample's path (a
// router's tracepoints carry flows that never meet). Keeps the intervals
// whose `to` is reached from some of up to `starts` samples of their `from`
// (spread over the run by a hash of their rank), each search visiting at most `visits` samples along
// the links of kept pairs within their scopes; returns how many it dropped.
// `graph` is the spec-less graph when !evidence.needs_relinking(), else the
// run linked with the kept pairs (the spec's own links).
std::size_t keep_followed_intervals(const graph::SampleSet& samples, const graph::Graph& graph, const Evidence& evidence,
                                    std::vector<ProposedInterval>& intervals, std::uint32_t starts = 64, std::uint32_t visits = 4096);

}  // namespace hashtrace::infer
