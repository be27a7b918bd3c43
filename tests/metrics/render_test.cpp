#include "hashtrace/metrics/compare.hpp"
#include "hashtrace/metrics/render.hpp"

#include <gtest/gtest.h>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace hashtrace::metrics {
namespace {

AnalysisResult example() {
    AnalysisResult r;
    r.samples = 12;
    r.edges = 10;
    r.message_edges = 6;
    r.window_s = 0.016;
    IntervalResult i;
    i.name = "M4.3 Chai force to send";
    i.latency_ms = summarize(std::vector<double>{1, 2, 3});
    r.intervals.push_back(i);
    r.m3 = {0.75, 0.5, 2, {}};
    r.m8 = 375;
    r.m11_ms = summarize(std::vector<double>{1, 2, 3, 1, 2, 3});
    r.m12 = 0.5;
    r.node_latency.push_back({"Chai", "Unity", 2, 4, 4.5});
    return r;
}

// docs/spec.md section 5b: the required keys, with the values of the result.
TEST(Render, JsonHasSpecKeys) {
    const auto j = nlohmann::json::parse(render_json(example()));
    EXPECT_EQ(j["samples"], 12);
    EXPECT_EQ(j["edges"], 10);
    EXPECT_EQ(j["message_edges"], 6);
    EXPECT_DOUBLE_EQ(j["window_s"].get<double>(), 0.016);
    const auto& interval = j["intervals"][0];
    EXPECT_EQ(interval["name"], "M4.3 Chai force to send");
    EXPECT_EQ(interval["kind"], "process");
    for (const char* key : {"count", "mean_ms", "sd_ms", "min_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms"})
        EXPECT_TRUE(interval.contains(key)) << key;
    EXPECT_DOUBLE_EQ(interval["p50_ms"].get<double>(), 2);
    EXPECT_DOUBLE_EQ(j["metrics"]["M3"]["mean"].get<double>(), 0.75);
    EXPECT_DOUBLE_EQ(j["metrics"]["M3"]["max"].get<double>(), 2);
    EXPECT_DOUBLE_EQ(j["metrics"]["M8"].get<double>(), 375);
    for (const char* key : {"count", "mean_ms", "sd_ms", "p50_ms", "p99_ms", "max_ms"}) EXPECT_TRUE(j["metrics"]["M11"].contains(key)) << key;
    EXPECT_DOUBLE_EQ(j["metrics"]["M12"].get<double>(), 0.5);
    EXPECT_EQ(j["node_latency_matrix"][0]["from"], "Chai");
    EXPECT_DOUBLE_EQ(j["node_latency_matrix"][0]["max_ms"].get<double>(), 4.5);
}

// Names come from logs as raw bytes; invalid UTF-8 must not fail the report (found by fuzz_analyze_csv).
TEST(Render, InvalidUtf8NamesAreReplaced) {
    auto r = example();
    r.node_latency[0].from = "Ch\xffi";
    const auto j = nlohmann::json::parse(render_json(r));
    EXPECT_EQ(j["node_latency_matrix"][0]["from"], "Ch\xef\xbf\xbdi");
}

TEST(Render, ExtraSectionsAppear) {
    auto r = example();
    r.extra.push_back({"clock_sync", "Clock sync", {"Chai: 12 us"}, R"({"Chai": {"error_us": 12}})"});
    const auto j = nlohmann::json::parse(render_json(r));
    EXPECT_EQ(j["clock_sync"]["Chai"]["error_us"], 12);
    EXPECT_NE(render_table(r).find("Chai: 12 us"), std::string::npos);
    EXPECT_NE(render_markdown(r).find("## Clock sync"), std::string::npos);
}

TEST(Render, TableMarkdownCsv) {
    const auto r = example();
    const auto table = render_table(r);
    EXPECT_NE(table.find("M4 M4.3 Chai force to send"), std::string::npos) << table;
    EXPECT_NE(table.find("M12"), std::string::npos);
    const auto md = render_markdown(r);
    EXPECT_NE(md.find("| M11 message waiting time | ms | 6 | 2.000 |"), std::string::npos) << md;
    const auto csv = render_csv(r);
    EXPECT_NE(csv.find("M4,M4.3 Chai force to send,p50_ms,2\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find("node_latency,Chai->Unity,count,2\n"), std::string::npos) << csv;
}

// Three runs: B has the lowest latency and the highest M12; ANOVA says the
// latencies differ (groups far apart), M8/M12 are not tested.
TEST(Compare, MarksBestAndTests) {
    std::vector<NamedRun> runs;
    const std::vector<std::vector<double>> latencies{{10, 11, 12, 10, 11}, {5, 6, 5, 6, 5}, {20, 21, 19, 20, 22}};
    const std::vector<double> m12{0.01, 0.03, 0.02};
    for (int i = 0; i < 3; ++i) {
        AnalysisResult r;
        IntervalResult interval;
        interval.name = "e2e";
        interval.kind = graph::IntervalKind::end_to_end;
        interval.values_ms = latencies[i];
        interval.latency_ms = summarize(latencies[i]);
        r.intervals.push_back(interval);
        r.m11_values_ms = latencies[i];
        r.m12 = m12[i];
        runs.push_back({std::string(1, char('A' + i)), r});
    }
    const auto c = compare(runs);
    const ComparedMetric* e2e = nullptr;
    const ComparedMetric* ratio = nullptr;
    for (const auto& m : c.metrics) {
        if (m.name == "M5 e2e") e2e = &m;
        if (m.name.starts_with("M12")) ratio = &m;
    }
    ASSERT_TRUE(e2e && ratio);
    EXPECT_EQ(e2e->best, 1u);
    EXPECT_EQ(e2e->test, "anova");
    ASSERT_TRUE(e2e->p_value);
    EXPECT_LT(*e2e->p_value, 1e-6);
    EXPECT_EQ(ratio->best, 1u);
    EXPECT_FALSE(ratio->p_value);
    // The effect beside the p-value: B and C against A, none for A itself.
    ASSERT_EQ(e2e->vs_first.size(), 3u);
    EXPECT_FALSE(e2e->vs_first[0]);
    ASSERT_TRUE(e2e->vs_first[1] && e2e->vs_first[2]);
    EXPECT_LT(e2e->vs_first[1]->low, e2e->vs_first[1]->difference);
    EXPECT_GT(e2e->vs_first[1]->high, e2e->vs_first[1]->difference);
    EXPECT_FALSE(ratio->vs_first[1]) << "single values have no interval";
    const auto table = render_comparison_table(c);
    EXPECT_NE(table.find("anova p="), std::string::npos) << table;
    EXPECT_NE(table.find("difference from A (95% CI)"), std::string::npos) << table;
    char b_vs_a[96];
    std::snprintf(b_vs_a, sizeof b_vs_a, "B %+.3f [%+.3f, %+.3f]", e2e->vs_first[1]->difference, e2e->vs_first[1]->low,
                  e2e->vs_first[1]->high);
    EXPECT_NE(table.find(b_vs_a), std::string::npos) << table;
    EXPECT_EQ(table.find('*'), std::string::npos) << "the best run is named in its own column, not starred:\n" << table;
    const auto markdown = render_comparison_markdown(c);
    EXPECT_NE(markdown.find("| best |"), std::string::npos) << markdown;
    EXPECT_EQ(markdown.find("**"), std::string::npos) << markdown;

    // Two runs: Welch.
    const auto two = compare(std::span(runs).first(2));
    for (const auto& m : two.metrics) {
        if (m.name == "M5 e2e") {
            EXPECT_EQ(m.test, "welch");
        }
    }
}

}  // namespace
}  // namespace hashtrace::metrics
