// hashtrace/report/trace_export.hpp - a TraceModel in the formats of the trace
// viewers people already use (ui.perfetto.dev, chrome://tracing, DevTools).
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/report/trace_model.hpp"

#include <ostream>
#include <string>

namespace hashtrace::report {

// Chrome JSON trace event format: "M" metadata names each process (node
// instance) and thread; each sample is an "X" slice; each edge is a pair of
// v1 flow events ("s" in the producer's slice, "f" with "bp":"e" in the
// consumer's slice), which Chrome and Perfetto's JSON importer both bind to
// the enclosing slice. Critical paths (when the model has them): a process
// "critical path: NAME" per interval, a thread per lane (CriticalPathLayout),
// each instance an "X" slice with its segments as "X" slices inside; and each
// segment a flow named and categorised "critical_path:NAME" between its two
// samples' slices.
void write_chrome_json(const TraceModel& model, std::ostream& out);

// Perfetto protobuf (perfetto.protos.Trace), compact (docs/report.md,
// "Perfetto"): a TrackDescriptor per process and thread, each sample an
// instant TrackEvent on its thread's track, each edge a flow (flow ids on
// its two events). Critical paths (when given): a track "critical path:
// NAME" per interval with a child track per lane, each instance a slice
// there with its segments as nested slices. Names interned, timestamps as
// deltas on a clock of the sequence, packets in time order, written in one
// pass that holds only the flows and paths open at the time.
struct TraceOptions {
    // Each sample's output hash, and its input hash where no flow brings it
    // in (otherwise it is the producer's output hash), as debug annotations
    // of 32 hex digits: about 40 bytes a sample more.
    bool hashes = false;
};
void write_perfetto_trace(const TraceModel& model, std::ostream& out, const TraceOptions& options = {});

// The same trace streamed from a linked run, without a TraceModel: its
// samples in time order, the graph's edges as flows, `critical_paths` (may be
// null) drawn. The hashes need the run's hash values and ids kept. Returns
// the tracks it wrote.
struct TraceTracks {
    std::size_t processes = 0, threads = 0;
};
TraceTracks write_perfetto_trace(const graph::SampleSet& samples, const graph::Graph& graph, const TraceCriticalPaths* critical_paths,
                                 std::ostream& out, const TraceOptions& options = {});

// ui.perfetto.dev holds a trace in a browser tab's memory and opens traces
// of up to about 1 GB. For a larger file, a warning with its size and the
// length of a time range of the run (--since/--until) that would open, from
// the run's span (seconds) and the file's size; empty when the file fits.
std::string too_large_for_a_browser(const std::string& file, std::uint64_t bytes, double span_s);

// The Chrome JSON's flow ids: edge index + 1.
inline std::uint64_t flow_id(std::size_t flow_index) { return flow_index + 1; }
// The Chrome JSON's flow of a critical-path segment: numbered after the edges'.
inline std::uint64_t critical_path_flow_id(const TraceModel& model, std::size_t segment_index) {
    return model.flows.size() + segment_index + 1;
}

}  // namespace hashtrace::report
