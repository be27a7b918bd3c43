// The render stage. The JSON keeps docs/spec.md section 5b's keys and order (ordered_json)
// so diffs between runs stay readable; extra keys are documented in docs/analysis.md.
#include "hashtrace/metrics/render.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include "hashtrace/text/text.hpp"

#include <string>

namespace hashtrace::metrics {
namespace {

using json = nlohmann::ordered_json;

using text::format;

std::string kind_text(graph::IntervalKind k) { return k == graph::IntervalKind::process ? "M4" : "M5"; }

// The rows of the metric table, shared by the table, Markdown and CSV renderers.
struct Row {
    std::string name, unit;
    bool is_summary;
    Summary summary;  // is_summary
    double value;     // !is_summary
};

std::vector<Row> rows_of(const AnalysisResult& r) {
    std::vector<Row> rows;
    for (const auto& i : r.intervals) rows.push_back({kind_text(i.kind) + " " + i.name, "ms", true, i.latency_ms, 0});
    Summary m3;
    m3.mean = r.m3.mean;
    m3.sd = r.m3.sd;
    m3.max = r.m3.max;
    rows.push_back({"M3 degree of parallelism", "messages", false, m3, r.m3.mean});
    rows.push_back({"M8 messages per second", "1/s", false, {}, r.m8});
    rows.push_back({"M11 message waiting time", "ms", true, r.m11_ms, 0});
    rows.push_back({"M12 simulation-overhead ratio", "", false, {}, r.m12});
    return rows;
}

json summary_json(const Summary& s) {
    return json{{"count", s.count}, {"mean_ms", s.mean}, {"sd_ms", s.sd},   {"min_ms", s.min},      {"p50_ms", s.p50},
                {"p95_ms", s.p95},  {"p99_ms", s.p99},   {"max_ms", s.max}, {"jitter_ms", s.jitter}};
}

std::string header_text(const AnalysisResult& r) {
    std::string out = format("%llu samples from %zu files (%zu nodes, %zu instances), window %.3f s\n",
                             (unsigned long long)r.samples, r.files, r.nodes, r.instances, r.window_s);
    out += format("%llu edges: %llu message, %llu local; %llu inputs without producer, %llu outputs never consumed\n",
                  (unsigned long long)r.edges, (unsigned long long)r.message_edges, (unsigned long long)r.local_edges,
                  (unsigned long long)r.unlinked_inputs, (unsigned long long)r.unconsumed_outputs);
    if (r.bad_records || r.dropped_samples || r.torn_files)
        out += format("%llu bad records skipped, %llu samples dropped by writers, %llu files with a torn tail\n",
                      (unsigned long long)r.bad_records, (unsigned long long)r.dropped_samples, (unsigned long long)r.torn_files);
    if (r.lost_samples)
        out += format("%llu samples lost by writers that could not write (a full disk: the logs' loss records)\n",
                      (unsigned long long)r.lost_samples);
    if (r.stream_dropped_samples)
        out += format("%llu samples in the logs that their nodes' streams to a live collector dropped (the logs hold them)\n",
                      (unsigned long long)r.stream_dropped_samples);
    if (!r.unclean_files.empty())
        out += format("%zu of %zu logs not closed cleanly (killed or crashed: samples of their last flush interval may be missing)\n",
                      r.unclean_files.size(), r.files);
    return out;
}

}  // namespace

std::string render_table(const AnalysisResult& r) {
    std::string out = header_text(r);
    for (const auto& w : r.warnings) out += "warning: " + w + "\n";
    out += format("\n%-40s %9s %10s %10s %10s %10s %10s %10s %10s %10s\n", "metric", "count", "mean", "sd", "min", "p50", "p95",
                  "p99", "max", "jitter");
    for (const Row& row : rows_of(r)) {
        const std::string name = row.unit.empty() ? row.name : row.name + " (" + row.unit + ")";
        const Summary& s = row.summary;
        if (row.is_summary)
            out += format("%-40.40s %9zu %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", name.c_str(), s.count, s.mean, s.sd,
                          s.min, s.p50, s.p95, s.p99, s.max, s.jitter);
        else if (row.name.starts_with("M3"))
            out += format("%-40.40s %9s %10.3f %10.3f %10s %10s %10s %10s %10.0f %10s\n", name.c_str(), "", s.mean, s.sd, "", "", "", "",
                          s.max, "");
        else
            out += format("%-40.40s %9s %10.4g\n", name.c_str(), "", row.value);
    }
    if (!r.node_latency.empty()) {
        out += format("\n%-20s %-20s %9s %10s %10s\n", "node latency from", "to", "count", "mean ms", "max ms");
        for (const auto& n : r.node_latency)
            out += format("%-20.20s %-20.20s %9zu %10.3f %10.3f\n", n.from.c_str(), n.to.c_str(), n.count, n.mean_ms, n.max_ms);
    }
    for (const auto& e : r.extra) {
        out += "\n" + e.title + "\n";
        for (const auto& line : e.text_lines) out += line + "\n";
    }
    return out;
}

std::string render_markdown(const AnalysisResult& r) {
    std::string out = "# hashtrace analysis\n\n";
    const std::string head = header_text(r);
    for (const std::string_view line : text::lines(head)) out += "- " + std::string(line) + "\n";
    for (const auto& w : r.warnings) out += "- warning: " + w + "\n";
    out += "\n| metric | unit | count | mean | sd | min | p50 | p95 | p99 | max | jitter |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const Row& row : rows_of(r)) {
        const Summary& s = row.summary;
        if (row.is_summary)
            out += format("| %s | %s | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", row.name.c_str(), row.unit.c_str(),
                          s.count, s.mean, s.sd, s.min, s.p50, s.p95, s.p99, s.max, s.jitter);
        else if (row.name.starts_with("M3"))
            out += format("| %s | %s | | %.3f | %.3f | | | | | %.0f | |\n", row.name.c_str(), row.unit.c_str(), s.mean, s.sd, s.max);
        else
            out += format("| %s | %s | | %.4g | | | | | | | |\n", row.name.c_str(), row.unit.c_str(), row.value);
    }
    if (!r.node_latency.empty()) {
        out += "\n## Node latency matrix\n\n| from | to | count | mean ms | max ms |\n|---|---|---:|---:|---:|\n";
        for (const auto& n : r.node_latency)
            out += format("| %s | %s | %zu | %.3f | %.3f |\n", n.from.c_str(), n.to.c_str(), n.count, n.mean_ms, n.max_ms);
    }
    for (const auto& e : r.extra) {
        out += "\n## " + e.title + "\n\n";
        for (const auto& line : e.text_lines) out += "    " + line + "\n";
    }
    return out;
}

