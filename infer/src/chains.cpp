// The kept pairs as a graph of tracepoints: where values start and end, the
// widest route between them, and the intervals along those routes.
#include "hashtrace/infer/chains.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace hashtrace::infer {
namespace {

struct Arc {
    ClassId to;
    std::uint64_t links;
};

std::vector<std::vector<Arc>> kept_arcs(const Evidence& ev, bool reverse) {
    std::vector<std::vector<Arc>> arcs(ev.classes.size());
    for (const auto& p : ev.pairs)
        if (p.verdict == Verdict::kept && p.from != p.to) arcs[reverse ? p.to : p.from].push_back({reverse ? p.from : p.to, p.links});
    return arcs;
}

// From one source: per tracepoint, the best route found (most links at its
// narrowest pair, then fewest hops) and its predecessor.
struct Label {
    std::uint64_t bottleneck = 0;
    std::uint32_t hops = 0;
    ClassId previous = 0;
    bool reached = false;
};

bool better(std::uint64_t b1, std::uint32_t h1, const Label& l) {
    return !l.reached || b1 > l.bottleneck || (b1 == l.bottleneck && h1 < l.hops);
}

std::vector<Label> widest_routes(const std::vector<std::vector<Arc>>& out, ClassId source) {
    std::vector<Label> label(out.size());
    std::vector<bool> done(out.size(), false);
    label[source] = {~std::uint64_t{0}, 0, source, true};
    for (;;) {
        ClassId best = 0;
        bool any = false;
        for (ClassId c = 0; c < out.size(); ++c)
            if (!done[c] && label[c].reached && (!any || better(label[c].bottleneck, label[c].hops, label[best]))) best = c, any = true;
        if (!any) break;
        done[best] = true;
        for (const Arc& a : out[best]) {
            const std::uint64_t b = std::min(label[best].bottleneck, a.links);
            if (!done[a.to] && better(b, label[best].hops + 1, label[a.to])) label[a.to] = {b, label[best].hops + 1, best, true};
        }
    }
    return label;
}

std::vector<ClassId> path_to(const std::vector<Label>& label, ClassId source, ClassId sink) {
    std::vector<ClassId> path;
    for (ClassId c = sink; c != source; c = label[c].previous) path.push_back(c);
    path.push_back(source);
    std::reverse(path.begin(), path.end());
    return path;
}

// A kept pair off every main route (the second worker behind a queue, the
// narrower of two branches) still gets a route: the widest way from a
// source to its producer, the pair, and the widest way on from its consumer
// to a sink, so that its link and the intervals along it are proposed too.
void add_branch_routes(const Evidence& ev, const std::vector<std::vector<Arc>>& out, const std::vector<std::vector<Label>>& from_source,
                       Chains& ch) {
    std::set<std::pair<ClassId, ClassId>> covered;
    auto cover = [&](const Route& r) {
        for (std::size_t k = 0; k + 1 < r.path.size(); ++k) covered.emplace(r.path[k], r.path[k + 1]);
    };
    for (const auto& r : ch.routes) cover(r);
    for (const auto& p : ev.pairs) {
        if (p.verdict != Verdict::kept || p.from == p.to || covered.count({p.from, p.to})) continue;
        Route r{p.from, p.to, {p.from}, p.links};
        for (std::size_t k = 0; k < ch.sources.size(); ++k) {
            const auto& label = from_source[k];
            if (!label[p.from].reached) continue;
            r.source = ch.sources[k];
            r.path = path_to(label, r.source, p.from);
            r.bottleneck = std::min(p.links, label[p.from].bottleneck);
            break;
        }
        const auto onward = widest_routes(out, p.to);
        std::vector<ClassId> tail{p.to};
        for (const ClassId sink : ch.sinks) {
            if (!onward[sink].reached) continue;
            r.sink = sink;
            tail = path_to(onward, p.to, sink);
            r.bottleneck = std::min(r.bottleneck, onward[sink].bottleneck);
            break;
        }
        r.path.insert(r.path.end(), tail.begin(), tail.end());
        cover(r);
        ch.routes.push_back(std::move(r));
    }
}

}  // namespace

Chains recover_chains(const Evidence& ev) {
    Chains ch;
    const auto out = kept_arcs(ev, false), in = kept_arcs(ev, true);
    for (ClassId c = 0; c < ev.classes.size(); ++c) {
        if (!out[c].empty() && in[c].empty()) ch.sources.push_back(c);
        if (out[c].empty() && !in[c].empty()) ch.sinks.push_back(c);
        if (out[c].size() > 1) ch.fan_out.push_back(c);
        if (in[c].size() > 1) ch.fan_in.push_back(c);
    }
    std::vector<std::vector<Label>> from_source;
    for (const ClassId source : ch.sources) {
        from_source.push_back(widest_routes(out, source));
        const auto& label = from_source.back();
        for (const ClassId sink : ch.sinks)
            if (label[sink].reached) ch.routes.push_back({source, sink, path_to(label, source, sink), label[sink].bottleneck});
    }
    add_branch_routes(ev, out, from_source, ch);
    return ch;
}

