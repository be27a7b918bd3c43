#include "hashtrace/clock_analysis/time_base.hpp"

#include "hop_envelope.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <queue>

namespace hashtrace::clock_analysis {
namespace {

using Lists = std::map<std::pair<std::uint32_t, std::uint32_t>, const std::vector<Message>*>;

// Shortest path of direct message lists from `from` to `to` (at least two
// hops, at most max_hops), by breadth-first search; empty when none.
std::vector<std::uint32_t> path_back(const Lists& lists, std::size_t n, std::uint32_t from, std::uint32_t to, std::size_t max_hops) {
    std::vector<std::int64_t> parent(n, -1);
    std::vector<std::size_t> depth(n, 0);
    parent[from] = from;
    std::deque<std::uint32_t> queue{from};
    while (!queue.empty()) {
        const std::uint32_t u = queue.front();
        queue.pop_front();
        if (depth[u] == max_hops) continue;
        for (auto it = lists.lower_bound({u, 0}); it != lists.end() && it->first.first == u; ++it) {
            const std::uint32_t v = it->first.second;
            if (u == from && v == to) continue;  // the direct list is what is missing
            if (parent[v] != -1) continue;
            parent[v] = u;
            depth[v] = depth[u] + 1;
            if (v == to) {
                std::vector<std::uint32_t> path{to};
                while (path.back() != from) path.push_back(static_cast<std::uint32_t>(parent[path.back()]));
                std::reverse(path.begin(), path.end());
                return path;
            }
            queue.push_back(v);
        }
    }
    return {};
}

using Envelopes = std::map<std::pair<std::uint32_t, std::uint32_t>, detail::HopEnvelope>;

// Cones only (hop_envelope.hpp): true whatever the clocks do.
Envelopes cone_envelopes(const Lists& lists) {
    Envelopes envelopes;
    for (const auto& [key, list] : lists) envelopes.emplace(key, detail::HopEnvelope(upper_points(*list)));
    return envelopes;
}

// Virtual messages along a path of instances: each message of the first hop,
// carried over the later hops by their envelopes (see time_base.hpp).
std::vector<Message> compose(const Lists& lists, const Envelopes& envelopes, const std::vector<std::uint32_t>& path) {
    std::vector<Message> carried = *lists.at({path[0], path[1]});
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
        const detail::HopEnvelope& envelope = envelopes.at({path[i], path[i + 1]});
        std::vector<Message> next;
        next.reserve(carried.size());
        for (const Message& m : carried)
            // Rounded up: an upper bound stays an upper bound.
            if (const auto theta = envelope.at(m.receive_ns)) next.push_back({m.send_ns, m.receive_ns + static_cast<std::int64_t>(std::ceil(*theta))});
        carried = std::move(next);
    }
    return carried;
}

// The chain of points in any order without an array of them: messages that
// overtake each other make the stream nearly sorted, and a small min-heap by
// x sorts it; the few points later than the heap can hold are chained at the
// end with the chain's vertices (the hull of a union is the hull of its
// parts' hulls).
template <typename PointAt>
std::vector<Point> chain_of(std::size_t n, PointAt point_at, bool lower) {
    constexpr std::size_t kWindow = 64;
    const auto later = [](const Point& a, const Point& b) { return a.x > b.x; };
    ChainBuilder chain(lower);
    std::vector<Point> heap, late;
    heap.reserve(kWindow + 1);
    const auto emit = [&](const Point& p) {
        if (!chain.chain().empty() && p.x < chain.chain().back().x) late.push_back(p);  // the chain ends at the largest x so far
        else chain.add(p);
    };
    for (std::size_t i = 0; i < n; ++i) {
        heap.push_back(point_at(i));
        std::push_heap(heap.begin(), heap.end(), later);
        if (heap.size() > kWindow) {
            std::pop_heap(heap.begin(), heap.end(), later);
            emit(heap.back());
            heap.pop_back();
        }
    }
    std::sort_heap(heap.begin(), heap.end(), later);  // descending x
    for (auto it = heap.rbegin(); it != heap.rend(); ++it) emit(*it);
    if (late.empty()) return chain.take();
    late.insert(late.end(), chain.chain().begin(), chain.chain().end());
    std::sort(late.begin(), late.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    return lower ? lower_chain(late) : upper_chain(late);
}

// theta = other - axis from the messages each way: from the two chains when
// one line fits (no array of points), else from all the points (pieces).
PairFit fit_messages(const std::vector<Message>& out, const std::vector<Message>& in, std::int64_t origin_ns, const FitOptions& options) {
    auto ceiling = chain_of(out.size(), [&](std::size_t i) { return Point{out[i].send_ns, out[i].receive_ns - out[i].send_ns}; }, true);
    auto floor = chain_of(in.size(), [&](std::size_t i) { return Point{in[i].receive_ns, in[i].send_ns - in[i].receive_ns}; }, false);
    if (auto fit = fit_one_piece(std::move(ceiling), std::move(floor), out.size(), in.size(), origin_ns)) return std::move(*fit);
    return fit_pair(upper_points(out), lower_points(in), origin_ns, options);
}

std::optional<long double> add(std::optional<long double> a, std::optional<long double> b) {
    return a && b ? std::optional<long double>(*a + *b) : std::nullopt;
}

std::string format_s(std::int64_t t, std::int64_t origin) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%+.3f s", static_cast<double>(t - origin) * 1e-9);
    return buffer;
}

// The theta of one fit over a range of axis times: its bounds are concave
// (lo) and convex (hi) in time, so the range's ends hold the extremes.
Bounds bounds_over(const PairFit& fit, std::int64_t first, std::int64_t last) {
    const Bounds a = fit.piece_at(first).bounds_at(first, fit.origin_ns), b = fit.piece_at(last).bounds_at(last, fit.origin_ns);
    Bounds out;
    if (a.lo && b.lo) out.lo = std::min(*a.lo, *b.lo);
    if (a.hi && b.hi) out.hi = std::max(*a.hi, *b.hi);
    return out;
}

ClockAt along_path(const std::vector<DirectedFit>& fits, const std::vector<std::size_t>& path, std::size_t hops, std::int64_t t) {
    ClockAt out;
    long double estimate = static_cast<long double>(t);
    long double rate = 1;
    std::optional<long double> lo = 0.0L, hi = 0.0L;
    bool estimated = true;
    for (std::size_t k = 0; k < hops; ++k) {
        const PairFit& fit = fits[path[k]].fit;
        // Where the axis clock may be (bounds), and where it is estimated to be.
        const std::int64_t here = std::llround(estimate);
        const std::int64_t first = lo ? t + std::llround(std::floor(*lo)) : here, last = hi ? t + std::llround(std::ceil(*hi)) : here;
        const Bounds theta = bounds_over(fit, std::min(first, here), std::max(last, here));
        lo = add(lo, theta.lo);
        hi = add(hi, theta.hi);
        const PairPiece& piece = fit.piece_at(here);
        if (piece.estimate && estimated) {
            estimate += piece.estimate->at(here, fit.origin_ns);
            rate *= 1 + piece.estimate->rate;
        } else {
            estimated = false;
        }
    }
    if (estimated) out.offset_ns = estimate - static_cast<long double>(t);
    out.rate = rate - 1;
    out.bounds = {lo, hi};
    return out;
}

// Every pair with messages, fitted on either clock; a direction without
// messages gets the virtual ones of the shortest cycle that closes it.
std::vector<DirectedFit> fit_pairs(const Lists& lists, const Envelopes& envelopes, std::size_t n, std::int64_t origin_ns,
                                   const EstimateOptions& options) {
    std::vector<DirectedFit> fits;
    std::map<std::pair<std::uint32_t, std::uint32_t>, bool> done;
    for (const auto& [key, list] : lists) {
        const auto [x, y] = std::minmax(key.first, key.second);
        if (done[{x, y}]) continue;
        done[{x, y}] = true;
        const std::vector<Message>* to_y = lists.count({x, y}) ? lists.at({x, y}) : nullptr;
        const std::vector<Message>* to_x = lists.count({y, x}) ? lists.at({y, x}) : nullptr;
        const auto virtual_list = [&](std::uint32_t from, std::uint32_t to) {
            const auto p = path_back(lists, n, from, to, options.max_cycle_hops);
            return p.empty() ? std::vector<Message>{} : compose(lists, envelopes, p);
        };
        const std::vector<Message> xy = to_y ? std::vector<Message>{} : virtual_list(x, y);
        const std::vector<Message> yx = to_x ? std::vector<Message>{} : virtual_list(y, x);
        for (const auto& [axis, other] : {std::pair{x, y}, std::pair{y, x}}) {
            const bool from_x = axis == x;
            const auto& out = from_x ? (to_y ? *to_y : xy) : (to_x ? *to_x : yx);
            const auto& in = from_x ? (to_x ? *to_x : yx) : (to_y ? *to_y : xy);
            DirectedFit d;
            d.axis = axis;
            d.other = other;
            d.fit = fit_messages(out, in, origin_ns, options.fit);
            const bool out_direct = (from_x ? to_y : to_x) != nullptr, in_direct = (from_x ? to_x : to_y) != nullptr;
            (out_direct ? d.direct_upper : d.cycle_upper) = out.size();
            (in_direct ? d.direct_lower : d.cycle_lower) = in.size();
            fits.push_back(std::move(d));
        }
    }
    return fits;
}

// Every pair fitted. Cycles carry messages by cones first; the pairs fitted
// so show where clocks change, and the envelopes cut there carry them tighter.
std::vector<DirectedFit> fit_all_pairs(const Lists& lists, std::size_t n, std::int64_t origin_ns, const EstimateOptions& options) {
    Envelopes envelopes = cone_envelopes(lists);
    std::vector<DirectedFit> fits = fit_pairs(lists, envelopes, n, origin_ns, options);
    const bool cycles = std::any_of(fits.begin(), fits.end(), [](const DirectedFit& d) { return d.cycle_upper + d.cycle_lower > 0; });
    if (!cycles) return fits;
    for (const DirectedFit& d : fits)
        if (const auto e = envelopes.find({d.axis, d.other}); e != envelopes.end()) e->second.cut(d.fit);
    return fit_pairs(lists, envelopes, n, origin_ns, options);
}

void warn_refused_fits(TimeBase& base, const std::vector<std::string>& names) {
    for (const DirectedFit& d : base.fits)
        if (d.axis < d.other && d.fit.problem)
            base.warnings.push_back("instances " + names[d.axis] + " and " + names[d.other] + ": " + d.fit.problem->reason + ", between " +
                                    format_s(d.fit.problem->first_ns, base.origin_ns) + " and " +
                                    format_s(d.fit.problem->last_ns, base.origin_ns) + " (on " + names[d.axis] +
                                    "'s clock, from the reference's first sample): not estimated");
}

// Dijkstra from the reference over fits bounded both ways; a path's cost is
// the sum of its bound widths at the origin. Per instance, the fit that
// reaches it (-1: none).
std::vector<std::int64_t> narrowest_paths(const TimeBase& base, std::size_t n) {
    std::vector<long double> cost(n, std::numeric_limits<long double>::infinity());
    std::vector<std::int64_t> via(n, -1);
    cost[base.reference] = 0;
    using Entry = std::pair<long double, std::uint32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    queue.push({0, base.reference});
    while (!queue.empty()) {
        const auto [c, u] = queue.top();
        queue.pop();
        if (c > cost[u]) continue;
        for (std::size_t f = 0; f < base.fits.size(); ++f) {
            const DirectedFit& d = base.fits[f];
            if (d.axis != u || !d.fit.placed()) continue;
            const Bounds b = d.fit.piece_at(base.origin_ns).bounds_at(base.origin_ns, base.origin_ns);
            const long double w = c + (*b.hi - *b.lo) + 1;  // +1 ns a hop: of equal widths, fewer hops
            if (w < cost[d.other]) {
                cost[d.other] = w;
                via[d.other] = static_cast<std::int64_t>(f);
                queue.push({w, d.other});
            }
        }
    }
    return via;
}

// The fits from the reference to instance i, and whether they place it; an
// instance not placed gets the one-sided bound through a placed neighbour, if any.
std::vector<std::size_t> path_of(TimeBase& base, const std::vector<std::int64_t>& via, std::uint32_t i) {
    const auto path_to = [&](std::uint32_t to) {
        std::vector<std::size_t> path;
        for (std::uint32_t v = to; v != base.reference; v = base.fits[via[v]].axis) path.push_back(static_cast<std::size_t>(via[v]));
        std::reverse(path.begin(), path.end());
        return path;
    };
    if (i == base.reference || via[i] >= 0) {
        base.clocks[i].placed = true;
        return path_to(i);
    }
    for (std::size_t f = 0; f < base.fits.size(); ++f) {
        const DirectedFit& d = base.fits[f];
        if (d.other != i || (d.axis != base.reference && via[d.axis] < 0)) continue;
        if (d.fit.pieces.empty() || d.fit.problem) continue;
        std::vector<std::size_t> path = path_to(d.axis);
        path.push_back(f);
        return path;
    }
    return {};
}

// A placed instance's estimate at the origin, and its pieces: they start
// where any fit on its path starts one, mapped to the reference's clock.
void describe_placed(const TimeBase& base, InstanceClock& clock) {
    const ClockAt c = base.at(clock.instance, base.origin_ns);
    clock.offset_ns = c.offset_ns;
    clock.drift_ppm = c.rate * 1e6L;
    clock.bounds = c.bounds;
    std::vector<std::int64_t> starts{base.origin_ns};
    for (std::size_t k = 0; k < clock.path.size(); ++k) {
        const auto& pieces = base.fits[clock.path[k]].fit.pieces;
        for (std::size_t p = 1; p < pieces.size(); ++p) {
            long double t = static_cast<long double>(pieces[p].first_ns);
            for (int it = 0; it < 4; ++it) t = pieces[p].first_ns - along_path(base.fits, clock.path, k, std::llround(t)).offset_ns.value_or(0);
            starts.push_back(std::llround(t));
        }
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    for (const std::int64_t s : starts) {
        const ClockAt p = base.at(clock.instance, s);
        clock.pieces.push_back({s, p.offset_ns.value_or(0), p.rate * 1e6L, p.bounds});
    }
}

// Why an instance is not placed: the most telling of its pairs' reasons.
std::string why_not_placed(const TimeBase& base, std::uint32_t i, const std::vector<std::string>& names) {
    std::string why;
    int rank = -1;
    const auto consider = [&](int r, std::string text) {
        if (r > rank) rank = r, why = std::move(text);
    };
    for (const DirectedFit& d : base.fits) {
        if (d.axis != i) continue;
        const std::string& peer = names[d.other];
        const std::size_t out = d.direct_upper + d.cycle_upper, in = d.direct_lower + d.cycle_lower;
        if (d.fit.problem) consider(3, "contradictory constraints with " + peer);
        else if (out == 0 || in == 0)
            consider(1, std::string("messages go one way only (") + (out ? "to " : "from ") + peer + ") and close no cycle: bounded on one side only");
        else if (!d.fit.placed())
            consider(2, "too few messages with " + peer + " to fit a drift (" + std::to_string(out) + " + " + std::to_string(in) + ")");
        else consider(0, "no chain of instances bounded both ways links it to the reference");
    }
    return why;
}

}  // namespace

ClockAt TimeBase::at(std::uint32_t instance, std::int64_t reference_ns) const {
    const auto& path = clocks.at(instance).path;
    return along_path(fits, path, path.size(), reference_ns);
}

std::optional<std::int64_t> TimeBase::to_reference(std::uint32_t instance, std::int64_t local_ns) const {
    if (!clocks.at(instance).placed) return std::nullopt;
    // t + offset(t) = local; offset changes by rate (< 1%) per ns of t, so
    // each step gains two decimal digits at least.
    long double t = static_cast<long double>(local_ns);
    for (int i = 0; i < 4; ++i) t = static_cast<long double>(local_ns) - *at(instance, std::llround(t)).offset_ns;
    return std::llround(t);
}

std::optional<long double> TimeBase::error_bound(std::uint32_t instance, std::int64_t first_ns, std::int64_t last_ns) const {
    if (!clocks.at(instance).placed) return std::nullopt;
    long double worst = 0;
    for (const std::int64_t t : {first_ns, last_ns}) {
        const ClockAt c = at(instance, t);
        if (!c.offset_ns || !c.bounds.lo || !c.bounds.hi) return std::nullopt;
        worst = std::max({worst, *c.bounds.hi - *c.offset_ns, *c.offset_ns - *c.bounds.lo});
    }
    return worst;
}

std::vector<std::int64_t> first_sample_ns(const graph::SampleSet& samples) {
    std::vector<std::int64_t> first(samples.instances.size(), std::numeric_limits<std::int64_t>::max());
    std::size_t left = first.size();
    // Time order: an instance's first sample is the first one met.
    for (std::size_t s = 0; s < samples.size() && left; ++s) {
        auto& f = first[samples.tracepoints[samples.tracepoint[s]].instance_id];
        if (f == std::numeric_limits<std::int64_t>::max()) {
            f = samples.time_ns[s];
            --left;
        }
    }
    return first;
}

TimeBase estimate_time_base(const std::vector<InstanceMessages>& messages, const std::vector<std::int64_t>& first_sample,
                            const std::vector<std::string>& names, const EstimateOptions& options) {
    const std::size_t n = first_sample.size();
    TimeBase base;
    base.clocks.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) base.clocks[i].instance = i;
    if (n == 0) return base;

