// hashtrace/critical_path/critical_path.hpp - which segments decide an
// interval's latency.
//
// For one instance (from -> to) the critical path is found by walking back
// from `to` along the constraint that arrived last (model.hpp), among the
// samples the instance's `from` sample led to (its hash-edge closure up to
// `to`), until `from`: a chain of segments whose durations add up to the
// instance's latency exactly. A sample whose latest constraint lies outside
// the instance (its thread busy with other work: a backlog) is reached
// through its input from the instance, so that wait shows on that segment
// (a `queue` segment for an inbox), not as the other work.
//
// Per interval the instances' paths are aggregated (CRISP-style) per segment
// class, and each segment's slack is found (Mystery Machine): how much its
// duration could grow in an instance before that instance's `to` moves.
#pragma once

#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/critical_path/model.hpp"
#include "hashtrace/graph/spec.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace hashtrace::critical_path {

struct PathStep {
    SampleIndex from, to;
    SegmentKind kind;
};

// Walks instances, reusing its marks across calls (one per thread).
class PathFinder {
public:
    explicit PathFinder(const DependenceModel& model);

    // The instance's critical path in forward order, into `path`; false
    // (path empty) when it cannot be followed (from never leads to `to`).
    bool critical_path(const IntervalInstance& instance, std::vector<PathStep>& path);
    // The common instance whose `from` leads straight to `to` and to no
    // other sample before it (a receipt to its processing): its path is that
    // one constraint, which is also its only one among the instance's
    // samples, found without marking them, with its slack (as
    // for_each_slack gives it). False for any other instance.
    bool single_step(const IntervalInstance& instance, PathStep& step, std::int64_t& slack_ns) const;
    // After critical_path(): every constraint y -> x among the instance's
    // samples with a path on to `to`, its segment class and its slack in ns:
    // f(step, segment_class, slack_ns).
    template <typename F> void for_each_slack(const IntervalInstance& instance, F&& f);

private:
    static constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();
    bool marked(SampleIndex x) const { return (marks_[x / 64] >> (x % 64)) & 1; }
    void mark(SampleIndex x) {
        marks_[x / 64] |= std::uint64_t{1} << (x % 64);
        marked_.push_back(x);
    }
    void clear_marks();
    // The latest time step.from may take for step.to to keep `latest_to` (step of class segment_class).
    std::int64_t latest_before(const PathStep& step, std::uint32_t segment_class, std::int64_t latest_to) const {
        return latest_to - model_.own_duration(step.from, step.to, step.kind, segment_class);
    }
    std::int64_t slack(const PathStep& step, std::int64_t latest_before) const {
        return std::max<std::int64_t>(0, latest_before - model_.samples().time_ns[step.from]);
    }

    const DependenceModel& model_;
    // The instance's samples: a bit per sample of the run (an eighth of a
    // byte, so the marks stay in cache), cleared after each instance
    // through the list of those set.
    std::vector<std::uint64_t> marks_;
    std::vector<SampleIndex> marked_;
    std::vector<std::int64_t> latest_allowed_;  // for_each_slack: per sample of marked_, in its (descending) order
    // Set by critical_path(): each sample of the path has one input among
    // the instance's samples, the one before it on the path (an earlier
    // sample). Then no other sample leads to `to` (its way would end in an
    // input of a path sample besides the path's own), and the slacks are
    // the path's steps' alone.
    bool only_path_leads_to_end_ = false;
    std::vector<PathStep> path_;  // the path, where only it leads to `to`
};

template <typename F> void PathFinder::for_each_slack(const IntervalInstance& instance, F&& f) {
    // Latest time each sample may take without moving `to`, backwards over
    // the instance's samples: L(to) = t(to), L(y) = min over its dependents
    // x of L(x) - own_duration(y -> x). Found by index in the descending
    // list (an instance holds a handful of samples).
    const auto& time = model_.samples().time_ns;
    if (only_path_leads_to_end_) {
        // What the pass below gives then: the steps from `to` back, in the
        // same (descending) order.
        std::int64_t latest_x = time[instance.to];
        for (auto step = path_.rbegin(); step != path_.rend(); ++step) {
            const std::uint32_t segment_class = model_.class_index(step->from, step->to, step->kind);
            const std::int64_t latest_y = latest_before(*step, segment_class, latest_x);
            f(*step, segment_class, slack(*step, latest_y));
            latest_x = latest_y;
        }
        return;
    }
    std::sort(marked_.begin(), marked_.end(), std::greater<>());
    latest_allowed_.assign(marked_.size(), kUnbounded);
    const auto position = [&](SampleIndex x) {
        return std::size_t(std::lower_bound(marked_.begin(), marked_.end(), x, std::greater<>()) - marked_.begin());
    };
    latest_allowed_[position(instance.to)] = time[instance.to];
    for (std::size_t k = 0; k < marked_.size(); ++k) {
        const SampleIndex y = marked_[k];
        if (y == instance.to) continue;
        std::int64_t allowed = kUnbounded;
        model_.for_each_dependent(y, [&](SampleIndex x, SegmentKind kind) {
            if (x <= y || !marked(x)) return;
            const std::int64_t latest_x = latest_allowed_[position(x)];
            if (latest_x == kUnbounded) return;
            const PathStep step{y, x, kind};
            const std::uint32_t segment_class = model_.class_index(y, x, kind);
            const std::int64_t latest_y = latest_before(step, segment_class, latest_x);
            allowed = std::min(allowed, latest_y);
            f(step, segment_class, slack(step, latest_y));
        });
        latest_allowed_[k] = allowed;
    }
}

struct SegmentSummary {
    std::string from, to;  // "node/tracepoint"
    SegmentKind kind = SegmentKind::local;
    double on_path_fraction = 0;  // of the instances whose critical path holds it
    double mean_ms = 0;           // mean contribution per instance (0 where not on the path)
    double share = 0;             // mean_ms / the interval's mean latency
    double p50_ms = 0, p95_ms = 0, p99_ms = 0;  // its contribution in the p50 / p95 / p99 instance
    double slack_ms = 0;          // median over the instances holding it of its slack there
};

struct IntervalCriticalPath {
    std::string name;
    std::size_t count = 0;      // instances
    double mean_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0;
    std::uint64_t unreached_starts = 0;  // `from` samples that reach no `to`
    std::uint64_t not_followed = 0;      // instances whose path could not be followed
    std::vector<SegmentSummary> segments;  // by mean contribution, then slack
};

struct CriticalPathOptions {
    unsigned threads = 0;  // 0 = hardware concurrency
};

// The spec's intervals with these names (all of them when `names` is
// empty), in spec order. Throws std::invalid_argument naming an unknown one.
std::vector<const graph::IntervalSpec*> select_intervals(const graph::AnalysisSpec& spec, const std::vector<std::string>& names);

std::vector<IntervalCriticalPath> critical_paths(const DependenceModel& model, const std::vector<const graph::IntervalSpec*>& intervals,
                                                 const CriticalPathOptions& options = {});
// The same with the intervals' instances found already (InstanceFinder, on
// the model's run), in the order of `intervals`.
std::vector<IntervalCriticalPath> critical_paths(const DependenceModel& model, const std::vector<IntervalInstances>& instances,
                                                 const std::vector<const graph::IntervalSpec*>& intervals, const CriticalPathOptions& options = {});

}  // namespace hashtrace::critical_path
