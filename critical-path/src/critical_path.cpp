#include "hashtrace/critical_path/critical_path.hpp"

#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <unordered_map>

namespace hashtrace::critpath {
namespace {

std::size_t rank_index(double p, std::size_t n) {
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(p / 100.0 * double(n)))) - 1;
}

// One segment class's figures over a share of the instances.
struct Accumulator {
    std::int64_t sum_ns = 0;
    std::uint64_t on_path = 0;
    std::int64_t at_rank_ns[3] = {0, 0, 0};  // in the p50, p95, p99 instance
    std::vector<float> slack_ms;
};

// Per class of the model, and the instances not followed.
struct Accumulators {
    std::vector<Accumulator> of_class;
    std::uint64_t not_followed = 0;
};

// A few classes with a value each (a path holds a handful): a small list beats a map.
struct PerInstance {
    std::vector<std::pair<std::uint32_t, std::int64_t>> entries;
    std::pair<std::uint32_t, std::int64_t>& of(std::uint32_t c, std::int64_t initial) {
        for (auto& e : entries)
            if (e.first == c) return e;
        return entries.emplace_back(c, initial);
    }
};

}  // namespace

PathFinder::PathFinder(const DependenceModel& model)
    : model_(model), stamp_(model.samples().size(), 0), latest_allowed_(model.samples().size(), kUnbounded) {}

bool PathFinder::critical_path(const IntervalInstance& instance, std::vector<PathStep>& path) {
    path.clear();
    if (++generation_ == 0) {  // wrapped: clear the marks once
        std::fill(stamp_.begin(), stamp_.end(), 0);
        generation_ = 1;
    }
    // The instance's samples: what `from` leads to along hash edges, up to `to`.
    marked_.assign(1, instance.from);
    stamp_[instance.from] = generation_;
    for (std::size_t k = 0; k < marked_.size(); ++k)
        for (const graph::Edge& e : model_.graph().out(marked_[k]))
            if (e.to <= instance.to && stamp_[e.to] != generation_) {
                stamp_[e.to] = generation_;
                marked_.push_back(e.to);
            }
    if (stamp_[instance.to] != generation_) return false;

    const auto& time = model_.samples().time_ns;
    for (SampleIndex x = instance.to; x != instance.from;) {
        SampleIndex latest = kNone;
        SegmentKind latest_kind = SegmentKind::thread;
        model_.for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
            if (stamp_[y] != generation_) return;
            if (latest == kNone || time[y] > time[latest] || (time[y] == time[latest] && y > latest)) {
                latest = y;
                latest_kind = kind;
            }
        });
        // Every marked sample but `from` has a marked input; a cycle of equal
        // times (edges admitted backwards) could still loop: give up on it.
        if (latest == kNone || path.size() > marked_.size()) {
            path.clear();
            return false;
        }
        path.push_back({latest, x, latest_kind});
        x = latest;
    }
    std::reverse(path.begin(), path.end());
    return true;
}

std::vector<const graph::IntervalSpec*> select_intervals(const graph::AnalysisSpec& spec, const std::vector<std::string>& names) {
    for (const std::string& name : names)
        if (std::none_of(spec.intervals.begin(), spec.intervals.end(), [&](const graph::IntervalSpec& i) { return i.name == name; })) {
            std::string known;
            for (const auto& i : spec.intervals) known += (known.empty() ? "'" : ", '") + i.name + "'";
            throw std::invalid_argument("--interval '" + name + "': the spec " + spec.file + " has no such interval (it has " +
                                        (known.empty() ? "none" : known) + ")");
        }
    std::vector<const graph::IntervalSpec*> out;
    for (const auto& i : spec.intervals)
        if (names.empty() || std::find(names.begin(), names.end(), i.name) != names.end()) out.push_back(&i);
    return out;
}