std::string render_csv(const AnalysisResult& r) {
    std::string out = "section,name,statistic,value\n";
    auto quote = [](const std::string& s) {
        if (s.find_first_of(",\"\n") == std::string::npos) return s;
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    auto add = [&](const std::string& section, const std::string& name, const char* stat, double v) {
        out += section + "," + quote(name) + "," + stat + "," + format("%.17g", v) + "\n";
    };
    add("run", "samples", "value", double(r.samples));
    add("run", "edges", "value", double(r.edges));
    add("run", "message_edges", "value", double(r.message_edges));
    add("run", "local_edges", "value", double(r.local_edges));
    add("run", "unlinked_inputs", "value", double(r.unlinked_inputs));
    add("run", "unconsumed_outputs", "value", double(r.unconsumed_outputs));
    add("run", "bad_records", "value", double(r.bad_records));
    add("run", "window_s", "value", r.window_s);
    auto add_summary = [&](const std::string& section, const std::string& name, const Summary& s) {
        add(section, name, "count", double(s.count));
        add(section, name, "mean_ms", s.mean);
        add(section, name, "sd_ms", s.sd);
        add(section, name, "min_ms", s.min);
        add(section, name, "p50_ms", s.p50);
        add(section, name, "p95_ms", s.p95);
        add(section, name, "p99_ms", s.p99);
        add(section, name, "max_ms", s.max);
        add(section, name, "jitter_ms", s.jitter);
    };
    for (const auto& i : r.intervals) add_summary(kind_text(i.kind), i.name, i.latency_ms);
    add("M3", "degree of parallelism", "mean", r.m3.mean);
    add("M3", "degree of parallelism", "sd", r.m3.sd);
    add("M3", "degree of parallelism", "max", r.m3.max);
    add("M8", "messages per second", "value", r.m8);
    add_summary("M11", "message waiting time", r.m11_ms);
    add("M12", "simulation-overhead ratio", "value", r.m12);
    for (const auto& n : r.node_latency) {
        add("node_latency", n.from + "->" + n.to, "count", double(n.count));
        add("node_latency", n.from + "->" + n.to, "mean_ms", n.mean_ms);
        add("node_latency", n.from + "->" + n.to, "max_ms", n.max_ms);
    }
    return out;
}

std::string render_json(const AnalysisResult& r) {
    json j;
    j["samples"] = r.samples;
    j["edges"] = r.edges;
    j["message_edges"] = r.message_edges;
    j["window_s"] = r.window_s;
    json intervals = json::array();
    for (const auto& i : r.intervals) {
        json entry{{"name", i.name}, {"kind", std::string(graph::to_string(i.kind))}, {"from", i.from}, {"to", i.to}};
        entry.update(summary_json(i.latency_ms));
        intervals.push_back(std::move(entry));
    }
    j["intervals"] = std::move(intervals);
    json m11 = summary_json(r.m11_ms);
    j["metrics"] = json{{"M3", {{"mean", r.m3.mean}, {"sd", r.m3.sd}, {"max", r.m3.max}}}, {"M8", r.m8}, {"M11", std::move(m11)}, {"M12", r.m12}};
    json matrix = json::array();
    for (const auto& n : r.node_latency)
        matrix.push_back({{"from", n.from}, {"to", n.to}, {"count", n.count}, {"mean_ms", n.mean_ms}, {"max_ms", n.max_ms}});
    j["node_latency_matrix"] = std::move(matrix);
    // Beyond docs/spec.md section 5b: the linking leftovers and input health.
    j["local_edges"] = r.local_edges;
    j["unlinked_inputs"] = r.unlinked_inputs;
    j["unconsumed_outputs"] = r.unconsumed_outputs;
    j["files"] = r.files;
    j["nodes"] = r.nodes;
    j["instances"] = r.instances;
    j["bad_records"] = r.bad_records;
    j["dropped_samples"] = r.dropped_samples;
    j["lost_samples"] = r.lost_samples;
    j["stream_dropped_samples"] = r.stream_dropped_samples;
    j["torn_files"] = r.torn_files;
    j["unclean_files"] = r.unclean_files;
    j["first_time_ns"] = r.first_time_ns;
    j["last_time_ns"] = r.last_time_ns;
    j["warnings"] = r.warnings;
    for (const auto& e : r.extra) j[e.key] = json::parse(e.json);
    // Node and tracepoint names come from logs as bytes: invalid UTF-8 is
    // replaced (U+FFFD) rather than failing the whole report.
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace hashtrace::metrics
