// The report's data model as JSON; field names are documented in docs/report.md.
// Streamed with JsonWriter, not built as a document: json_writer.hpp says why.
#include "hashtrace/report/html_report.hpp"
#include "hashtrace/report/json_writer.hpp"

namespace hashtrace::report {

namespace {

template <typename T>
void optional_number(JsonWriter& json, std::string_view key, const std::optional<T>& v) {
    json.key(key);
    if (v) json.value(*v);
    else json.null();
}

void write_statistics(JsonWriter& json, const Statistics& s) {
    json.begin_object().field("count", s.count).field("mean_ms", s.mean).field("sd_ms", s.sd).field("min_ms", s.min);
    json.field("p50_ms", s.p50).field("p95_ms", s.p95).field("p99_ms", s.p99).field("max_ms", s.max).end_object();
}

void write_runs(JsonWriter& json, const std::vector<RunMetrics>& runs) {
    json.key("runs").begin_array();
    for (const auto& run : runs) {
        json.begin_object().field("name", run.name).key("metrics").begin_array();
        for (const auto& m : run.metrics) {
            json.begin_object().field("name", m.name).field("unit", m.unit).field("better", m.better);
            optional_number(json, "value", m.value);
            json.end_object();
        }
        json.end_array().key("intervals").begin_array();
        for (const auto& iv : run.intervals) {
            json.begin_object().field("name", iv.name).field("kind", iv.kind).key("latency");
            write_statistics(json, iv.latency);
            json.end_object();
        }
        json.end_array().end_object();
    }
    json.end_array();
}

void write_health(JsonWriter& json, const Health& h) {
    json.key("health").begin_object();
    json.field("samples", h.samples).field("edges", h.edges).field("message_edges", h.message_edges);
    json.field("dropped_samples", h.dropped_samples).field("unlinked_inputs", h.unlinked_inputs);
    json.field("unconsumed_outputs", h.unconsumed_outputs).field("bad_records", h.bad_records);
    json.field("torn_files", h.torn_files);
    json.key("unclean_files").begin_array();
    for (const auto& f : h.unclean_files) json.value(f);
    json.end_array();
    json.key("nodes").begin_array();
    for (const auto& n : h.nodes) {
        json.begin_object().field("node", n.node).field("instance", n.instance).field("host", n.host);
        json.field("clock_source", n.clock_source).field("samples", n.samples).field("dropped", n.dropped);
        json.field("unlinked_inputs", n.unlinked_inputs);
        optional_number(json, "clock_error_ms", n.clock_error_ms);
        json.end_object();
    }
    json.end_array().end_object();
}

void write_intervals(JsonWriter& json, const std::vector<IntervalChart>& intervals) {
    json.key("intervals").begin_array();
    for (const auto& iv : intervals) {
        json.begin_object().field("name", iv.name).field("kind", iv.kind);
        json.key("summary");
        write_statistics(json, iv.summary);
        json.key("histogram").begin_object().field("lo_ms", iv.histogram.lo_ms).field("width_ms", iv.histogram.width_ms);
        json.key("counts").begin_array();
        for (auto c : iv.histogram.counts) json.value(c);
        json.end_array().field("overflow", iv.histogram.overflow).end_object();
        json.key("over_time").begin_object().field("bin_s", iv.over_time.bin_s).key("bins").begin_array();
        for (const auto& b : iv.over_time.bins) {
            json.begin_object().field("t_s", b.t_s).field("count", b.count).field("min", b.min).field("p50", b.p50);
            json.field("p95", b.p95).field("p99", b.p99).field("max", b.max).end_object();
        }
        json.end_array().key("points").begin_array();
        for (const auto& [t, ms] : iv.over_time.points) json.begin_array().value(t).value(ms).end_array();
        json.end_array().end_object().end_object();
    }
    json.end_array();
}

void write_matrix(JsonWriter& json, const NodeMatrix& m) {
    json.key("node_matrix").begin_object().key("nodes").begin_array();
    for (const auto& n : m.nodes) json.value(n);
    json.end_array().key("cells").begin_array();
    for (const auto& c : m.cells) {
        json.begin_object().field("from", c.from).field("to", c.to).field("count", c.count);
        json.field("mean_ms", c.mean_ms).field("max_ms", c.max_ms).end_object();
    }
    json.end_array().end_object();
}

void write_space_time(JsonWriter& json, const SpaceTime& st) {
    json.key("space_time").begin_object().field("duration_s", st.duration_s).key("lanes").begin_array();
    for (const auto& l : st.lanes) {
        json.begin_object().field("label", l.label).field("node", l.node).field("instance", l.instance);
        optional_number(json, "thread", l.thread);
        json.end_object();
    }
    json.end_array();
    json.key("density").begin_object().field("bins", st.density_bins).key("counts").begin_array();
    for (const auto& lane : st.density) {
        json.begin_array();
        for (auto c : lane) json.value(c);
        json.end_array();
    }
    json.end_array().end_object();
    json.key("ticks").begin_array();
    for (const auto& [lane, t] : st.ticks) json.begin_array().value(lane).value(t).end_array();
    json.end_array().field("ticks_total", st.ticks_total);
    json.key("edges").begin_array();
    for (const auto& e : st.edges)
        json.begin_array().value(e.from_lane).value(e.from_s).value(e.to_lane).value(e.to_s).end_array();
    json.end_array().field("edges_total", st.edges_total);
    for (const auto& [key, window] : {std::pair{"detail_window", st.detail_window}, std::pair{"open_window", st.open_window}}) {
        json.key(key);
        if (window) json.begin_array().value(window->first).value(window->second).end_array();
        else json.null();
    }
    json.end_object();
}

void write_routes(JsonWriter& json, const ReportData& data) {
    json.key("slowest").begin_array();
    for (const auto& s : data.slowest) {
        json.begin_object().field("interval", s.interval).field("from", s.from).field("to", s.to);
        json.field("latency_ms", s.latency_ms).field("t_s", s.t_s).field("route", s.route).end_object();
    }
    json.end_array();
    json.key("routes").begin_array();
    for (const auto& r : data.routes) {
        json.begin_object().field("title", r.title).field("origin", r.origin).field("truncated", r.truncated);
        json.key("samples").begin_array();
        for (const auto& s : r.samples) {
            json.begin_object().field("label", s.label).field("tracepoint", s.tracepoint).field("lane", s.lane);
            json.field("t_s", s.t_s).end_object();
        }
        json.end_array().key("edges").begin_array();
        for (const auto& [a, b] : r.edges) json.begin_array().value(a).value(b).end_array();
        json.end_array().end_object();
    }
    json.end_array();
}

void write_gaps(JsonWriter& json, const IdleGaps& g) {
    json.key("idle_gaps").begin_object().field("threshold_ms", g.threshold_ms);
    json.field("flag_concurrent", g.flag_concurrent).field("gaps_total", g.gaps_total).key("gaps").begin_array();
    for (const auto& gap : g.gaps) {
        json.begin_object().field("node", gap.node).field("start_s", gap.start_s).field("end_s", gap.end_s);
        json.field("duration_ms", gap.duration_ms).field("concurrent", gap.concurrent).end_object();
    }
    json.end_array().end_object();
}

void write_critical_paths(JsonWriter& json, const std::vector<CriticalPathChart>& paths) {
    json.key("critical_paths").begin_array();
    for (const auto& p : paths) {
        json.begin_object().field("interval", p.interval).field("count", p.count).field("mean_ms", p.mean_ms);
        json.field("p50_ms", p.p50_ms).field("p95_ms", p.p95_ms).field("p99_ms", p.p99_ms);
        json.field("unreached_starts", p.unreached_starts).field("not_followed", p.not_followed).key("segments").begin_array();
        for (const auto& s : p.segments) {
            json.begin_object().field("from", s.from).field("to", s.to).field("kind", s.kind);
            json.field("on_path_fraction", s.on_path_fraction).field("mean_ms", s.mean_ms).field("share", s.share);
            json.field("p50_ms", s.p50_ms).field("p95_ms", s.p95_ms).field("p99_ms", s.p99_ms).field("slack_ms", s.slack_ms);
            json.end_object();
        }
        json.end_array().end_object();
    }
    json.end_array();
}

void write_system(JsonWriter& json, const std::optional<SystemDrawing>& system) {
    json.key("system");
    if (!system) {
        json.null();
        return;
    }
    json.begin_object().field("kept", system->kept).field("suspect", system->suspect).field("shortcuts", system->shortcuts);
    json.field("depths", system->depths).field("links", system->links).field("links_a_spec_removes", system->links_a_spec_removes);
    json.key("nodes").begin_array();
    for (const auto& n : system->nodes) {
        json.begin_object().field("name", n.name).key("tracepoints").begin_array();
        for (const auto& tp : n.tracepoints) {
            json.begin_object().field("selector", tp.selector).field("name", tp.name).field("samples", tp.samples);
            json.field("source", tp.source).field("sink", tp.sink).field("depth", tp.depth).end_object();
        }
        json.end_array().end_object();
    }
    json.end_array().key("edges").begin_array();
    for (const auto& e : system->edges) {
        json.begin_object().field("from", e.from).field("to", e.to).field("rate_per_s", e.rate_per_s).field("p50_ms", e.p50_ms);
        json.field("suspect", e.suspect).field("verdict", e.verdict).field("scope", e.scope).end_object();
    }
    json.end_array().end_object();
}

}  // namespace

void write_report_json(const ReportData& data, std::ostream& out) {
    JsonWriter json(out);
    json.begin_object().field("format", "hashtrace-report/1").field("title", data.title).field("comparison", data.comparison);
    json.field("generated_by", data.generated_by).field("t0_ns", data.t0_ns).field("window_s", data.window_s).key("samples_window");
    if (data.samples_window) json.begin_array().value(data.samples_window->first).value(data.samples_window->second).end_array();
    else json.null();
    write_runs(json, data.runs);
    write_health(json, data.health);
    write_intervals(json, data.intervals);
    write_matrix(json, data.node_matrix);
    write_space_time(json, data.space_time);
    write_routes(json, data);
    write_gaps(json, data.idle_gaps);
    write_critical_paths(json, data.critical_paths);
    write_system(json, data.system);
    json.end_object();
}

}  // namespace hashtrace::report
