// Perfetto's protobuf trace format, written compact and in one pass
// (perfetto_stream.hpp): a trace of a long run must still open in a browser
// tab, and be written without holding more than the run itself.
//   - One packet sequence, names interned (sent once, then referred to by iid).
//   - Incremental timestamps on a clock of the sequence: each packet carries
//     the delta from the one before. Packets are written in time order.
//   - Each sample one instant event; each edge a flow by small flow ids.
// Two sources of the same events: a TraceModel (the Chrome JSON's, and the
// tests'), or a linked run read directly, which `export` streams from.
#include "flow_index.hpp"
#include "perfetto_stream.hpp"

#include "hashtrace/critical_path/critical_path.hpp"
#include "hashtrace/critical_path/instances.hpp"
#include "hashtrace/report/build.hpp"
#include "hashtrace/report/trace_export.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace hashtrace::report {

namespace {

class ModelSource {
public:
    explicit ModelSource(const TraceModel& model) : model_(model), flows_(model) {}
    const TraceModel& header() const { return model_; }
    std::size_t size() const { return model_.events.size(); }
    std::int64_t time(std::uint32_t i) const { return model_.events[i].time_ns; }
    std::uint32_t thread(std::uint32_t i) const { return model_.events[i].thread; }
    std::uint32_t name(std::uint32_t i) const { return model_.events[i].name; }
    template <class F>
    void for_each_edge(std::uint32_t i, F&& f) const {
        for (const auto e : flows_.outgoing(i)) f(e, model_.flows[e].to, false);
        for (const auto e : flows_.incoming(i)) f(e, model_.flows[e].from, true);
    }
    std::pair<bool, bool> hashes(std::uint32_t i, Hash128& input, Hash128& output) const {
        const auto& e = model_.events[i];
        input = e.input_hash;
        output = e.output_hash;
        return {e.has_input, e.has_output};
    }

private:
    const TraceModel& model_;
    const FlowIndex flows_;
};

// A linked run as it is: the samples' columns and the graph's rows, the
// tracks as build_trace_model makes them, each sample's track looked up
// from its (node instance, thread).
class RunSource {
public:
    RunSource(const graph::SampleSet& samples, const graph::Graph& graph) : samples_(samples), graph_(graph) {
        const auto lanes = assign_lanes(samples, /*of_each_sample=*/false);
        header_ = build_trace_tracks(samples, lanes, name_of_tracepoint_);
        for (std::uint32_t l = 0; l < lanes.lanes.size(); ++l)
            lane_of_key_.emplace(key(lanes.instance[l], lanes.lanes[l].thread.value_or(graph::kNoThread)), l);
        hashes_ = !samples.hash_values.empty() && samples.input.size() == samples.size();
    }
    const TraceModel& header() const { return header_; }
    std::size_t size() const { return samples_.size(); }
    std::int64_t time(std::uint32_t i) const { return samples_.time_ns[i]; }
    std::uint32_t thread(std::uint32_t i) const {
        const auto k = key(samples_.tracepoint_of(i).instance_id, samples_.thread[i]);
        if (k != last_key_) last_key_ = k, last_lane_ = lane_of_key_.at(k);
        return last_lane_;
    }
    std::uint32_t name(std::uint32_t i) const { return name_of_tracepoint_[samples_.tracepoint[i]]; }
    template <class F>
    void for_each_edge(std::uint32_t i, F&& f) const {
        for (auto e = graph_.out_offset[i]; e < graph_.out_offset[i + 1]; ++e) f(e, graph_.edges[e].to, false);
        for (auto k = graph_.in_offset[i]; k < graph_.in_offset[i + 1]; ++k) f(graph_.in_edges[k], graph_.edges[graph_.in_edges[k]].from, true);
    }
    std::pair<bool, bool> hashes(std::uint32_t i, Hash128& input, Hash128& output) const {
        if (!hashes_) return {false, false};
        const bool has_input = samples_.input[i] != graph::kNoHash, has_output = samples_.output[i] != graph::kNoHash;
        if (has_input) input = samples_.hash_values[samples_.input[i]];
        if (has_output) output = samples_.hash_values[samples_.output[i]];
        return {has_input, has_output};
    }

private:
    const graph::SampleSet& samples_;
    const graph::Graph& graph_;
    static std::uint64_t key(std::uint32_t instance, std::uint32_t thread) { return std::uint64_t{instance} << 32 | thread; }
    TraceModel header_;
    std::vector<std::uint32_t> name_of_tracepoint_;
    std::unordered_map<std::uint64_t, std::uint32_t> lane_of_key_;
    mutable std::uint64_t last_key_ = ~std::uint64_t{0};  // the last sample's, the common case being runs of one thread
    mutable std::uint32_t last_lane_ = 0;
    bool hashes_ = false;
};

}  // namespace

