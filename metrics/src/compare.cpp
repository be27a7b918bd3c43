// compare: one row per metric, one column per run, then the best run by name
// (a column of its own, so it is never read as "best sd"), the significance
// test and each run's difference from the first; the best run is the lowest
// mean where lower is better (latencies, waiting time) and the highest M12
// (more time acting on messages than passing them); M3 and M8 have no ideal.
#include "hashtrace/metrics/compare.hpp"

#include "hashtrace/text/text.hpp"

#include <cstdio>

namespace hashtrace::metrics {
namespace {

using text::format;

Summary single_value(double v) {
    Summary s;
    s.count = 1;
    s.mean = s.min = s.max = s.p50 = s.p95 = s.p99 = v;
    return s;
}

void add_tested(Comparison& c, std::string name, std::string unit, Better better, std::span<const NamedRun> runs, auto&& values_of) {
    ComparedMetric m{std::move(name), std::move(unit), better, {}, std::nullopt, "", std::nullopt, {}};
    std::vector<std::vector<double>> groups;
    for (const NamedRun& run : runs) {
        const std::vector<double>* values = values_of(run.result);
        m.per_run.push_back(values ? std::optional<Summary>(summarize(*values)) : std::nullopt);
        groups.push_back(values ? *values : std::vector<double>{});
    }
    std::size_t present = 0;
    for (const auto& g : groups) present += !g.empty();
    if (present == 2) {
        std::vector<const std::vector<double>*> two;
        for (const auto& g : groups)
            if (!g.empty()) two.push_back(&g);
        m.test = "welch";
        m.p_value = welch_t_test(*two[0], *two[1]);
    } else if (present > 2) {
        m.test = "anova";
        m.p_value = one_way_anova(groups);
    }
    for (const auto& g : groups)
        m.vs_first.push_back(&g == &groups.front() ? std::nullopt : welch_mean_difference(groups.front(), g));
    c.metrics.push_back(std::move(m));
}

void add_single(Comparison& c, std::string name, std::string unit, Better better, std::span<const NamedRun> runs, auto&& value_of) {
    ComparedMetric m{std::move(name), std::move(unit), better, {}, std::nullopt, "", std::nullopt, {}};
    for (const NamedRun& run : runs) m.per_run.push_back(single_value(value_of(run.result)));
    m.vs_first.resize(m.per_run.size());
    c.metrics.push_back(std::move(m));
}

void mark_best(ComparedMetric& m) {
    if (m.better == Better::none) return;
    for (std::size_t i = 0; i < m.per_run.size(); ++i) {
        if (!m.per_run[i] || m.per_run[i]->count == 0) continue;
        const double v = m.per_run[i]->mean, best = m.best ? m.per_run[*m.best]->mean : v;
        if (!m.best || (m.better == Better::lower ? v < best : v > best)) m.best = i;
    }
}

std::string p_text(const ComparedMetric& m) {
    if (m.test.empty()) return "-";
    if (!m.p_value) return m.test + " n/a";
    return m.test + format(" p=%.3g", *m.p_value);
}

std::string best_text(const Comparison& c, const ComparedMetric& m) { return m.best ? c.runs[*m.best] : "-"; }

// Each later run's difference from the first: "B +1.234 [+1.100, +1.368]".
std::string difference_text(const Comparison& c, const ComparedMetric& m) {
    std::string out;
    for (std::size_t i = 1; i < m.vs_first.size(); ++i) {
        if (!m.vs_first[i]) continue;
        const MeanDifference& d = *m.vs_first[i];
        if (!out.empty()) out += "; ";
        out += c.runs[i] + format(" %+.3f [%+.3f, %+.3f]", d.difference, d.low, d.high);
    }
    return out.empty() ? "-" : out;
}

}  // namespace

Comparison compare(std::span<const NamedRun> runs) {
    Comparison c;
    for (const auto& r : runs) c.runs.push_back(r.name);
    add_tested(c, "M3 degree of parallelism", "messages", Better::none, runs,
               [](const AnalysisResult& r) { return &r.m3.samples; });
    // Intervals by name, in order of first appearance across the runs.
    std::vector<std::pair<std::string, graph::IntervalKind>> names;
    for (const auto& run : runs)
        for (const auto& i : run.result.intervals) {
            bool seen = false;
            for (const auto& n : names) seen |= n.first == i.name;
            if (!seen) names.emplace_back(i.name, i.kind);
        }
    for (const auto& named : names) {
        const std::string& name = named.first;
        add_tested(c, std::string(named.second == graph::IntervalKind::process ? "M4 " : "M5 ") + name, "ms", Better::lower, runs,
                   [&name](const AnalysisResult& r) -> const std::vector<double>* {
                       for (const auto& i : r.intervals)
                           if (i.name == name) return &i.values_ms;
                       return nullptr;
                   });
    }
    add_single(c, "M8 messages per second", "1/s", Better::none, runs, [](const AnalysisResult& r) { return r.m8; });
    add_tested(c, "M11 message waiting time", "ms", Better::lower, runs, [](const AnalysisResult& r) { return &r.m11_values_ms; });
    add_single(c, "M12 simulation-overhead ratio", "", Better::higher, runs, [](const AnalysisResult& r) { return r.m12; });
    for (auto& m : c.metrics) mark_best(m);
    return c;
}

std::string render_comparison_table(const Comparison& c) {
    std::string out = format("%-36s", "metric (mean sd)");
    for (const auto& run : c.runs) out += format(" %21.21s", run.c_str());
    out += format("  %-12s %-18s %s\n", "best", "significance", ("difference from " + c.runs.front() + " (95% CI)").c_str());
    for (const auto& m : c.metrics) {
        const std::string name = m.unit.empty() ? m.name : m.name + " (" + m.unit + ")";
        out += format("%-36.36s", name.c_str());
        for (const auto& run : m.per_run) {
            if (!run) out += format(" %21s", "-");
            else if (m.test.empty()) out += format(" %21.4g", run->mean);
            else out += format(" %10.3f %10.3f", run->mean, run->sd);
        }
        out += format("  %-12.12s %-18s %s\n", best_text(c, m).c_str(), p_text(m).c_str(), difference_text(c, m).c_str());
    }
    return out;
}

std::string render_comparison_markdown(const Comparison& c) {
    std::string out = "| metric |";
    std::string rule = "|---|";
    for (const auto& run : c.runs) {
        out += " " + run + " |";
        rule += "---:|";
    }
    out += " best | test | difference from " + c.runs.front() + " (95% CI) |\n" + rule + "---|---|---|\n";
    for (const auto& m : c.metrics) {
        out += "| " + (m.unit.empty() ? m.name : m.name + " (" + m.unit + ")") + " |";
        for (const auto& run : m.per_run)
            out += " " + (!run ? std::string("-") : m.test.empty() ? format("%.4g", run->mean) : format("%.3f (sd %.3f)", run->mean, run->sd)) + " |";
        out += " " + best_text(c, m) + " | " + p_text(m) + " | " + difference_text(c, m) + " |\n";
    }
    return out;
}

}  // namespace hashtrace::metrics
