#include "report_fixture.hpp"

#include "hashtrace/report/html_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace hashtrace::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string page_of(const ReportData& d) {
    std::ostringstream out;
    write_report_html(d, out);
    return out.str();
}

// The JSON between the data script's tags.
nlohmann::json embedded_data(const std::string& page) {
    const std::string open = "<script type=\"application/json\" id=\"report-data\">";
    const auto begin = page.find(open);
    const auto end = page.find("</script>", begin);
    EXPECT_NE(begin, std::string::npos);
    return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

TEST(HtmlReport, IsOneSelfContainedPage) {
    const auto page = page_of(test::demo_report_data());
    EXPECT_THAT(page, HasSubstr("<!DOCTYPE html>"));
    EXPECT_THAT(page, Not(HasSubstr("/*HASHTRACE_")));  // every placeholder filled
    EXPECT_THAT(page, Not(HasSubstr("/*UPLOT_")));
    EXPECT_THAT(page, Not(HasSubstr("<!--HASHTRACE_")));
    EXPECT_THAT(page, HasSubstr("function drawSpaceTime"));
    EXPECT_THAT(page, HasSubstr("--accent"));
    // uPlot is embedded (script and style), before the scripts that use it; the
    // page's scripts run helpers first and report.js, which draws, last.
    const auto uplot = page.find("var uPlot"), uplot_css = page.find(".uplot {font-family");
    const auto helpers = page.find("function fmt("), charts = page.find("new uPlot("), draw = page.find("for (const draw of [");
    ASSERT_NE(uplot, std::string::npos);
    ASSERT_NE(uplot_css, std::string::npos);
    ASSERT_NE(draw, std::string::npos);
    EXPECT_LT(uplot, helpers);
    EXPECT_LT(helpers, charts);
    EXPECT_LT(charts, draw);
    // Nothing that would fetch from elsewhere.
    EXPECT_THAT(page, Not(HasSubstr("src=\"http")));
    EXPECT_THAT(page, Not(HasSubstr("href=\"http")));
    EXPECT_THAT(page, Not(HasSubstr("@import")));
    EXPECT_THAT(page, HasSubstr("default-src 'none'"));
}

TEST(HtmlReport, EmbedsTheDataModelAsJson) {
    const auto d = test::demo_report_data();
    const auto j = embedded_data(page_of(d));
    EXPECT_EQ(j.at("format"), "hashtrace-report/1");
    EXPECT_EQ(j.at("runs").size(), 2u);
    EXPECT_TRUE(j.at("runs")[0].at("metrics")[3].at("value").is_null());
    EXPECT_DOUBLE_EQ(j.at("runs")[1].at("intervals")[0].at("latency").at("max_ms").get<double>(), 30.0);
    EXPECT_EQ(j.at("health").at("nodes")[1].at("clock_error_ms"), nullptr);
    EXPECT_EQ(j.at("health").at("unclean_files"), nlohmann::json::array({"logs/Unity-3c4d.htlog"}));
    EXPECT_DOUBLE_EQ(j.at("health").at("nodes")[0].at("clock_error_ms").get<double>(), 0.05);
    EXPECT_EQ(j.at("intervals")[0].at("histogram").at("counts").size(), d.intervals[0].histogram.counts.size());
    EXPECT_EQ(j.at("space_time").at("ticks").size(), 4000u);
    EXPECT_EQ(j.at("space_time").at("ticks_total"), 20000u);
    EXPECT_EQ(j.at("space_time").at("density").at("counts").size(), 4u);
    EXPECT_EQ(j.at("routes")[0].at("edges")[2], nlohmann::json::array({2, 3}));
    EXPECT_EQ(j.at("idle_gaps").at("gaps")[0].at("concurrent"), 2u);
    const auto& cp = j.at("critical_paths").at(0);
    EXPECT_EQ(cp.at("interval"), "M5 Chai to Unity");
    EXPECT_EQ(cp.at("not_followed"), 2);
    EXPECT_EQ(cp.at("segments").size(), 4u);
    EXPECT_EQ(cp.at("segments")[1].at("kind"), "message");
    EXPECT_DOUBLE_EQ(cp.at("segments")[1].at("p99_ms").get<double>(), 15.2);
    EXPECT_DOUBLE_EQ(cp.at("segments")[3].at("slack_ms").get<double>(), 4.1);
    const auto& system = j.at("system");
    EXPECT_EQ(system.at("nodes").size(), 2u);
    EXPECT_EQ(system.at("nodes")[1].at("tracepoints")[1].at("sink"), true);
    EXPECT_EQ(system.at("nodes")[1].at("tracepoints")[2].at("depth"), 2);
    EXPECT_EQ(system.at("edges")[4].at("suspect"), true);
    EXPECT_EQ(system.at("edges")[4].at("verdict"), "label_mismatch");
    EXPECT_EQ(system.at("links_a_spec_removes"), 40);
}

TEST(HtmlReport, ARunWithASpecHasNoSystem) {
    auto d = test::demo_report_data();
    d.system.reset();
    d.critical_paths.clear();
    const auto j = embedded_data(page_of(d));
    EXPECT_TRUE(j.at("system").is_null());
    EXPECT_EQ(j.at("critical_paths"), nlohmann::json::array());
}

TEST(HtmlReport, TextFromLogsCannotCloseTheScriptElement) {
    auto d = test::demo_report_data();
    d.title = "</script><script>alert(1)</script>";
    const auto page = page_of(d);
    EXPECT_THAT(page, Not(HasSubstr("</script><script>alert")));
    EXPECT_EQ(embedded_data(page).at("title"), d.title);
}

}  // namespace
}  // namespace hashtrace::report
