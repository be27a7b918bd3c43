// `hashtrace analyze --html` end to end: the real executable writes the page.
#include "demo_run.hpp"
#include "run_command.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace hashtrace::report {
namespace {

using ::testing::HasSubstr;

class AnalyzeHtml : public ::testing::Test {
protected:
    void SetUp() override {
        std::filesystem::create_directory(dir / "logs");
        for (const auto& [name, text] : test::demo_logs()) std::ofstream(dir / "logs" / name) << text;
        std::ofstream(dir / "spec.toml") << test::kDemoSpec;
    }
    test::CommandResult analyze(const std::string& arguments) {
        return test::run_command(std::string(HASHTRACE_TEST_CLI) + " analyze " + path("logs") + " --spec " +
                                 path("spec.toml") + " --quiet " + arguments + " 2>&1");
    }
    std::string path(const std::string& name) const { return test::shell_quote((dir / name).string()); }

    // The page's data model.
    nlohmann::json data_of(const std::string& page) const {
        const std::string open = "id=\"report-data\">";
        const auto begin = page.find(open) + open.size();
        return nlohmann::json::parse(page.substr(begin, page.find("</script>", begin) - begin));
    }

    test::TempDir dir;
};

TEST_F(AnalyzeHtml, WritesTheReportOfTheRunItAnalysed) {
    const auto run = analyze("--html " + path("report.html") + " --html-title 'demo run' --top-k 3 --idle-ms 30");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto d = data_of(test::read_file(dir / "report.html"));
    EXPECT_EQ(d.at("title"), "demo run");
    EXPECT_EQ(d.at("health").at("samples"), 781);
    EXPECT_EQ(d.at("intervals").size(), 2u);
    EXPECT_EQ(d.at("slowest").size(), 3u);
    EXPECT_EQ(d.at("idle_gaps").at("gaps").size(), 2u);
    EXPECT_EQ(d.at("idle_gaps").at("threshold_ms"), 30);
}

TEST_F(AnalyzeHtml, AWindowOpensTheSpaceTimeDiagramThere) {
    const auto run = analyze("--html " + path("report.html") + " --html-window 0.5:0.6");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto window = data_of(test::read_file(dir / "report.html")).at("space_time").at("open_window");
    EXPECT_DOUBLE_EQ(window[0].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(window[1].get<double>(), 0.6);
}

TEST_F(AnalyzeHtml, RejectsCompanionOptionsWithoutHtmlAndBadWindows) {
    auto run = analyze("--top-k 3");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("need --html FILE"));
    run = analyze("--html " + path("r.html") + " --html-window 2:1");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("FROM < TO"));
    run = analyze("--html " + path("r.html") + " --html-window soon");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("'soon'"));
    EXPECT_FALSE(std::filesystem::exists(dir / "r.html"));
}

TEST_F(AnalyzeHtml, NamesAFileItCannotWrite) {
    const auto run = analyze("--html " + path("no/such/dir/report.html"));
    EXPECT_EQ(run.status, 1);
    EXPECT_THAT(run.out, HasSubstr("no/such/dir/report.html"));
}

}  // namespace
}  // namespace hashtrace::report
