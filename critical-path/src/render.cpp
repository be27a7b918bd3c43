#include "hashtrace/critical_path/render.hpp"

#include "hashtrace/text/text.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace hashtrace::critical_path {
namespace {

using json = nlohmann::ordered_json;

using text::format;

std::string segment_name(const SegmentSummary& s) { return s.from + " -> " + s.to; }

std::string interval_header(const IntervalCriticalPath& p) {
    std::string out = format("%s: %zu instances, mean %.3f ms, p50 %.3f, p95 %.3f, p99 %.3f ms", p.name.c_str(), p.count, p.mean_ms, p.p50_ms,
                             p.p95_ms, p.p99_ms);
    if (p.unreached_starts) out += format("; %llu starts reach no end", (unsigned long long)p.unreached_starts);
    if (p.not_followed) out += format("; %llu instances could not be followed", (unsigned long long)p.not_followed);
    return out;
}

json figures_json(const RunFigures& f) {
    return json{{"count", f.count}, {"mean_ms", f.mean_ms}, {"p50_ms", f.p50_ms}, {"p95_ms", f.p95_ms}, {"p99_ms", f.p99_ms}, {"m8", f.m8}};
}

}  // namespace

std::string render_table(const std::vector<IntervalCriticalPath>& paths) {
    std::string out;
    for (const auto& p : paths) {
        out += interval_header(p) + "\n";
        out += format("  %-58s %-7s %7s %9s %6s %9s %9s %9s %9s\n", "segment", "kind", "on path", "mean ms", "share", "p50 ms", "p95 ms", "p99 ms",
                      "slack ms");
        for (const auto& s : p.segments)
            out += format("  %-58.58s %-7s %6.1f%% %9.3f %5.1f%% %9.3f %9.3f %9.3f %9.3f\n", segment_name(s).c_str(),
                          std::string(to_string(s.kind)).c_str(), 100 * s.on_path_fraction, s.mean_ms, 100 * s.share, s.p50_ms, s.p95_ms,
                          s.p99_ms, s.slack_ms);
        out += "\n";
    }
    return out;
}

std::string render_markdown(const std::vector<IntervalCriticalPath>& paths) {
    std::string out = "# Critical path\n";
    for (const auto& p : paths) {
        out += "\n## " + p.name + "\n\n" + interval_header(p) + "\n\n";
        out += "| segment | kind | on path | mean ms | share | p50 ms | p95 ms | p99 ms | slack ms |\n";
        out += "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
        for (const auto& s : p.segments)
            out += format("| %s | %s | %.1f%% | %.3f | %.1f%% | %.3f | %.3f | %.3f | %.3f |\n", segment_name(s).c_str(),
                          std::string(to_string(s.kind)).c_str(), 100 * s.on_path_fraction, s.mean_ms, 100 * s.share, s.p50_ms, s.p95_ms,
                          s.p99_ms, s.slack_ms);
    }
    return out;
}

std::string render_json(const std::vector<IntervalCriticalPath>& paths) {
    json list = json::array();
    for (const auto& p : paths) {
        json segments = json::array();
        for (const auto& s : p.segments)
            segments.push_back({{"from", s.from},
                                {"to", s.to},
                                {"kind", to_string(s.kind)},
                                {"on_path_fraction", s.on_path_fraction},
                                {"mean_ms", s.mean_ms},
                                {"share", s.share},
                                {"p50_ms", s.p50_ms},
                                {"p95_ms", s.p95_ms},
                                {"p99_ms", s.p99_ms},
                                {"slack_ms", s.slack_ms}});
        list.push_back({{"interval", p.name},
                        {"count", p.count},
                        {"mean_ms", p.mean_ms},
                        {"p50_ms", p.p50_ms},
                        {"p95_ms", p.p95_ms},
                        {"p99_ms", p.p99_ms},
                        {"unreached_starts", p.unreached_starts},
                        {"not_followed", p.not_followed},
                        {"segments", segments}});
    }
    return json{{"critical_path", list}}.dump(2) + "\n";
}

