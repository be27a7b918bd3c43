// hashtrace/report/trace_export.hpp - a TraceModel in the formats of the trace
// viewers people already use (ui.perfetto.dev, chrome://tracing, DevTools).
#pragma once

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

// Perfetto protobuf (perfetto.protos.Trace): a TrackDescriptor per process and
// thread, SLICE_BEGIN/SLICE_END TrackEvents per sample, and each edge as
// flow_ids on the producer and terminating_flow_ids on the consumer.
// Critical paths (when the model has them): a track "critical path: NAME" per
// interval with a child track per lane, each instance a slice there with its
// segments as nested slices. Compact: names interned, timestamps as deltas on
// a clock of the sequence, packets in time order (docs/report.md).
struct TraceOptions {
    // Each sample's input and output hash as debug annotations (32 hex
    // digits each): about 75 bytes a sample more, where the flows already
    // draw every link the hashes made.
    bool hashes = false;
};
void write_perfetto_trace(const TraceModel& model, std::ostream& out, const TraceOptions& options = {});

// Flow ids in both formats: edge index + 1 (0 means "no flow" to Perfetto).
inline std::uint64_t flow_id(std::size_t flow_index) { return flow_index + 1; }
// The Chrome JSON's flow of a critical-path segment: numbered after the edges'.
inline std::uint64_t critical_path_flow_id(const TraceModel& model, std::size_t segment_index) {
    return model.flows.size() + segment_index + 1;
}

}  // namespace hashtrace::report