    Lists lists;
    std::vector<std::size_t> links(n, 0);
    for (const auto& m : messages) {
        lists[{m.from, m.to}] = &m.messages;
        links[m.from] += m.messages.size();
        links[m.to] += m.messages.size();
    }
    base.reference = options.reference ? *options.reference
                                       : static_cast<std::uint32_t>(std::max_element(links.begin(), links.end()) - links.begin());
    base.origin_ns = first_sample.at(base.reference);
    base.fits = fit_all_pairs(lists, n, base.origin_ns, options);
    warn_refused_fits(base, names);
    const std::vector<std::int64_t> via = narrowest_paths(base, n);
    for (std::uint32_t i = 0; i < n; ++i) base.clocks[i].path = path_of(base, via, i);
    for (std::uint32_t i = 0; i < n; ++i) {
        InstanceClock& clock = base.clocks[i];
        for (const std::size_t f : clock.path) clock.messages_used += base.fits[f].direct_upper + base.fits[f].direct_lower;
        if (clock.placed) {
            describe_placed(base, clock);
            continue;
        }
        if (!clock.path.empty()) clock.bounds = base.at(i, base.origin_ns).bounds;
        clock.note = links[i] == 0 ? "no messages to or from other instances" : why_not_placed(base, i, names);
        base.warnings.push_back("instance " + names[i] + " cannot be placed on the reference's clock: " + clock.note);
    }
    return base;
}

}  // namespace hashtrace::clock_analysis