std::vector<ProposedInterval> propose_intervals(const Evidence& ev, const Chains& ch, bool all_along_routes) {
    std::vector<ProposedInterval> out;
    std::set<std::pair<ClassId, ClassId>> seen;
    std::set<std::string> names;
    auto add = [&](ClassId from, ClassId to, const char* why) {
        if (from == to || !seen.emplace(from, to).second) return;
        const auto& a = ev.classes[from];
        const auto& b = ev.classes[to];
        ProposedInterval i;
        i.from = from;
        i.to = to;
        i.why = why;
        i.kind = a.node == b.node ? graph::IntervalKind::process : graph::IntervalKind::end_to_end;
        i.name = a.node == b.node ? a.node + " " + a.tracepoint + " to " + b.tracepoint : a.selector() + " to " + b.selector();
        // Names must be unique in a spec; tracepoint names could make two alike.
        for (std::string base = i.name; !names.insert(i.name).second;) i.name = base + " (" + std::to_string(out.size()) + ")";
        out.push_back(std::move(i));
    };
    for (const auto& r : ch.routes)
        for (std::size_t k = 0; k + 1 < r.path.size(); ++k) add(r.path[k], r.path[k + 1], "link");
    for (const auto& r : ch.routes) add(r.source, r.sink, "end to end");
    if (all_along_routes)
        for (const auto& r : ch.routes)
            for (std::size_t i = 0; i < r.path.size(); ++i)
                for (std::size_t j = i + 2; j < r.path.size(); ++j) add(r.path[i], r.path[j], "along the route");
    return out;
}

namespace {
// splitmix64's finaliser: ranks to well-spread values, the same every run.
std::uint64_t spread(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
}  // namespace

std::size_t keep_followed_intervals(const graph::SampleSet& samples, const graph::Graph& graph, const Evidence& ev,
                                    std::vector<ProposedInterval>& intervals, std::uint32_t starts, std::uint32_t visits) {
    const std::size_t n_classes = ev.classes.size();
    constexpr std::uint8_t kDropped = 255;
    std::vector<std::uint8_t> scope(n_classes * n_classes, kDropped);  // per (from, to): the kept pair's scope
    for (const auto& p : ev.pairs)
        if (p.verdict == Verdict::kept) scope[std::size_t(p.from) * n_classes + p.to] = static_cast<std::uint8_t>(p.scope);
    auto allowed = [&](graph::SampleIndex x, graph::SampleIndex y) {
        const auto sc = scope[std::size_t(ev.class_of[samples.tracepoint[x]]) * n_classes + ev.class_of[samples.tracepoint[y]]];
        if (sc == kDropped) return false;
        if (sc == std::uint8_t(graph::PairScope::any)) return true;
        const bool instance = samples.tracepoint_of(x).instance_id == samples.tracepoint_of(y).instance_id;
        return instance && (sc == std::uint8_t(graph::PairScope::instance) || samples.thread[x] == samples.thread[y]);
    };
    // Per start tracepoint, the targets still to find: a search stops when
    // none is left, and so do the searches of that tracepoint.
    std::vector<std::vector<bool>> wanted(n_classes);
    std::vector<std::size_t> left(n_classes, 0);
    for (const auto& i : intervals) {
        if (wanted[i.from].empty()) wanted[i.from].assign(n_classes, false);
        if (!wanted[i.from][i.to]) wanted[i.from][i.to] = true, ++left[i.from];
    }
    // Starts: about one in k samples of each start tracepoint, chosen by a
    // hash of its rank, not every k-th: a fixed stride aliases with a strict
    // alternation (a queue handing frames to two workers in turn, k even:
    // every start one worker's, the other's intervals dropped).
    std::vector<std::vector<graph::SampleIndex>> start_of(n_classes);
    std::vector<std::uint64_t> seen(n_classes, 0);
    for (graph::SampleIndex s = 0; s < samples.size(); ++s) {
        const ClassId c = ev.class_of[samples.tracepoint[s]];
        if (!left[c]) continue;
        const std::uint64_t every = std::max<std::uint64_t>(1, ev.classes[c].samples / starts);
        if (spread(seen[c]++) % every == 0 && start_of[c].size() < starts) start_of[c].push_back(s);
    }
    std::vector<std::uint32_t> stamp(samples.size(), 0);
    std::uint32_t search = 0;
    std::vector<graph::SampleIndex> queue;
    for (ClassId from = 0; from < n_classes; ++from) {
        for (std::size_t k = 0; k < start_of[from].size() && left[from]; ++k) {
            const graph::SampleIndex start = start_of[from][k];
            ++search;
            queue.assign(1, start);
            stamp[start] = search;
            for (std::size_t head = 0; head < queue.size() && queue.size() < visits && left[from]; ++head) {
                for (const graph::Edge& e : graph.out(queue[head])) {
                    if (stamp[e.to] == search || !allowed(e.from, e.to)) continue;
                    const ClassId cy = ev.class_of[samples.tracepoint[e.to]];
                    stamp[e.to] = search;
                    if (wanted[from][cy]) wanted[from][cy] = false, --left[from];
                    queue.push_back(e.to);
                }
            }
        }
    }
    const std::size_t before = intervals.size();
    std::erase_if(intervals, [&](const ProposedInterval& i) { return wanted[i.from][i.to]; });
    return before - intervals.size();
}

}  // namespace hashtrace::infer
