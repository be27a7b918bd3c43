// Chrome JSON trace event format:
// https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU
#include "hashtrace/report/json_writer.hpp"
#include "hashtrace/report/trace_export.hpp"

namespace hashtrace::report {

namespace {

// Viewers read "ts" as a double: absolute UTC microseconds (~1.7e15) would
// lose the nanoseconds, so times are written relative to the first sample
// and the origin is kept in "otherData".
struct Clock {
    std::int64_t origin_ns;
    std::int64_t operator()(std::int64_t t) const { return t - origin_ns; }
};

void write_metadata(JsonWriter& json, const TraceModel& model) {
    for (std::size_t p = 0; p < model.processes.size(); ++p) {
        const auto& proc = model.processes[p];
        json.begin_object().field("ph", "M").field("name", "process_name").field("pid", p + 1).field("tid", 0);
        json.key("args").begin_object().field("name", proc.node + " " + proc.instance).end_object().end_object();
        json.begin_object().field("ph", "M").field("name", "process_sort_index").field("pid", p + 1).field("tid", 0);
        json.key("args").begin_object().field("sort_index", p).end_object().end_object();
    }
    for (std::size_t t = 0; t < model.threads.size(); ++t) {
        const auto pid = model.threads[t].process + 1;
        json.begin_object().field("ph", "M").field("name", "thread_name").field("pid", pid).field("tid", t + 1);
        json.key("args").begin_object().field("name", model.threads[t].name).end_object().end_object();
    }
}

void write_flow_end(JsonWriter& json, const TraceModel& model, std::uint32_t event, std::int64_t duration,
                    std::size_t flow, bool start, Clock clock) {
    const auto& e = model.events[event];
    // Inside the slice, not on its edge, so "the enclosing slice" is this one.
    json.begin_object().field("ph", start ? "s" : "f");
    if (!start) json.field("bp", "e");
    json.field("name", "message").field("cat", "hashtrace.edge").field("id", flow_id(flow));
    json.field("pid", model.threads[e.thread].process + 1).field("tid", e.thread + 1);
    json.key("ts").microseconds(clock(e.time_ns) + duration / 2).end_object();
}

}  // namespace

void write_chrome_json(const TraceModel& model, std::ostream& out) {
    check_trace_model(model);
    const auto durations = slice_durations(model);
    const Clock clock{model.events.empty() ? 0 : model.events.front().time_ns};

    JsonWriter json(out);
    json.begin_object().field("displayTimeUnit", "ns");
    json.key("otherData").begin_object();
    json.field("generator", "hashtrace export");
    json.field("time_origin_utc_ns", clock.origin_ns);
    json.end_object();

    json.key("traceEvents").begin_array();
    write_metadata(json, model);
    for (std::size_t i = 0; i < model.events.size(); ++i) {
        const auto& e = model.events[i];
        json.begin_object().field("ph", "X").field("name", model.names[e.name]).field("cat", "hashtrace.sample");
        json.field("pid", model.threads[e.thread].process + 1).field("tid", e.thread + 1);
        json.key("ts").microseconds(clock(e.time_ns)).key("dur").microseconds(durations[i]);
        json.key("args").begin_object();
        json.field("time_utc_ns", e.time_ns);
        if (e.has_input) json.field("input_hash", std::string_view(to_hex(e.input_hash).data(), 32));
        if (e.has_output) json.field("output_hash", std::string_view(to_hex(e.output_hash).data(), 32));
        json.end_object().end_object();
    }
    for (std::size_t f = 0; f < model.flows.size(); ++f) {
        const auto& flow = model.flows[f];
        write_flow_end(json, model, flow.from, durations[flow.from], f, true, clock);
        write_flow_end(json, model, flow.to, durations[flow.to], f, false, clock);
    }
    json.end_array().end_object();
    json.flush();
    out << '\n';
}

}  // namespace hashtrace::report
