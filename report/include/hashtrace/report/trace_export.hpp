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
// the enclosing slice.
void write_chrome_json(const TraceModel& model, std::ostream& out);

// Perfetto protobuf (perfetto.protos.Trace): a TrackDescriptor per process and
// thread, SLICE_BEGIN/SLICE_END TrackEvents per sample, and each edge as
// flow_ids on the producer and terminating_flow_ids on the consumer.
void write_perfetto_trace(const TraceModel& model, std::ostream& out);

// Flow ids in both formats: edge index + 1 (0 means "no flow" to Perfetto).
inline std::uint64_t flow_id(std::size_t flow_index) { return flow_index + 1; }

}  // namespace hashtrace::report
