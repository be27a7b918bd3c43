// hashtrace/report/trace_model.hpp - what a trace viewer is shown: the
// neutral model both exporters (Chrome JSON, Perfetto protobuf) render.
//
// It is built once from a linked run (samples + causality edges, clock
// correction already applied) so that the two writers cannot disagree about
// which track a sample lives on or which edge became which flow.
#pragma once

#include "hashtrace/hash128.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::report {

// One node instance: a process track in the viewers.
struct TraceProcess {
    std::string node;
    std::string instance;
};

// One recording thread of a node instance: a thread track.
struct TraceThread {
    std::uint32_t process = 0;  // index into TraceModel::processes
    std::string name;           // shown as the track's title
};

// One sample. Samples are points in time; the writers draw each as a short
// slice (see slice_durations) because flow arrows attach to slices.
struct TraceEvent {
    std::int64_t time_ns = 0;   // clock-corrected UTC nanoseconds
    std::uint32_t thread = 0;   // index into TraceModel::threads
    std::uint32_t name = 0;     // index into TraceModel::names (the tracepoint)
    Hash128 input_hash;
    Hash128 output_hash;
    bool has_input = false;
    bool has_output = false;
};

// One causality edge, producer -> consumer (indices into TraceModel::events).
struct TraceFlow {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
};

// One step of an interval instance's critical path (critical_path.hpp),
// from one event to the next.
struct TraceSegment {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    std::uint32_t name = 0;  // index into TraceModel::segment_names ("A/x -> B/y (message)")
};

// One interval instance's critical path: its segments in forward order.
struct TraceCriticalPath {
    std::uint32_t interval = 0;  // index into TraceModel::critical_path_intervals
    std::uint32_t first = 0;     // index into TraceModel::critical_segments
    std::uint32_t count = 0;     // segments, at least one
};

// Critical paths alone (what a TraceModel holds of them, beside its events),
// for a writer that reads the samples from the run itself.
struct TraceCriticalPaths {
    std::vector<std::string> intervals;
    std::vector<std::string> segment_names;
    std::vector<TraceCriticalPath> paths;  // grouped by interval
    std::vector<TraceSegment> segments;
};

struct TraceModel {
    std::vector<TraceProcess> processes;
    std::vector<TraceThread> threads;
    std::vector<std::string> names;
    std::vector<TraceEvent> events;  // sorted by time_ns (check_trace_model enforces it)
    std::vector<TraceFlow> flows;
    // Critical paths, when the export marks them: interval names, segment
    // names, each instance's path (grouped by interval) and their segments.
    std::vector<std::string> critical_path_intervals;
    std::vector<std::string> segment_names;
    std::vector<TraceCriticalPath> critical_paths;
    std::vector<TraceSegment> critical_segments;
    // Longest drawn slice; shorter when the thread's next sample comes sooner,
    // so that slices on one track never overlap.
    std::int64_t slice_ns = 1000;
};

// Throws std::invalid_argument naming the first broken reference or the
// first event out of time order: exporters rely on both.
void check_trace_model(const TraceModel& model);

// Drawn duration of each event: min(slice_ns, gap to the next event on the
// same thread). Zero when two samples of a thread share a timestamp.
std::vector<std::int64_t> slice_durations(const TraceModel& model);

// Where the writers draw the critical paths. Each interval gets a track of
// its own, but its instances overlap in time and slices on one track must
// nest, so an instance goes on the first lane (a sub-track) free at its
// start. A segment is drawn from where the previous one ended: an edge
// admitted backwards by a linking tolerance is drawn with length zero, not
// overlapping its neighbour.
struct CriticalPathLayout {
    std::vector<std::uint32_t> lanes;            // per interval: how many it uses
    std::vector<std::uint32_t> lane;             // per critical path: its lane within its interval
    std::vector<std::int64_t> begin_ns, end_ns;  // per segment
};
CriticalPathLayout layout_critical_paths(const TraceModel& model);

// Flows whose consumer is drawn before its producer (clock error left after
// correction, or a linking tolerance): viewers show those arrows backwards.
std::size_t count_backward_flows(const TraceModel& model);

}  // namespace hashtrace::report
