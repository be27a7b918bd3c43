// Route queries: breadth-first walks from one sample, bounded because a
// loop-counter chain can make the whole run reachable.
#include "hashtrace/graph/route.hpp"

#include "hashtrace/logio/reader.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace hashtrace::graph {
namespace {

std::string ms_text(std::int64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.3f ms", double(ns) / 1e6);
    return buf;
}

std::string hash_text(const SampleSet& s, HashId id) {
    if (id == kNoHash) return "-";
    if (id >= s.hash_values.size()) return "#" + std::to_string(id);
    const auto hex = to_hex(s.hash_values[id]);
    return std::string(hex.data(), hex.size());
}

std::string escape_dot(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

// Visits up to the limits; returns whether a limit cut the walk short.
template <typename Next>
bool walk(SampleIndex origin, const RouteOptions& options, std::unordered_set<SampleIndex>& seen, Next&& next) {
    std::deque<std::pair<SampleIndex, std::uint32_t>> queue{{origin, 0}};
    std::size_t visited = 0;
    bool truncated = false;
    while (!queue.empty()) {
        const SampleIndex s = queue.front().first;
        const std::uint32_t hops = queue.front().second;
        queue.pop_front();
        next(s, [&](SampleIndex n) {
            if (seen.count(n)) return;
            if (hops + 1 > options.max_hops || visited >= options.max_samples) {
                truncated = true;
                return;
            }
            seen.insert(n);
            ++visited;
            queue.emplace_back(n, hops + 1);
        });
    }
    return truncated;
}

}  // namespace

std::optional<SampleIndex> find_sample(const SampleSet& samples, const Selector& selector, std::int64_t after_ns) {
    std::vector<bool> match(samples.tracepoints.size());
    for (std::size_t t = 0; t < samples.tracepoints.size(); ++t)
        match[t] = selector.matches(samples.tracepoints[t].node_name, samples.tracepoints[t].tracepoint_name);
    std::optional<SampleIndex> best;
    for (SampleIndex i = 0; i < samples.size(); ++i)
        if (match[samples.tracepoint[i]] && samples.time_ns[i] >= after_ns && (!best || samples.time_ns[i] < samples.time_ns[*best]))
            best = i;
    return best;
}

Route trace_route(const SampleSet& samples, const Graph& graph, SampleIndex origin, const RouteOptions& options) {
    Route route;
    route.origin = origin;
    std::unordered_set<SampleIndex> down{origin}, up{origin};
    route.truncated |= walk(origin, options, down, [&](SampleIndex s, auto&& visit) {
        for (const Edge& e : graph.out(s)) visit(e.to);
    });
    route.truncated |= walk(origin, options, up, [&](SampleIndex s, auto&& visit) {
        graph.for_each_in(s, [&](const Edge& e) { visit(e.from); });
    });
    std::unordered_set<SampleIndex> all(down.begin(), down.end());
    all.insert(up.begin(), up.end());
    route.samples.assign(all.begin(), all.end());
    std::sort(route.samples.begin(), route.samples.end(), [&](SampleIndex a, SampleIndex b) {
        return std::pair(samples.time_ns[a], a) < std::pair(samples.time_ns[b], b);
    });
    // Only edges along the walk directions: a downstream sample's other parents are not part of the route.
    for (SampleIndex s : route.samples)
        for (const Edge& e : graph.out(s))
            if ((down.count(e.from) && down.count(e.to)) || (up.count(e.from) && up.count(e.to))) route.edges.push_back(e);
    return route;
}

std::string render_route_dot(const SampleSet& samples, const Route& route) {
    std::string out = "digraph route {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
    std::unordered_map<std::uint32_t, std::vector<SampleIndex>> by_instance;
    for (SampleIndex s : route.samples) by_instance[samples.tracepoint_of(s).instance_id].push_back(s);
    const std::int64_t t0 = samples.time_ns[route.origin];
    std::vector<std::uint32_t> instances;
    for (const auto& [inst, _] : by_instance) instances.push_back(inst);
    std::sort(instances.begin(), instances.end());
    for (std::uint32_t inst : instances) {
        const Instance& in = samples.instances[inst];
        out += "  subgraph cluster_" + std::to_string(inst) + " {\n    label=\"" + escape_dot(in.node_name + " " + in.instance) + "\";\n";
        for (SampleIndex s : by_instance[inst]) {
            out += "    s" + std::to_string(s) + " [label=\"" + escape_dot(samples.tracepoint_of(s).tracepoint_name) + "\\n" +
                   ms_text(elapsed_ns(t0, samples.time_ns[s])) + "\"" + (s == route.origin ? ", style=bold, color=red" : "") + "];\n";
        }
        out += "  }\n";
    }
    for (const Edge& e : route.edges)
        out += "  s" + std::to_string(e.from) + " -> s" + std::to_string(e.to) + " [label=\"" +
               ms_text(elapsed_ns(samples.time_ns[e.from], samples.time_ns[e.to])) + "\"];\n";
    out += "}\n";
    return out;
}

std::string render_route_text(const SampleSet& samples, const Route& route) {
    std::unordered_map<SampleIndex, std::vector<SampleIndex>> parents;
    for (const Edge& e : route.edges) parents[e.to].push_back(e.from);
    const std::int64_t t0 = samples.time_ns[route.origin];
    std::string out;
    for (SampleIndex s : route.samples) {
        const Tracepoint& tp = samples.tracepoint_of(s);
        char head[64];
        std::snprintf(head, sizeof head, "%s #%-8u %14s  ", s == route.origin ? ">" : " ", s, ms_text(elapsed_ns(t0, samples.time_ns[s])).c_str());
        out += head + tp.node_name + "[" + tp.instance + "]/" + tp.tracepoint_name;
        if (samples.thread[s] != kNoThread) out += " thread " + std::to_string(samples.thread[s]);
        out += "  t=" + logio::format_time_ns(samples.time_ns[s]) + "  in=" + hash_text(samples, samples.input[s]) +
               " out=" + hash_text(samples, samples.output[s]);
        if (auto it = parents.find(s); it != parents.end()) {
            out += "  <-";
            for (SampleIndex p : it->second) out += " #" + std::to_string(p);
        }
        out += "\n";
    }
    if (route.truncated) out += "(route truncated: raise --max-hops / --max-samples to see more)\n";
    return out;
}

}  // namespace hashtrace::graph
