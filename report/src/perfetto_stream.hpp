// perfetto_stream.hpp - the Perfetto trace written in one pass over a run in
// time order, holding only what the format needs while it writes: the flows
// open at the moment, the critical paths being drawn, the interning tables.
//
// One writer for both sources of events (a TraceModel, or a linked run read
// directly: perfetto_trace.cpp); a Source gives
//   size(), time(i), thread(i), name(i)      the samples in time order
//   header()                                  a TraceModel whose processes, threads and names they index
//   for_each_edge(i, f)                       f(edge key, other end, into i) for each edge out of and into sample i
//   hashes(i, input, output)                  its hashes, false when it has none or they were not kept
// and a Paths (StoredPaths, or one that finds them as the writing goes)
//   intervals(), segment_names()              the names its paths refer to
//   start_at(i, start)                        start(interval, segments) for each path whose first sample is i
//
// What goes where (docs/report.md, "Perfetto"):
//   - each sample an instant on its thread's track, named after its
//     tracepoint; with --hashes its output hash, and its input hash where no
//     flow brings it in (otherwise it is the producer's output hash);
//   - each edge a flow, by flow ids on the events. An id is free again once
//     its flow has ended, so ids stay small; a sample that both receives and
//     sends lists an incoming flow's id once, among its own flow ids, and the
//     reader continues that flow (its "step"): one id, two flows;
//   - each critical path a slice on a lane of its interval's track, its
//     segments nested slices, begun and ended among the samples' events.
#pragma once

#include "perfetto_sequence.hpp"

#include "hashtrace/report/trace_export.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace hashtrace::report::perfetto {

// Flow ids for the edges at one sample (time order): an edge opens at its
// earlier end, closes at its later one.
class FlowIds {
public:
    template <class ForEachEdge>
    void at(std::uint32_t sample, ForEachEdge&& for_each_edge) {
        flow_ids.clear();
        terminating.clear();
        opening_.clear();
        closing_.clear();
        incoming_ = false;
        for_each_edge(sample, [&](std::uint32_t key, std::uint32_t other, bool incoming) {
            incoming_ |= incoming;
            if (other > sample) opening_.push_back(key);
            else if (other < sample) closing_.push_back(key);
        });
        const std::size_t steps = std::min(opening_.size(), closing_.size());
        for (std::size_t k = 0; k < steps; ++k) {  // continued: the incoming flow's id goes on
            const std::uint64_t id = take(closing_[k]);
            open_.emplace(opening_[k], id);
            flow_ids.push_back(id);
        }
        for (std::size_t k = steps; k < opening_.size(); ++k) {
            const std::uint64_t id = fresh();
            open_.emplace(opening_[k], id);
            flow_ids.push_back(id);
        }
        for (std::size_t k = steps; k < closing_.size(); ++k) {  // freed after the fresh ones are taken
            terminating.push_back(take(closing_[k]));
            free_.push(terminating.back());
        }
    }
    bool has_incoming() const { return incoming_; }  // an edge into the sample
    std::vector<std::uint64_t> flow_ids, terminating;

private:
    // The smallest id free: one or two bytes, however long the run.
    std::uint64_t fresh() {
        if (free_.empty()) return next_++;
        const std::uint64_t id = free_.top();
        free_.pop();
        return id;
    }
    std::uint64_t take(std::uint32_t key) {
        const auto it = open_.find(key);
        const std::uint64_t id = it->second;
        open_.erase(it);
        return id;
    }
    std::unordered_map<std::uint32_t, std::uint64_t> open_;  // edge key -> its flow id
    std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>> free_;
    std::uint64_t next_ = 1;  // 0 means "no flow" to Perfetto
    std::vector<std::uint32_t> opening_, closing_;
    bool incoming_ = false;
};

