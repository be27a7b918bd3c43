// hashtrace/graph/route.hpp - route queries: from one sample, the recovered
// route downstream and upstream (the paper's Figure 5), as DOT and text.
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::graph {

// The first sample (in time) matching `selector` at or after `after_ns`.
std::optional<SampleIndex> find_sample(const SampleSet& samples, const Selector& selector, std::int64_t after_ns);

struct RouteOptions {
    std::uint32_t max_hops = 64;      // per direction: loop-counter chains may span the whole run
    std::uint32_t max_samples = 2000; // per direction
};

struct Route {
    SampleIndex origin = 0;
    std::vector<SampleIndex> samples;  // origin, upstream and downstream samples, sorted by time
    std::vector<Edge> edges;           // edges among them
    bool truncated = false;            // a limit of RouteOptions was reached
};

Route trace_route(const SampleSet& samples, const Graph& graph, SampleIndex origin, const RouteOptions& options = {});

std::string render_route_dot(const SampleSet& samples, const Route& route);
std::string render_route_text(const SampleSet& samples, const Route& route);

}  // namespace hashtrace::graph
