// Re-linking per piece (edge_estimate.hpp, docs/clock-sync.md section 8).
#include "hashtrace/clock_analysis/edge_estimate.hpp"

#include "instance_files.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

namespace hashtrace::clock_analysis {
namespace {

using Lists = std::vector<InstanceMessages>;

std::vector<std::string> names_of(const graph::SampleSet& samples) {
    std::vector<std::string> names;
    for (std::uint32_t i = 0; i < samples.instances.size(); ++i) names.push_back(instance_name(samples, i));
    return names;
}

// A copy of the samples of the placed instances (only their pairs are
// re-linked), their times on the reference's clock, in time order;
// `order[i]` is the index in `samples` of the copy's sample i.
graph::SampleSet corrected_copy(const graph::SampleSet& samples, const TimeBase& base, std::vector<graph::SampleIndex>& order) {
    const auto of = detail::instance_of_files(samples);
    std::vector<std::int64_t> t(samples.size());
    order.clear();
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& instance = of[samples.file_of(static_cast<graph::SampleIndex>(i))];
        if (!instance || !base.clocks[*instance].placed) continue;
        t[i] = *base.to_reference(*instance, samples.time_ns[i]);
        order.push_back(static_cast<graph::SampleIndex>(i));
    }
    std::stable_sort(order.begin(), order.end(), [&](graph::SampleIndex a, graph::SampleIndex b) { return t[a] < t[b]; });
    graph::SampleSet copy;
    copy.tracepoints = samples.tracepoints;
    copy.instances = samples.instances;
    copy.node_names = samples.node_names;
    copy.source_count = samples.source_count;
    copy.files = samples.files;
    copy.hash_count = samples.hash_count;
    const auto take = [&](auto& column, const auto& from) {
        column.resize(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) column[i] = from[order[i]];
    };
    take(copy.input, samples.input);
    take(copy.output, samples.output);
    take(copy.tracepoint, samples.tracepoint);
    take(copy.thread, samples.thread);
    take(copy.time_ns, t);
    return copy;
}

// The shortest time between two outputs of one hash value by one source
// (a reused counter's period), over the sources whose samples the first
// linking made producers of cross-instance messages; nullopt when none
// repeats a value. On times corrected to within less than half of it, a
// window that wide finds a message's own producer and never the next use
// of its hash. A counter that wraps reuses all its values alike, so on a
// run over a million samples only every 16th hash id is looked at (the
// table holds one entry per value and source).
std::optional<std::int64_t> shortest_reuse_ns(const graph::SampleSet& samples, const graph::Graph& first) {
    std::vector<bool> sends(samples.source_count, false);
    for (const graph::Edge& e : first.edges) {
        const auto &a = samples.tracepoint_of(e.from), &b = samples.tracepoint_of(e.to);
        if (a.instance_id != b.instance_id) sends[a.source_id] = true;
    }
    const graph::HashId stride = samples.size() > 1'000'000 ? 16 : 1;
    std::unordered_map<std::uint64_t, std::int64_t> last;  // (source, hash) -> its latest output
    std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto source = samples.tracepoint_of(static_cast<graph::SampleIndex>(i)).source_id;
        if (!sends[source] || samples.output[i] == graph::kNoHash || samples.output[i] % stride != 0) continue;
        const auto [it, fresh] = last.try_emplace((std::uint64_t{source} << 32) | samples.output[i], samples.time_ns[i]);
        if (!fresh) shortest = std::min(shortest, samples.time_ns[i] - std::exchange(it->second, samples.time_ns[i]));
    }
    if (shortest == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
    return shortest;
}

bool placed(const TimeBase& base, std::uint32_t i) { return base.clocks[i].placed; }

// The re-linked lists where both instances are placed, the first ones elsewhere.
Lists merged(const Lists& relinked, const Lists& first, const TimeBase& base) {
    Lists out;
    for (const auto& m : relinked)
        if (placed(base, m.from) && placed(base, m.to)) out.push_back(m);
    for (const auto& m : first)
        if (!placed(base, m.from) || !placed(base, m.to)) out.push_back(m);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return std::pair(a.from, a.to) < std::pair(b.from, b.to); });
    return out;
}