// Critical paths found already (a TraceModel's, or TraceCriticalPaths),
// handed to the writer as it reaches each one's first sample.
class StoredPaths {
public:
    StoredPaths(const std::vector<std::string>& intervals, const std::vector<std::string>& segment_names,
                const std::vector<TraceCriticalPath>& paths, const std::vector<TraceSegment>& segments)
        : intervals_(intervals), segment_names_(segment_names), paths_(paths), segments_(segments), by_start_(paths.size()) {
        for (std::uint32_t p = 0; p < by_start_.size(); ++p) by_start_[p] = p;
        const auto first_sample = [&](std::uint32_t p) { return segments[paths[p].first].from; };
        std::stable_sort(by_start_.begin(), by_start_.end(), [&](std::uint32_t a, std::uint32_t b) { return first_sample(a) < first_sample(b); });
    }
    const std::vector<std::string>& intervals() const { return intervals_; }
    const std::vector<std::string>& segment_names() const { return segment_names_; }
    // start(interval, segments) for each path whose first segment starts at `sample`.
    template <class Start>
    void start_at(std::uint32_t sample, Start&& start) {
        for (; next_ < by_start_.size(); ++next_) {
            const auto& path = paths_[by_start_[next_]];
            if (segments_[path.first].from != sample) break;
            start(path.interval, std::span(segments_.data() + path.first, path.count));
        }
    }

private:
    const std::vector<std::string>& intervals_;
    const std::vector<std::string>& segment_names_;
    const std::vector<TraceCriticalPath>& paths_;
    const std::vector<TraceSegment>& segments_;
    std::vector<std::uint32_t> by_start_;  // path indices by first sample
    std::size_t next_ = 0;
};

// Uuids: the tracks events name take the smallest (a byte on every event):
// the threads' from 1, then the lanes as they open; the tracks only
// descriptors name (processes, intervals) sit far above them.
inline std::uint64_t thread_uuid(std::uint32_t thread) { return std::uint64_t{thread} + 1; }
inline std::uint64_t process_uuid(std::uint32_t process) { return (std::uint64_t{1} << 32) + process; }
inline std::uint64_t interval_uuid(std::uint32_t interval) { return (std::uint64_t{2} << 32) + interval; }

// The critical paths' slices in time order, among the samples: each path
// starts after its first sample is written; its events (path begin, each
// segment's begin and end, path end) wait in a queue by time, its segments
// in a slot of their own until it ends. A path of one segment is one slice,
// named after the segment: its instance's slice would be the same.
class PathSlices {
public:
    // Writes the intervals' tracks; lanes get uuids from first_lane_uuid on,
    // as they open. `segment_names` may grow while paths are found.
    PathSlices(Sequence& sequence, const std::vector<std::string>& intervals, const std::vector<std::string>& segment_names,
               std::uint32_t first_lane_uuid);
    // A path whose first segment starts at the sample just written.
    template <class TimeOf>
    void start(std::uint32_t interval, std::span<const TraceSegment> segments, TimeOf&& time_of);
    // Writes every waiting event earlier than `time_ns` (all: INT64_MAX).
    template <class TimeOf>
    void write_before(std::int64_t time_ns, TimeOf&& time_of);

private:
    // A path being drawn. Its steps: 0 its slice's begin, 2k+1 segment k's
    // begin, 2k+2 its end, 2n+1 the path's end; a path of one segment skips
    // steps 1 and 2.
    struct Active {
        std::int64_t next_ns;
        std::int64_t cursor;  // where the last segment ended
        std::uint32_t order;  // start order: on one lane a path ends before the next begins
        std::uint32_t slot, step, lane, interval, count;
        bool operator>(const Active& o) const { return next_ns != o.next_ns ? next_ns > o.next_ns : order > o.order; }
    };
    // The paths by their next event: a binary heap whose top is replaced in
    // place as a path moves on (one sift instead of a pop and a push).
    void sift_down(std::size_t at);
    std::uint32_t lane_for(std::uint32_t interval, std::int64_t begin_ns, std::int64_t end_ns);
    template <class TimeOf>
    std::int64_t time_of_step(const Active& a, TimeOf&& time_of) const;
    std::uint64_t name_iid(std::vector<std::uint64_t>& cache, const std::vector<std::string>& names, std::uint32_t index);
    void write(const Active& a);

