// Opens reports in headless Chromium: fails on any console message or uncaught
// error, and checks that every chart drew something.
#include "browser.hpp"
#include "demo_run.hpp"
#include "report_fixture.hpp"
#include "run_command.hpp"

#include "systems.hpp"

#include "hashtrace/infer/system_picture.hpp"
#include "hashtrace/report/build.hpp"
#include "hashtrace/report/html_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace hashtrace::report {
namespace {

// The charts of a run analysed with a spec; a spec-less run's page also
// draws "system-chart".
const char* const kCharts[] = {"health-chart", "metrics-chart",  "intervals-chart", "critical-path-chart", "matrix-chart",
                               "spacetime-chart", "slowest-chart", "route-chart",     "gaps-chart"};

test::BrowserRun render(const ReportData& d, const test::TempDir& dir) {
    const auto page = dir / "report.html";
    {
        std::ofstream out(page);
        write_report_html(d, out);
    }
    return test::open_in_chromium(page);
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

TEST(Browser, DemoReportRendersEveryChartWithoutConsoleErrors) {
    test::TempDir dir;
    const auto run = render(test::demo_report_data(), dir);
    ASSERT_EQ(run.status, 0) << run.log;
    EXPECT_TRUE(run.console.empty()) << joined(run.console);
    ASSERT_THAT(run.dom, ::testing::HasSubstr("data-ready=\"true\"")) << "the script did not finish";
    for (const char* chart : kCharts) {
        SCOPED_TRACE(chart);
        const auto attrs = test::element_attributes(run.dom, chart);
        EXPECT_EQ(attrs.count("data-rendered") ? attrs.at("data-rendered") : "", "true");
        EXPECT_GT(std::stoi(attrs.count("data-items") ? attrs.at("data-items") : "0"), 0);
    }
    // The drawn elements themselves are there, not only the marks.
    EXPECT_THAT(run.dom, ::testing::HasSubstr("class=\"histogram\""));
    EXPECT_THAT(run.dom, ::testing::HasSubstr("class=\"interval-table\""));
    EXPECT_THAT(run.dom, ::testing::HasSubstr("<td class=\"best\">910</td>"));  // run B has the higher M8
    EXPECT_THAT(run.dom, ::testing::HasSubstr("class=\"cell\""));
    EXPECT_THAT(run.dom, ::testing::HasSubstr("class=\"route-sample\""));
    EXPECT_THAT(run.dom, ::testing::HasSubstr("<tr class=\"flag\">"));  // gap paused with another node
    EXPECT_THAT(run.dom, ::testing::HasSubstr("<ul class=\"unclean-files\"><li>logs/Unity-3c4d.htlog</li></ul>"));
    EXPECT_EQ(occurrences(run.dom, "class=\"cp-bars\""), 1u);
    EXPECT_EQ(occurrences(run.dom, "class=\"cp-segment\""), 12u);  // 4 rows of the 3 segments that contribute
    EXPECT_EQ(occurrences(run.dom, "class=\"slack-table\""), 1u);
    // The fixture has a system too: every box, tracepoint and edge is drawn.
    const auto system = test::element_attributes(run.dom, "system-chart");
    EXPECT_EQ(system.at("data-boxes"), "2");
    EXPECT_EQ(system.at("data-tracepoints"), "5");
    EXPECT_EQ(system.at("data-edges"), "5");
    EXPECT_EQ(occurrences(run.dom, "class=\"system-edge suspect\""), 1u);
}

TEST(Browser, ReportOfALinkedRunRendersEveryChart) {
    // The real pipeline's output, not a hand-made model: load, link, analyse, build.
    const auto demo = test::demo_run();
    ReportOptions options;
    options.idle_threshold_ms = 30;
    test::TempDir dir;
    auto data = build_report(demo.samples, demo.graph, demo.spec, demo.result, options);
    data.critical_paths = critical_path_section(demo.samples, demo.graph, demo.spec);
    const auto run = render(data, dir);
    ASSERT_EQ(run.status, 0) << run.log;
    EXPECT_TRUE(run.console.empty()) << joined(run.console);
    for (const char* chart : kCharts) {
        SCOPED_TRACE(chart);
        const auto attrs = test::element_attributes(run.dom, chart);
        EXPECT_EQ(attrs.count("data-rendered") ? attrs.at("data-rendered") : "", "true");
        EXPECT_GT(std::stoi(attrs.count("data-items") ? attrs.at("data-items") : "0"), 0);
    }
    EXPECT_EQ(occurrences(run.dom, "class=\"cp-bars\""), 2u);  // one per interval
    EXPECT_EQ(test::element_attributes(run.dom, "system").count("hidden"), 1u) << "a run with a spec has no inferred system";
}

TEST(Browser, ASpecLessRunShowsItsSystemAsBoxesAndEdges) {
    // Four nodes: a sender, a router fanning out to A and B (infer's test system).
    const auto logs = infer::testing::router_pipeline(200);
    const auto samples = logs.load();
    const auto specless = graph::link(samples, graph::AnalysisSpec{});
    const auto result = metrics::analyze(samples, specless, graph::AnalysisSpec{});
    const auto evidence = infer::gather_evidence(samples, specless);
    const auto picture = infer::system_picture(evidence, infer::recover_chains(evidence));
    auto data = build_report(samples, specless, graph::AnalysisSpec{}, result, {});
    data.system = system_section(evidence);
    test::TempDir dir;
    const auto run = render(data, dir);
    ASSERT_EQ(run.status, 0) << run.log;
    EXPECT_TRUE(run.console.empty()) << joined(run.console);
    EXPECT_EQ(test::element_attributes(run.dom, "system").count("hidden"), 0u);
    const auto attrs = test::element_attributes(run.dom, "system-chart");
    EXPECT_EQ(attrs.at("data-rendered"), "true");
    EXPECT_EQ(attrs.at("data-boxes"), "4");
    EXPECT_EQ(attrs.at("data-tracepoints"), "8");
    EXPECT_EQ(attrs.at("data-edges"), std::to_string(picture.edges.size()));
    EXPECT_EQ(occurrences(run.dom, "<g class=\"system-node\">"), 4u);
    EXPECT_EQ(occurrences(run.dom, "class=\"system-edge\""), picture.kept);
    EXPECT_EQ(occurrences(run.dom, "class=\"system-edge suspect\""), picture.suspect);
    EXPECT_GT(picture.suspect, 0u);
    EXPECT_THAT(run.dom, ::testing::HasSubstr("hashtrace infer LOGS -o spec.toml"));
}

TEST(Browser, EmptyRunStillRendersWithoutErrors) {
    test::TempDir dir;
    ReportData empty;
    const auto run = render(empty, dir);
    ASSERT_EQ(run.status, 0) << run.log;
    EXPECT_TRUE(run.console.empty()) << joined(run.console);
    for (const char* chart : kCharts) {
        SCOPED_TRACE(chart);
        EXPECT_EQ(test::element_attributes(run.dom, chart).at("data-rendered"), "true");
    }
}

TEST(Browser, ComparisonShowsTheTablesAloneWithTheBestValuesMarked) {
    test::TempDir dir;
    auto d = test::demo_report_data();
    ReportData comparison;
    comparison.comparison = true;
    comparison.runs = d.runs;
    const auto run = render(comparison, dir);
    ASSERT_EQ(run.status, 0) << run.log;
    EXPECT_TRUE(run.console.empty()) << joined(run.console);
    EXPECT_GT(std::stoi(test::element_attributes(run.dom, "metrics-chart").at("data-items")), 0);
    EXPECT_EQ(test::element_attributes(run.dom, "spacetime").count("hidden"), 1u);
    EXPECT_EQ(test::element_attributes(run.dom, "metrics").count("hidden"), 0u);
    EXPECT_THAT(run.dom, ::testing::HasSubstr("<td class=\"best\">0.9500</td>"));  // run B's lower M11
}

// The harness itself must catch a broken page, or the tests above prove nothing.
TEST(Browser, HarnessReportsUncaughtErrors) {
    test::TempDir dir;
    const auto page = dir / "broken.html";
    std::ofstream(page) << "<html><body><script>missingFunction();</script></body></html>";
    const auto run = test::open_in_chromium(page);
    ASSERT_EQ(run.console.size(), 1u) << run.log;
    EXPECT_THAT(run.console[0], ::testing::HasSubstr("missingFunction is not defined"));
}

}  // namespace
}  // namespace hashtrace::report
