#include "hashtrace/critical_path/critical_path.hpp"

#include "walk.hpp"

#include "hashtrace/graph/parallel.hpp"
#include "hashtrace/metrics/statistics.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <span>
#include <tuple>
#include <unordered_map>

namespace hashtrace::critical_path {
namespace {

// A segment's figures over all instances: the shares' sums, and their slacks
// where they are (read for the median, not copied together).
struct SegmentTotals {
    std::int64_t sum_ns = 0;
    std::uint64_t on_path = 0;
    std::int64_t at_rank_ns[3] = {0, 0, 0};  // in the p50, p95, p99 instance
    std::vector<const std::vector<float>*> slacks;
    std::size_t slack_count = 0;
};

// The k-th smallest (from 0) of non-negative floats held in several lists:
// their bit patterns order as the values do, so two counting passes over
// 16 bits each find it, with no copy and no partial sort.
float kth_smallest(const std::vector<const std::vector<float>*>& lists, std::size_t k) {
    std::vector<std::uint32_t> count(1 << 16);
    const auto bits = [](float v) { return std::bit_cast<std::uint32_t>(v); };
    for (const auto* list : lists)
        for (const float v : *list) ++count[bits(v) >> 16];
    std::uint32_t high = 0;
    for (; k >= count[high]; ++high) k -= count[high];
    std::fill(count.begin(), count.end(), 0);
    for (const auto* list : lists)
        for (const float v : *list)
            if (bits(v) >> 16 == high) ++count[bits(v) & 0xFFFF];
    std::uint32_t low = 0;
    for (; k >= count[low]; ++low) k -= count[low];
    return std::bit_cast<float>(high << 16 | low);
}

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

PathFinder::PathFinder(const DependenceModel& model) : model_(model), marks_((model.samples().size() + 63) / 64, 0) {}

void PathFinder::clear_marks() {
    for (const SampleIndex x : marked_) marks_[x / 64] = 0;
    marked_.clear();
}

bool PathFinder::critical_path(const IntervalInstance& instance, std::vector<PathStep>& path) {
    path.clear();
    clear_marks();
    // The instance's samples: what `from` leads to along hash edges, up to `to`.
    mark(instance.from);
    for (std::size_t k = 0; k < marked_.size(); ++k)
        for (const graph::Edge& e : model_.graph().out(marked_[k]))
            if (e.to <= instance.to && !marked(e.to)) mark(e.to);
    if (!marked(instance.to)) return false;

    const auto& time = model_.samples().time_ns;
    only_path_leads_to_end_ = true;
    for (SampleIndex x = instance.to; x != instance.from;) {
        SampleIndex latest = kNone;
        SegmentKind latest_kind = SegmentKind::thread;
        int marked_inputs = 0;
        model_.for_each_constraint(x, [&](SampleIndex y, SegmentKind kind) {
            if (!marked(y)) return;
            ++marked_inputs;
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
        only_path_leads_to_end_ &= marked_inputs == 1 && latest < x;
        path.push_back({latest, x, latest_kind});
        x = latest;
    }
    std::reverse(path.begin(), path.end());
    if (only_path_leads_to_end_) path_ = path;
    return true;
}

bool PathFinder::single_step(const IntervalInstance& instance, PathStep& step, std::int64_t& slack_ns) const {
    const graph::Graph& g = model_.graph();
    if (instance.from == instance.to) return false;
    std::uint32_t direct = 0, count = 0;
    for (std::uint32_t e = g.out_offset[instance.from], end = g.out_offset[instance.from + 1]; e < end; ++e) {
        if (g.edges[e].to < instance.to) return false;
        if (g.edges[e].to == instance.to) {
            direct = e;
            ++count;
        }
    }
    if (count != 1) return false;
    // Nor may `to` lead back to a sample before it (an edge admitted backwards).
    for (const graph::Edge& e : g.out(instance.to))
        if (e.to <= instance.to) return false;
    step = {instance.from, instance.to, model_.kind_of_edge(direct)};
    slack_ns = slack(step, latest_before(step, model_.class_index(step.from, step.to, step.kind), model_.samples().time_ns[instance.to]));
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

void sort_segments(std::vector<SegmentSummary>& segments) {
    std::sort(segments.begin(), segments.end(), [](const SegmentSummary& a, const SegmentSummary& b) {
        if (a.mean_ms != b.mean_ms) return a.mean_ms > b.mean_ms;
        if (a.slack_ms != b.slack_ms) return a.slack_ms < b.slack_ms;
        return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    });
}

// Walks a range of an interval's instances into `acc`: per class, its
// contribution to each path it is on, and its least slack in each instance.
void walk_instances(const DependenceModel& model, std::span<const IntervalInstance> instances, PathFinder& finder, Accumulators& acc) {
    const auto& s = model.samples();
    acc.of_class.resize(model.classes().size());
    std::vector<PathStep> path;
    PerInstance in_instance;  // per class: its sum, or its least slack
    // Room for one slack per instance, reserved (not touched) at once: growing by copies costs more.
    const auto add_slack = [&](std::uint32_t c, std::int64_t slack) {
        auto& slacks = acc.of_class[c].slack_ms;
        if (slacks.capacity() == 0) slacks.reserve(instances.size());
        slacks.push_back(float(double(slack) / 1e6));
    };
    for (const IntervalInstance& instance : instances) {
        PathStep step;
        if (std::int64_t slack; finder.single_step(instance, step, slack)) {
            // What the general walk below finds for it: the one step on the path, and its slack.
            const std::uint32_t c = model.class_index(step.from, step.to, step.kind);
            acc.of_class[c].sum_ns += graph::elapsed_ns(s.time_ns[step.from], s.time_ns[step.to]);
            ++acc.of_class[c].on_path;
            add_slack(c, slack);
            continue;
        }
        if (!finder.critical_path(instance, path)) {
            ++acc.not_followed;
            continue;
        }
        in_instance.entries.clear();
        for (const PathStep& step : path)
            in_instance.of(model.class_index(step.from, step.to, step.kind), 0).second += graph::elapsed_ns(s.time_ns[step.from], s.time_ns[step.to]);
        for (const auto& [c, sum] : in_instance.entries) {
            acc.of_class[c].sum_ns += sum;
            ++acc.of_class[c].on_path;
        }
        in_instance.entries.clear();
        finder.for_each_slack(instance, [&](const PathStep&, std::uint32_t c, std::int64_t slack) {
            auto& entry = in_instance.of(c, slack);
            entry.second = std::min(entry.second, slack);
        });
        for (const auto& [c, slack] : in_instance.entries) add_slack(c, slack);
    }
}

namespace {

// The segments of one interval's paths, numbered as first met: classes of
// the model are per tracepoint pair, a segment per label pair ("node/tracepoint"
// of several instances).
class SegmentTable {
public:
    explicit SegmentTable(const DependenceModel& model) : model_(model) {}
    SegmentTotals& of_class(std::uint32_t c) {
        const SegmentClass& segment = model_.classes()[c];
        auto [it, added] = index_.try_emplace(segment.key(), segments_.size());
        if (added) {
            segments_.push_back(segment);
            totals_.emplace_back();
        }
        return totals_[it->second];
    }
    std::size_t size() const { return segments_.size(); }
    const SegmentClass& segment(std::size_t k) const { return segments_[k]; }
    const SegmentTotals& totals(std::size_t k) const { return totals_[k]; }

private:
    const DependenceModel& model_;
    std::unordered_map<std::uint64_t, std::size_t> index_;  // SegmentClass::key() -> index
    std::vector<SegmentClass> segments_;
    std::vector<SegmentTotals> totals_;
};

// What the walks of the interval's chunks added up, per segment.
void add_walks(SegmentTable& table, std::span<const Accumulators> parts, IntervalCriticalPath& out) {
    for (const Accumulators& part : parts) {
        out.not_followed += part.not_followed;
        for (std::size_t c = 0; c < part.of_class.size(); ++c) {
            const Accumulator& a = part.of_class[c];
            if (a.on_path == 0 && a.slack_ms.empty()) continue;
            SegmentTotals& into = table.of_class(std::uint32_t(c));
            into.sum_ns += a.sum_ns;
            into.on_path += a.on_path;
            if (!a.slack_ms.empty()) into.slacks.push_back(&a.slack_ms);
            into.slack_count += a.slack_ms.size();
        }
    }
}

// Each segment's contribution in the instances at the p50, p95 and p99
// ranks of latency (in (latency, instance) order): their paths walked again.
void add_at_rank(SegmentTable& table, const DependenceModel& model, const std::vector<IntervalInstance>& list,
                 const std::vector<double>& latency_ms, const metrics::Summary& summary, PathFinder& finder) {
    if (list.empty()) return;
    const auto& time = model.samples().time_ns;
    const double value_at_rank[3] = {summary.p50, summary.p95, summary.p99};
    std::size_t rank[3], less[3] = {0, 0, 0}, instance_at_rank[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    for (int r = 0; r < 3; ++r) rank[r] = metrics::nearest_rank_index(r == 0 ? 50 : r == 1 ? 95 : 99, list.size());
    for (const double v : latency_ms)
        for (int r = 0; r < 3; ++r) less[r] += v < value_at_rank[r];
    for (std::size_t i = 0; i < list.size(); ++i)
        for (int r = 0; r < 3; ++r)
            if (latency_ms[i] == value_at_rank[r] && less[r]++ == rank[r]) instance_at_rank[r] = i;
    std::vector<PathStep> path;
    for (int r = 0; r < 3; ++r) {
        if (instance_at_rank[r] == SIZE_MAX || !finder.critical_path(list[instance_at_rank[r]], path)) continue;
        for (const PathStep& step : path)
            table.of_class(model.class_index(step.from, step.to, step.kind)).at_rank_ns[r] += graph::elapsed_ns(time[step.from], time[step.to]);
    }
}

void add_segment_rows(const SegmentTable& table, const DependenceModel& model, IntervalCriticalPath& out) {
    const std::size_t followed = out.count - out.not_followed;
    for (std::size_t k = 0; k < table.size(); ++k) {
        const SegmentTotals& a = table.totals(k);
        SegmentSummary seg;
        seg.from = model.labels()[table.segment(k).from_label];
        seg.to = model.labels()[table.segment(k).to_label];
        seg.kind = table.segment(k).kind;
        if (followed > 0) {
            seg.on_path_fraction = double(a.on_path) / double(followed);
            seg.mean_ms = double(a.sum_ns) / 1e6 / double(followed);
        }
        seg.share = out.mean_ms > 0 ? seg.mean_ms / out.mean_ms : 0;
        seg.p50_ms = double(a.at_rank_ns[0]) / 1e6;
        seg.p95_ms = double(a.at_rank_ns[1]) / 1e6;
        seg.p99_ms = double(a.at_rank_ns[2]) / 1e6;
        if (a.slack_count > 0) seg.slack_ms = kth_smallest(a.slacks, a.slack_count / 2);
        out.segments.push_back(std::move(seg));
    }
    sort_segments(out.segments);
}

// One interval's table from its instances and what the walks of its chunks added up.
IntervalCriticalPath summarize_interval(const DependenceModel& model, const graph::IntervalSpec& interval, const IntervalInstances& instances,
                                        std::span<const Accumulators> parts, PathFinder& finder) {
    const auto& time = model.samples().time_ns;
    const auto& list = instances.list;
    IntervalCriticalPath out;
    out.name = interval.name;
    out.count = list.size();
    out.unreached_starts = instances.unreached_starts;
    std::vector<double> latency_ms(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) latency_ms[i] = double(graph::elapsed_ns(time[list[i].from], time[list[i].to])) / 1e6;
    const metrics::Summary summary = metrics::summarize(latency_ms);
    std::tie(out.mean_ms, out.p50_ms, out.p95_ms, out.p99_ms) = std::tuple{summary.mean, summary.p50, summary.p95, summary.p99};
    SegmentTable table(model);
    add_walks(table, parts, out);
    add_at_rank(table, model, list, latency_ms, summary, finder);
    add_segment_rows(table, model, out);
    return out;
}

}  // namespace

std::vector<IntervalCriticalPath> critical_paths(const DependenceModel& model, const std::vector<const graph::IntervalSpec*>& intervals,
                                                 const CriticalPathOptions& options) {
    return critical_paths(model, InstanceFinder(model.samples(), model.graph(), options.threads).find(intervals), intervals, options);
}

std::vector<IntervalCriticalPath> critical_paths(const DependenceModel& model, const std::vector<IntervalInstances>& instances,
                                                 const std::vector<const graph::IntervalSpec*>& intervals, const CriticalPathOptions& options) {
    const unsigned threads = graph::parallel::thread_count(options.threads);

    // All intervals' chunks of instances in one list of tasks, and then
    // their summaries, so that no interval's tail leaves a core idle.
    std::vector<std::span<const IntervalInstance>> chunks;
    std::vector<std::size_t> first_chunk;  // per interval, and one past the last
    for (std::size_t i = 0; i < instances.size(); ++i) {
        first_chunk.push_back(chunks.size());
        const auto& list = instances[i].list;
        const std::size_t count = std::clamp<std::size_t>(list.size() / 4096, 1, 4 * std::size_t{threads});
        for (std::size_t c = 0; c < count; ++c) {
            const auto [begin, end] = graph::parallel::chunk(list.size(), c, count);
            chunks.push_back(std::span(list).subspan(begin, end - begin));
        }
    }
    first_chunk.push_back(chunks.size());
    std::vector<PathFinder> finders;
    for (unsigned k = 0; k < threads; ++k) finders.emplace_back(model);
    std::vector<Accumulators> parts(chunks.size());
    graph::parallel::for_each(chunks.size(), threads, [&](std::size_t c, unsigned worker) { walk_instances(model, chunks[c], finders[worker], parts[c]); });

    std::vector<IntervalCriticalPath> out(intervals.size());
    graph::parallel::for_each(intervals.size(), threads, [&](std::size_t i, unsigned worker) {
        out[i] = summarize_interval(model, *intervals[i], instances[i],
                                    std::span(parts).subspan(first_chunk[i], first_chunk[i + 1] - first_chunk[i]), finders[worker]);
    });
    return out;
}

}  // namespace hashtrace::critical_path