    Sequence& sequence_;
    const std::vector<std::string>& intervals_;
    const std::vector<std::string>& segment_names_;
    std::vector<Active> waiting_;  // a min-heap by (next_ns, order)
    std::uint32_t started_ = 0;
    std::vector<std::vector<TraceSegment>> slots_;  // the segments of the paths being drawn
    std::vector<std::uint32_t> free_slots_;
    // Per interval: its lanes in use (time free, uuid), those free (uuids), and how many.
    template <class T>
    using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<>>;
    std::vector<MinHeap<std::pair<std::int64_t, std::uint32_t>>> busy_lanes_;
    std::vector<MinHeap<std::uint32_t>> free_lanes_;
    std::vector<std::uint32_t> lanes_;
    std::uint32_t next_lane_uuid_;
    std::vector<std::uint64_t> interval_iids_, segment_iids_;  // 0: not interned yet
    proto::Message event_, descriptor_;
};

template <class TimeOf>
void PathSlices::start(std::uint32_t interval, std::span<const TraceSegment> segments, TimeOf&& time_of) {
    std::uint32_t slot = 0;
    if (free_slots_.empty()) {
        slot = std::uint32_t(slots_.size());
        slots_.emplace_back();
    } else {
        slot = free_slots_.back();
        free_slots_.pop_back();
    }
    slots_[slot].assign(segments.begin(), segments.end());
    const std::int64_t begin = time_of(segments.front().from);
    std::int64_t end = begin;  // each segment from where the one before ended (CriticalPathLayout)
    for (const auto& segment : segments) end = std::max(std::max(end, time_of(segment.from)), time_of(segment.to));
    const Active a{begin, begin, started_++, slot, 0, lane_for(interval, begin, end), interval, std::uint32_t(segments.size())};
    waiting_.push_back(a);
    std::push_heap(waiting_.begin(), waiting_.end(), std::greater<>());
}

template <class TimeOf>
std::int64_t PathSlices::time_of_step(const Active& a, TimeOf&& time_of) const {
    if (a.step == 2 * a.count + 1) return a.cursor;
    const auto& segment = slots_[a.slot][(a.step - 1) / 2];
    const std::int64_t begin = std::max(a.cursor, time_of(segment.from));
    return a.step % 2 == 1 ? begin : std::max(begin, time_of(segment.to));
}

template <class TimeOf>
void PathSlices::write_before(std::int64_t time_ns, TimeOf&& time_of) {
    while (!waiting_.empty() && waiting_.front().next_ns < time_ns) {
        Active& a = waiting_.front();
        write(a);
        if (a.step == 2 * a.count + 1) {  // the path's end: done
            free_slots_.push_back(a.slot);
            std::pop_heap(waiting_.begin(), waiting_.end(), std::greater<>());
            waiting_.pop_back();
            continue;
        }
        if (a.step > 0 && a.step % 2 == 0) a.cursor = a.next_ns;  // a segment ended
        if (a.count == 1 && a.step == 0) {                        // one slice: its end is the segment's
            a.cursor = std::max(a.cursor, time_of(slots_[a.slot][0].to));
            a.step = 3;
        } else {
            ++a.step;
        }
        a.next_ns = time_of_step(a, time_of);
        sift_down(0);
    }
}

// The trace of a Source: tracks, then every event in time order; the
// critical paths of `paths` (StoredPaths, or one that finds them as it goes;
// null: none).
template <class Source, class Paths>
class Stream {
public:
    Stream(const Source& source, Paths* paths, std::ostream& out, const TraceOptions& options)
        : source_(source), options_(options), sequence_(out), paths_(paths) {}

