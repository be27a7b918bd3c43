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

// The critical paths' processes come after the node instances' (pids 1..P).
std::size_t critical_path_pid(const TraceModel& model, std::size_t interval) { return model.processes.size() + 1 + interval; }

void write_metadata(JsonWriter& json, const TraceModel& model, const CriticalPathLayout& layout) {
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
    // The critical paths: a process per interval, above the nodes' processes,
    // a thread per lane.
    std::size_t tid = model.threads.size();
    for (std::size_t k = 0; k < model.critical_path_intervals.size(); ++k) {
        const auto pid = critical_path_pid(model, k);
        json.begin_object().field("ph", "M").field("name", "process_name").field("pid", pid).field("tid", 0);
        json.key("args").begin_object().field("name", "critical path: " + model.critical_path_intervals[k]).end_object().end_object();
        json.begin_object().field("ph", "M").field("name", "process_sort_index").field("pid", pid).field("tid", 0);
        json.key("args").begin_object().field("sort_index", std::int64_t(k) - std::int64_t(model.critical_path_intervals.size())).end_object();
        json.end_object();
        for (std::uint32_t lane = 0; lane < layout.lanes[k]; ++lane) {
            json.begin_object().field("ph", "M").field("name", "thread_name").field("pid", pid).field("tid", ++tid);
            json.key("args").begin_object().field("name", "lane " + std::to_string(lane + 1)).end_object().end_object();
        }
    }
}

void write_flow_end(JsonWriter& json, const TraceModel& model, std::uint32_t event, std::int64_t duration, std::uint64_t id,
                    std::string_view name, std::string_view category, bool start, Clock clock) {
    const auto& e = model.events[event];
    // Inside the slice, not on its edge, so "the enclosing slice" is this one.
    json.begin_object().field("ph", start ? "s" : "f");
    if (!start) json.field("bp", "e");
    json.field("name", name).field("cat", category).field("id", id);
    json.field("pid", model.threads[e.thread].process + 1).field("tid", e.thread + 1);
    json.key("ts").microseconds(clock(e.time_ns) + duration / 2).end_object();
}

// Each instance a slice on its interval's lane, its segments nested inside.
void write_critical_path_slices(JsonWriter& json, const TraceModel& model, const CriticalPathLayout& layout, Clock clock) {
    std::vector<std::size_t> first_tid(model.critical_path_intervals.size());
    for (std::size_t k = 0, tid = model.threads.size() + 1; k < first_tid.size(); tid += layout.lanes[k++]) first_tid[k] = tid;
    for (std::size_t i = 0; i < model.critical_paths.size(); ++i) {
        const auto& p = model.critical_paths[i];
        const auto pid = critical_path_pid(model, p.interval);
        const auto tid = first_tid[p.interval] + layout.lane[i];
        const auto last = p.first + p.count - 1;
        const auto& from = model.events[model.critical_segments[p.first].from];
        const auto& to = model.events[model.critical_segments[last].to];
        json.begin_object().field("ph", "X").field("name", model.critical_path_intervals[p.interval]).field("cat", "critical_path");
        json.field("pid", pid).field("tid", tid).key("ts").microseconds(clock(layout.begin_ns[p.first]));
        json.key("dur").microseconds(layout.end_ns[last] - layout.begin_ns[p.first]);
        json.key("args").begin_object().field("latency_ms", double(to.time_ns - from.time_ns) / 1e6).end_object().end_object();
        for (std::uint32_t k = p.first; k <= last; ++k) {
            json.begin_object().field("ph", "X").field("name", model.segment_names[model.critical_segments[k].name]);
            json.field("cat", "critical_path").field("pid", pid).field("tid", tid).key("ts").microseconds(clock(layout.begin_ns[k]));
            json.key("dur").microseconds(layout.end_ns[k] - layout.begin_ns[k]).end_object();
        }
    }
}

}  // namespace

void write_chrome_json(const TraceModel& model, std::ostream& out) {
    check_trace_model(model);
    const auto durations = slice_durations(model);
    const auto layout = layout_critical_paths(model);
    const Clock clock{model.events.empty() ? 0 : model.events.front().time_ns};

    JsonWriter json(out);
    json.begin_object().field("displayTimeUnit", "ns");
    json.key("otherData").begin_object();
    json.field("generator", "hashtrace export");
    json.field("time_origin_utc_ns", clock.origin_ns);
    json.end_object();

    json.key("traceEvents").begin_array();
    write_metadata(json, model, layout);
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
        write_flow_end(json, model, flow.from, durations[flow.from], flow_id(f), "message", "hashtrace.edge", true, clock);
        write_flow_end(json, model, flow.to, durations[flow.to], flow_id(f), "message", "hashtrace.edge", false, clock);
    }
    // Each critical-path segment also as a flow between the samples' own
    // slices, named after its interval: in the viewers' flow lists and
    // category filters the critical steps stand apart from the other edges.
    write_critical_path_slices(json, model, layout, clock);
    for (const auto& p : model.critical_paths) {
        const std::string name = "critical_path:" + model.critical_path_intervals[p.interval];
        for (std::uint32_t k = p.first; k < p.first + p.count; ++k) {
            const auto& s = model.critical_segments[k];
            const auto id = critical_path_flow_id(model, k);
            write_flow_end(json, model, s.from, durations[s.from], id, name, name, true, clock);
            write_flow_end(json, model, s.to, durations[s.to], id, name, name, false, clock);
        }
    }
    json.end_array().end_object();
    json.flush();
    out << '\n';
}

}  // namespace hashtrace::report
