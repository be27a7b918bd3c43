#include "hashtrace/shard/result.hpp"

#include "hashtrace/text/text.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace hashtrace::shard {
namespace {

using text::format;

}  // namespace

metrics::AnalysisResult to_result(const ShardSummary& s, const RunIndex& run) {
    metrics::AnalysisResult r;
    r.files = run.logs.size();
    for (const auto& log : run.logs) metrics::add_input_health(r, log.path, log.report);
    r.samples = s.samples;
    r.edges = s.edges;
    r.message_edges = s.message_edges;
    r.local_edges = s.local_edges;
    r.unlinked_inputs = s.unlinked_inputs;
    r.unconsumed_outputs = s.unconsumed_outputs;
    r.nodes = s.nodes.size();
    r.instances = s.instances.size();
    r.first_time_ns = s.first_time_ns;
    r.last_time_ns = s.last_time_ns;
    r.window_s = double(graph::elapsed_ns(s.first_time_ns, s.last_time_ns)) / 1e9;
    for (const IntervalSummary& i : s.intervals) r.intervals.push_back({i.name, i.kind, i.from, i.to, i.latency.summary_ms(), {}, {}});
    r.m11_ms = s.m11.summary_ms();
    r.exact = {s.in_flight_ns, s.in_flight_sq_ns, s.in_flight_max, s.local_ns, s.message_ns};
    metrics::finish_edge_metrics(r);
    for (const auto& [key, c] : s.matrix)
        if (c.count) r.node_latency.push_back({key.first, key.second, c.count, double(static_cast<long double>(c.sum_ns) / c.count) / 1e6,
                                               double(c.max_ns) / 1e6, c.sum_ns, c.max_ns});
    r.warnings = margin_warnings(s);
    r.extra.push_back(sharding_section(s));
    return r;
}

std::vector<std::string> margin_warnings(const ShardSummary& s) {
    if (s.margin.held()) return {};
    std::string w = format("the shards' margin of %.3f ms did not hold: links up to %.3f ms and intervals up to %.3f ms were seen",
                           s.margin.margin_ns / 1e6, s.margin.longest_link_ns / 1e6, s.margin.longest_interval_ns / 1e6);
    if (const auto beyond = s.margin.beyond_by_tracepoint(); !beyond.empty()) {
        w += format("; %llu inputs may have had a producer beyond it (", (unsigned long long)s.margin.inputs_beyond_margin());
        bool first = true;
        for (const auto& [tracepoint, n] : beyond) {
            w += format("%s%s: %llu", first ? "" : ", ", tracepoint.c_str(), (unsigned long long)n);
            first = false;
        }
        w += ")";
    }
    w += format("; a margin of %.3f ms would have covered them (--margin-ms)", s.margin.needed_ns() / 1e6);
    return {w};
}

metrics::ExtraSection sharding_section(const ShardSummary& s) {
    const double error = s.m11.histogram.relative_error();
    nlohmann::ordered_json j{{"shards", s.shards},
                             {"margin_ms", s.margin.margin_ns / 1e6},
                             {"inputs_beyond_margin", s.margin.inputs_beyond_margin()},
                             {"percentile_relative_error", error},
                             {"margin_held", s.margin.held()},
                             {"longest_link_ms", s.margin.longest_link_ns / 1e6},
                             {"longest_interval_ms", s.margin.longest_interval_ns / 1e6},
                             {"inputs_beyond_margin_by_tracepoint", s.margin.beyond_by_tracepoint()}};
    metrics::ExtraSection section{"sharding", "Sharding", {}, j.dump()};
    section.text_lines.push_back(format("analysed in %llu time shards with a margin of %.3f ms; percentiles within %.3f %% (histograms), "
                                        "counts, sums, minima and maxima exact",
                                        (unsigned long long)s.shards, s.margin.margin_ns / 1e6, error * 100));
    for (const std::string& w : margin_warnings(s)) section.text_lines.push_back("warning: " + w);
    return section;
}

}  // namespace hashtrace::shard