    void write() {
        const TraceModel& header = source_.header();
        const std::size_t n = source_.size();
        default_track_ = busiest_thread(header);
        sequence_.start(n == 0 ? 0 : source_.time(0), default_track_);
        write_tracks(header);
        const auto time_of = [&](std::uint32_t i) { return source_.time(i); };
        std::optional<PathSlices> slices;
        if (paths_) slices.emplace(sequence_, paths_->intervals(), paths_->segment_names(), std::uint32_t(header.threads.size() + 1));
        const auto start = [&](std::uint32_t interval, std::span<const TraceSegment> segments) { slices->start(interval, segments, time_of); };
        name_iids_.assign(header.names.size(), 0);
        for (std::uint32_t i = 0; i < n; ++i) {
            if (slices) slices->write_before(source_.time(i), time_of);
            sample(i);
            if (slices) paths_->start_at(i, start);
        }
        if (slices) slices->write_before(std::numeric_limits<std::int64_t>::max(), time_of);
        sequence_.finish();
    }

private:
    // The track of the most samples: theirs leave it out.
    std::uint64_t busiest_thread(const TraceModel& header) const {
        std::vector<std::size_t> samples(header.threads.size(), 0);
        for (std::uint32_t i = 0; i < source_.size(); ++i) ++samples[source_.thread(i)];
        return thread_uuid(std::uint32_t(std::max_element(samples.begin(), samples.end()) - samples.begin()));
    }
    void write_tracks(const TraceModel& header) {
        proto::Message descriptor, process, thread;
        for (std::uint32_t p = 0; p < header.processes.size(); ++p) {
            process.clear();
            process.varint(field::kPid, p + 1);
            process.bytes(field::kProcessName, header.processes[p].node + " " + header.processes[p].instance);
            descriptor.clear();
            descriptor.varint(field::kUuid, process_uuid(p));
            descriptor.message(field::kProcess, process);
            sequence_.descriptor(descriptor);
        }
        for (std::uint32_t t = 0; t < header.threads.size(); ++t) {
            thread.clear();
            thread.varint(field::kPid, header.threads[t].process + 1);
            thread.varint(field::kTid, t + 1);
            thread.bytes(field::kThreadName, header.threads[t].name);
            descriptor.clear();
            descriptor.varint(field::kUuid, thread_uuid(t));
            descriptor.message(field::kThread, thread);
            sequence_.descriptor(descriptor);
        }
    }
    void sample(std::uint32_t i) {
        event_.clear();
        event_.varint(field::kType, kInstant);
        if (const auto track = thread_uuid(source_.thread(i)); track != default_track_) event_.varint(field::kTrackUuid, track);
        auto& iid = name_iids_[source_.name(i)];
        if (iid == 0) iid = sequence_.iid(Interned::name, source_.header().names[source_.name(i)]);
        event_.varint(field::kNameIid, iid);
        flows_.at(i, [&](std::uint32_t s, auto&& f) { source_.for_each_edge(s, f); });
        for (const auto id : flows_.flow_ids) event_.varint(field::kFlowIdsOld, id);
        for (const auto id : flows_.terminating) event_.varint(field::kTerminatingFlowIdsOld, id);
        if (options_.hashes) hashes(i);
        sequence_.event(source_.time(i), event_);
    }
    void hashes(std::uint32_t i) {
        Hash128 input, output;
        const auto [has_input, has_output] = source_.hashes(i, input, output);
        if (has_input && !flows_.has_incoming()) annotation("input_hash", input_iid_, input);
        if (has_output) annotation("output_hash", output_iid_, output);
    }
    void annotation(std::string_view name, std::uint64_t& iid, const Hash128& hash) {
        if (iid == 0) iid = sequence_.iid(Interned::annotation, name);
        annotation_.clear();
        annotation_.varint(field::kAnnotationNameIid, iid);
        annotation_.bytes(field::kStringValue, std::string_view(to_hex(hash).data(), 32));
        event_.message(field::kDebugAnnotations, annotation_);
    }

    const Source& source_;
    const TraceOptions& options_;
    Sequence sequence_;
    Paths* paths_;
    FlowIds flows_;
    std::uint64_t default_track_ = 0;
    std::vector<std::uint64_t> name_iids_;  // per name of the header; 0: not interned yet
    std::uint64_t input_iid_ = 0, output_iid_ = 0;
    proto::Message event_, annotation_;
};

}  // namespace hashtrace::report::perfetto