std::string render_table(const WhatIfResult& r) {
    std::string out = r.interval + "\n";
    for (std::size_t c = 0; c < r.changes.size(); ++c)
        out += format("  change %s (%llu segments)\n", r.changes[c].c_str(), (unsigned long long)r.changed_segments[c]);
    out += format("\n  %-10s %9s %10s %10s %10s %10s %10s\n", "", "count", "mean ms", "p50 ms", "p95 ms", "p99 ms", "M8 1/s");
    for (const auto& [name, f] : {std::pair{"baseline", &r.baseline}, std::pair{"predicted", &r.predicted}})
        out += format("  %-10s %9zu %10.3f %10.3f %10.3f %10.3f %10.1f\n", name, f->count, f->mean_ms, f->p50_ms, f->p95_ms, f->p99_ms, f->m8);
    if (r.baseline.mean_ms > 0)
        out += format("  %-10s %9s %9.1f%% %9.1f%% %9.1f%% %9.1f%%\n", "change", "", 100 * (r.predicted.mean_ms / r.baseline.mean_ms - 1),
                      r.baseline.p50_ms > 0 ? 100 * (r.predicted.p50_ms / r.baseline.p50_ms - 1) : 0.0,
                      r.baseline.p95_ms > 0 ? 100 * (r.predicted.p95_ms / r.baseline.p95_ms - 1) : 0.0,
                      r.baseline.p99_ms > 0 ? 100 * (r.predicted.p99_ms / r.baseline.p99_ms - 1) : 0.0);
    out += "\nwhat the model assumed:\n";
    out += format("  %llu queued inputs served in a new order\n", (unsigned long long)r.reorderings);
    for (const auto& q : r.queues) {
        if (q.simulated)
            out += format("  polling loop taking %s: %llu of %llu inputs taken at another tick than recorded (its batches end "
                          "sooner or run on), %llu after the recording's last tick\n",
                          q.consumer.c_str(), (unsigned long long)q.moved, (unsigned long long)q.slots, (unsigned long long)q.after_end);
        if (q.reordered || q.starved)
            out += format("  queue into %s: %llu of %llu takes reordered; %llu takes found no input yet (the real thread would have done "
                          "something else; the model waits)\n",
                          q.consumer.c_str(), (unsigned long long)q.reordered, (unsigned long long)q.slots, (unsigned long long)q.starved);
    }
    if (r.delayed_external)
        out += format("  %llu samples started from outside the trace (timer ticks, devices) delayed because their thread was busy\n",
                      (unsigned long long)r.delayed_external);
    if (r.backward_constraints)
        out += format("  %llu inputs recorded after their consumer (clock tolerance) ignored\n", (unsigned long long)r.backward_constraints);
    if (r.unreached_starts) out += format("  %llu starts reach no end (not instances)\n", (unsigned long long)r.unreached_starts);
    return out;
}

std::string render_json(const WhatIfResult& r) {
    json queues = json::array();
    for (const auto& q : r.queues)
        queues.push_back({{"consumer", q.consumer},
                          {"slots", q.slots},
                          {"reordered", q.reordered},
                          {"starved", q.starved},
                          {"polling_loop", q.simulated},
                          {"moved", q.moved},
                          {"after_end", q.after_end}});
    const json out{{"interval", r.interval},
                   {"changes", r.changes},
                   {"baseline", figures_json(r.baseline)},
                   {"predicted", figures_json(r.predicted)},
                   {"changed_segments", r.changed_segments},
                   {"reorderings", r.reorderings},
                   {"queues", queues},
                   {"delayed_external", r.delayed_external},
                   {"backward_constraints", r.backward_constraints},
                   {"unreached_starts", r.unreached_starts}};
    return out.dump(2) + "\n";
}

}  // namespace hashtrace::critical_path