// Each interval instance's critical path found as the writing reaches its
// `from` sample: the instances of a stretch of the run found as the writing
// enters it (8 bytes each: those of a whole 10-minute run of the sample
// system were 63 MB, more than anything else the writing holds besides the
// run), the dependence model kept, and no path held past its drawing.
struct CriticalPathStream::Finder {
public:
    Finder(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec, std::size_t stretch)
        : samples_(samples.size()), stretch_(std::max<std::size_t>(stretch, 1)), dependence_(samples, graph), finder_(dependence_),
          instances_(samples, graph), specs_(spec.intervals) {
        for (const auto& interval : specs_) {
            intervals_.push_back(interval.name);
            spec_of_.push_back(&interval);
        }
        marked.intervals = intervals_.size();
    }
    const std::vector<std::string>& intervals() const { return intervals_; }
    const std::vector<std::string>& segment_names() const { return segment_names_; }
    // In the order find_trace_critical_paths keeps them in: by interval, then instance.
    // Called for every sample in turn.
    template <class Start>
    void start_at(std::uint32_t sample, Start&& start) {
        if (sample >= stretch_end_) next_stretch(sample);
        for (std::uint32_t k = 0; k < lists_.size(); ++k)
            for (auto& c = cursor_[k]; c < lists_[k].size() && lists_[k][c].from <= sample; ++c)
                if (find(lists_[k][c])) start(k, std::span<const TraceSegment>(segments_));
    }
    MarkedCriticalPaths marked;

private:
    // The instances whose `from` sample is in the stretch beginning at `sample`.
    void next_stretch(std::uint32_t sample) {
        stretch_end_ = static_cast<std::uint32_t>(std::min<std::size_t>(samples_, std::size_t{sample} + stretch_));
        lists_.clear();
        for (auto& found : instances_.find(spec_of_, sample, stretch_end_)) lists_.push_back(std::move(found.list));
        cursor_.assign(lists_.size(), 0);
    }

    bool find(const critical_path::IntervalInstance& instance) {
        if (!finder_.critical_path(instance, path_)) {
            ++marked.not_followed;
            return false;
        }
        if (path_.empty()) return false;  // `from` is `to`: nothing to mark
        if (path_.front().from != instance.from) throw std::logic_error("critical path: a path that does not start at its instance");
        segments_.clear();
        const auto& labels = dependence_.labels();
        for (const auto& step : path_) {
            const critical_path::SegmentClass segment{dependence_.label_of(step.from), dependence_.label_of(step.to), step.kind};
            const auto [it, added] = name_of_segment_.try_emplace(segment.key(), std::uint32_t(segment_names_.size()));
            if (added)
                segment_names_.push_back(labels[segment.from_label] + " -> " + labels[segment.to_label] + " (" +
                                         std::string(critical_path::to_string(step.kind)) + ")");
            segments_.push_back({step.from, step.to, it->second});
        }
        ++marked.instances;
        marked.segments += path_.size();
        return true;
    }

    const std::size_t samples_, stretch_;
    const critical_path::DependenceModel dependence_;
    critical_path::PathFinder finder_;
    critical_path::InstanceFinder instances_;
    const std::vector<graph::IntervalSpec> specs_;
    std::vector<const graph::IntervalSpec*> spec_of_;  // into specs_, as InstanceFinder::find takes them
    std::uint32_t stretch_end_ = 0;  // lists_ holds the instances from samples before it
    std::vector<std::string> intervals_, segment_names_;
    std::vector<std::vector<critical_path::IntervalInstance>> lists_;  // the stretch's, per interval, by `from` sample
    std::vector<std::size_t> cursor_;
    std::unordered_map<std::uint64_t, std::uint32_t> name_of_segment_;  // SegmentClass::key() -> index into segment_names_
    std::vector<critical_path::PathStep> path_;
    std::vector<TraceSegment> segments_;
};

void write_perfetto_trace(const TraceModel& model, std::ostream& out, const TraceOptions& options) {
    check_trace_model(model);
    const ModelSource source(model);
    perfetto::StoredPaths paths(model.critical_path_intervals, model.segment_names, model.critical_paths, model.critical_segments);
    perfetto::Stream(source, &paths, out, options).write();
}

TraceTracks write_perfetto_trace(const graph::SampleSet& samples, const graph::Graph& graph, const TraceCriticalPaths* critical_paths,
                                 std::ostream& out, const TraceOptions& options) {
    const RunSource source(samples, graph);
    if (!critical_paths) {
        perfetto::Stream(source, static_cast<perfetto::StoredPaths*>(nullptr), out, options).write();
    } else {
        perfetto::StoredPaths paths(critical_paths->intervals, critical_paths->segment_names, critical_paths->paths, critical_paths->segments);
        perfetto::Stream(source, &paths, out, options).write();
    }
    return {source.header().processes.size(), source.header().threads.size()};
}

CriticalPathStream::CriticalPathStream(const graph::SampleSet& samples, const graph::Graph& graph, const graph::AnalysisSpec& spec,
                                       std::size_t stretch)
    : finder(std::make_unique<Finder>(samples, graph, spec, stretch)) {}
CriticalPathStream::~CriticalPathStream() = default;
const MarkedCriticalPaths& CriticalPathStream::marked() const { return finder->marked; }

TraceTracks write_perfetto_trace(const graph::SampleSet& samples, const graph::Graph& graph, CriticalPathStream& paths, std::ostream& out,
                                 const TraceOptions& options) {
    const RunSource source(samples, graph);
    perfetto::Stream(source, paths.finder.get(), out, options).write();
    return {source.header().processes.size(), source.header().threads.size()};
}

std::string too_large_for_a_browser(const std::string& file, std::uint64_t bytes, double span_s) {
    constexpr std::uint64_t kBrowserLimit = 1'000'000'000;
    if (bytes <= kBrowserLimit) return {};
    char text[256];
    // A range a tenth short of the limit: the rate of a run is not even.
    const double fits_s = span_s * 0.9 * double(kBrowserLimit) / double(bytes);
    std::snprintf(text, sizeof text, "%.1f GB: ui.perfetto.dev opens traces of up to about 1 GB in a browser tab; export about %.3g s of the run's %.3g s for one that opens (--since T --until T+%.3g)",
                  double(bytes) / 1e9, fits_s, span_s, fits_s);
    return file + " is " + text;
}

}  // namespace hashtrace::report