namespace {

// One interval; finders[k] is worker k's (made on first use: each holds
// marks the size of the run, which are not zeroed again per interval).
IntervalCriticalPath critical_path_of(const DependenceModel& model, const graph::IntervalSpec& interval, unsigned max_threads,
                                      InstanceFinder& instance_finder, std::vector<std::unique_ptr<PathFinder>>& finders) {
    const auto& s = model.samples();
    const IntervalInstances instances = instance_finder.find(interval);
    const auto& list = instances.list;
    IntervalCriticalPath out;
    out.name = interval.name;
    out.count = list.size();
    out.unreached_starts = instances.unreached_starts;

    std::vector<double> latency_ms(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) latency_ms[i] = double(graph::elapsed_ns(s.time_ns[list[i].from], s.time_ns[list[i].to])) / 1e6;
    const metrics::Summary summary = metrics::summarize(latency_ms);
    out.mean_ms = summary.mean;
    out.p50_ms = summary.p50;
    out.p95_ms = summary.p95;
    out.p99_ms = summary.p99;
    // The instances at the p50, p95 and p99 ranks of latency.
    std::size_t at_rank[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    if (!list.empty()) {
        std::vector<std::size_t> order(list.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        const auto by_latency = [&](std::size_t a, std::size_t b) { return latency_ms[a] != latency_ms[b] ? latency_ms[a] < latency_ms[b] : a < b; };
        const double ranks[3] = {50, 95, 99};
        for (int r = 0; r < 3; ++r) {
            const auto nth = order.begin() + std::ptrdiff_t(rank_index(ranks[r], list.size()));
            std::nth_element(order.begin(), nth, order.end(), by_latency);
            at_rank[r] = *nth;
        }
    }

    const auto threads = static_cast<unsigned>(std::clamp<std::size_t>(list.size() / 256, 1, max_threads));
    if (finders.size() < threads) finders.resize(threads);
    for (unsigned k = 0; k < threads; ++k)
        if (!finders[k]) finders[k] = std::make_unique<PathFinder>(model);
    std::vector<Accumulators> parts(threads);
    auto work = [&](unsigned part) {
        Accumulators& acc = parts[part];
        acc.of_class.resize(model.classes().size());
        PathFinder& finder = *finders[part];
        std::vector<PathStep> path;
        PerInstance in_instance;  // per class: its sum, or its least slack
        for (std::size_t i = list.size() * part / threads, end = list.size() * (part + 1) / threads; i < end; ++i) {
            if (!finder.critical_path(list[i], path)) {
                ++acc.not_followed;
                continue;
            }
            in_instance.entries.clear();
            for (const PathStep& step : path)
                in_instance.of(model.class_index(step.from, step.to, step.kind), 0).second +=
                    graph::elapsed_ns(s.time_ns[step.from], s.time_ns[step.to]);
            for (const auto& [c, sum] : in_instance.entries) {
                Accumulator& a = acc.of_class[c];
                a.sum_ns += sum;
                ++a.on_path;
                for (int r = 0; r < 3; ++r)
                    if (at_rank[r] == i) a.at_rank_ns[r] = sum;
            }
            in_instance.entries.clear();
            finder.for_each_slack(list[i], [&](const PathStep& step, std::int64_t slack) {
                auto& entry = in_instance.of(model.class_index(step.from, step.to, step.kind), slack);
                entry.second = std::min(entry.second, slack);
            });
            for (const auto& [c, slack] : in_instance.entries) acc.of_class[c].slack_ms.push_back(float(double(slack) / 1e6));
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned part = 1; part < threads; ++part) pool.emplace_back(work, part);
        work(0);
    }

    // Classes of the model are per tracepoint pair; a segment is per label
    // pair ("node/tracepoint" of several instances): merged here.
    Accumulators all;
    std::unordered_map<std::uint64_t, std::size_t> segment_of;
    std::vector<SegmentClass> segments;
    for (Accumulators& part : parts) {
        all.not_followed += part.not_followed;
        for (std::size_t c = 0; c < part.of_class.size(); ++c) {
            Accumulator& a = part.of_class[c];
            if (a.on_path == 0 && a.slack_ms.empty()) continue;
            const SegmentClass& segment = model.classes()[c];
            auto [it, added] = segment_of.try_emplace(segment.key(), segments.size());
            if (added) {
                segments.push_back(segment);
                all.of_class.emplace_back();
            }
            Accumulator& into = all.of_class[it->second];
            into.sum_ns += a.sum_ns;
            into.on_path += a.on_path;
            for (int r = 0; r < 3; ++r) into.at_rank_ns[r] += a.at_rank_ns[r];
            into.slack_ms.insert(into.slack_ms.end(), a.slack_ms.begin(), a.slack_ms.end());
        }
    }
    out.not_followed = all.not_followed;
    const std::size_t followed = out.count - out.not_followed;
    for (std::size_t k = 0; k < segments.size(); ++k) {
        Accumulator& a = all.of_class[k];
        SegmentSummary seg;
        seg.from = model.labels()[segments[k].from_label];
        seg.to = model.labels()[segments[k].to_label];
        seg.kind = segments[k].kind;
        if (followed > 0) {
            seg.on_path_fraction = double(a.on_path) / double(followed);
            seg.mean_ms = double(a.sum_ns) / 1e6 / double(followed);
        }
        seg.share = out.mean_ms > 0 ? seg.mean_ms / out.mean_ms : 0;
        seg.p50_ms = double(a.at_rank_ns[0]) / 1e6;
        seg.p95_ms = double(a.at_rank_ns[1]) / 1e6;
        seg.p99_ms = double(a.at_rank_ns[2]) / 1e6;
        if (!a.slack_ms.empty()) {
            auto mid = a.slack_ms.begin() + std::ptrdiff_t(a.slack_ms.size() / 2);
            std::nth_element(a.slack_ms.begin(), mid, a.slack_ms.end());
            seg.slack_ms = *mid;
        }
        out.segments.push_back(std::move(seg));
    }
    std::sort(out.segments.begin(), out.segments.end(), [](const SegmentSummary& a, const SegmentSummary& b) {
        if (a.mean_ms != b.mean_ms) return a.mean_ms > b.mean_ms;
        if (a.slack_ms != b.slack_ms) return a.slack_ms < b.slack_ms;
        return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    });
    return out;
}

}  // namespace

std::vector<IntervalCriticalPath> critical_paths(const DependenceModel& model, const std::vector<const graph::IntervalSpec*>& intervals,
                                                 const CriticalPathOptions& options) {
    const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    InstanceFinder instance_finder(model.samples(), model.graph());
    std::vector<std::unique_ptr<PathFinder>> finders;
    std::vector<IntervalCriticalPath> out;
    for (const graph::IntervalSpec* interval : intervals) out.push_back(critical_path_of(model, *interval, threads, instance_finder, finders));
    return out;
}

}  // namespace hashtrace::critpath
