// Opens reports in headless Chromium: fails on any console message or uncaught
// error, and checks that every chart drew something.
#include "browser.hpp"
#include "demo_run.hpp"
#include "report_fixture.hpp"
#include "run_command.hpp"

#include "hashtrace/report/build.hpp"
#include "hashtrace/report/html_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace hashtrace::report {
namespace {

const char* const kCharts[] = {"health-chart", "metrics-chart", "intervals-chart", "matrix-chart",
                               "spacetime-chart", "slowest-chart", "route-chart", "gaps-chart"};

test::BrowserRun render(const ReportData& d, const test::TempDir& dir) {
    const auto page = dir / "report.html";
    {
        std::ofstream out(page);
        write_report_html(d, out);
    }
    return test::open_in_chromium(page);
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
}

TEST(Browser, ReportOfALinkedRunRendersEveryChart) {
    // The real pipeline's output, not a hand-made model: load, link, analyse, build.
    const auto demo = test::demo_run();
    ReportOptions options;
    options.idle_threshold_ms = 30;
    test::TempDir dir;
    const auto run = render(build_report(demo.samples, demo.graph, demo.spec, demo.result, options), dir);
    ASSERT_EQ(run.status, 0) << run.log;
    EXPECT_TRUE(run.console.empty()) << joined(run.console);
    for (const char* chart : kCharts) {
        SCOPED_TRACE(chart);
        const auto attrs = test::element_attributes(run.dom, chart);
        EXPECT_EQ(attrs.count("data-rendered") ? attrs.at("data-rendered") : "", "true");
        EXPECT_GT(std::stoi(attrs.count("data-items") ? attrs.at("data-items") : "0"), 0);
    }
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