// Messages (send, receive) in one set of lists and not the other.
std::uint64_t changed(const Lists& a, const Lists& b) {
    const auto flat = [](const Lists& lists) {
        std::vector<std::tuple<std::uint32_t, std::uint32_t, std::int64_t, std::int64_t>> out;
        for (const auto& m : lists)
            for (const Message& x : m.messages) out.emplace_back(m.from, m.to, x.send_ns, x.receive_ns);
        std::sort(out.begin(), out.end());
        return out;
    };
    const auto x = flat(a), y = flat(b);
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::int64_t, std::int64_t>> diff;
    std::set_symmetric_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(diff));
    return diff.size();
}

std::size_t placed_count(const TimeBase& base) {
    return static_cast<std::size_t>(std::count_if(base.clocks.begin(), base.clocks.end(), [](const InstanceClock& c) { return c.placed; }));
}

std::size_t refused_count(const TimeBase& base) {
    return static_cast<std::size_t>(std::count_if(base.fits.begin(), base.fits.end(), [](const DirectedFit& d) { return d.fit.problem.has_value(); }));
}

// A clock in pieces (a step or a new rate): the estimate warrants re-linking.
bool has_pieces(const TimeBase& base) {
    return std::any_of(base.clocks.begin(), base.clocks.end(), [](const InstanceClock& c) { return c.pieces.size() > 1; });
}

}  // namespace

Relinked relink_by_pieces(const graph::SampleSet& samples, const Lists& first, TimeBase base, const LinkCorrected& link,
                          const EstimateOptions& options, std::int64_t reuse_ns, std::int64_t max_tolerance_ns, unsigned max_rounds) {
    Relinked out{std::move(base), 0, 0};
    if (samples.size() == 0) return out;
    const auto names = names_of(samples);
    const auto first_ns = first_sample_ns(samples);
    Lists current = first;
    for (unsigned round = 0; round < max_rounds; ++round) {
        if (placed_count(out.base) < 2) break;
        std::vector<graph::SampleIndex> order;
        graph::SampleSet copy = corrected_copy(samples, out.base, order);
        const std::int64_t bounds = corrected_link_tolerance_ns(out.base, samples.time_ns.front(), samples.time_ns.back());
        const graph::Graph graph = link(copy, std::max(bounds, std::min(reuse_ns / 4, max_tolerance_ns)));
        ++out.rounds;
        for (std::size_t i = 0; i < order.size(); ++i) copy.time_ns[i] = samples.time_ns[order[i]];  // the recorded times
        Lists next = merged(message_times(copy, graph), first, out.base);
        if (changed(next, current) == 0) break;
        TimeBase again = estimate_time_base(next, first_ns, names, options);
        if (placed_count(again) < placed_count(out.base) || refused_count(again) > refused_count(out.base)) break;
        out.base = std::move(again);
        current = std::move(next);
    }
    out.changed_edges = changed(current, first);
    return out;
}

TimeBase estimate_and_relink(const graph::SampleSet& samples, const graph::Graph& graph, const std::optional<std::string>& reference,
                             const LinkCorrected& link, std::int64_t max_tolerance_ns, const graph::Graph* confirmed_by, const FitOptions& fit) {
    const auto messages = message_times(samples, graph, confirmed_by);
    EstimateOptions options;
    options.fit = fit;
    if (reference) options.reference = resolve_reference(samples, messages, *reference);
    TimeBase base = estimate_time_base(messages, first_sample_ns(samples), names_of(samples), options);
    if (!has_pieces(base) && !confirmed_by) return base;
    // No value reused: the window is max_tolerance_ns wide.
    const std::int64_t reuse = shortest_reuse_ns(samples, confirmed_by ? *confirmed_by : graph).value_or(std::numeric_limits<std::int64_t>::max());
    Relinked r = relink_by_pieces(samples, messages, std::move(base), link, options, reuse, max_tolerance_ns);
    r.base.relinked_edges = r.changed_edges;
    r.base.relink_rounds = r.rounds;
    return std::move(r.base);
}

}  // namespace hashtrace::clock_analysis
