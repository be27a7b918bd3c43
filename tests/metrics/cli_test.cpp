// End to end: the `hashtrace` executable on logs in a temporary directory.
#include "../graph/test_logs.hpp"

#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using hashtrace::graph::testing::CsvLog;

// The CLI with `arguments`: its exit status, stdout and stderr together.
hashtrace::test::CommandResult run(const std::string& arguments) {
    return hashtrace::test::run_command(std::string(HASHTRACE_BIN) + " " + arguments + " 2>&1");
}

using hashtrace::test::read_file;

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("hashtrace-cli-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir / "run1");
        fs::create_directories(dir / "run2");
        for (int r = 1; r <= 2; ++r) {
            CsvLog chai, unity;
            for (int i = 0; i < 20; ++i) {
                const double t = 100 + i * 0.010;
                const std::string m = "m" + std::to_string(i);
                chai.row("Chai", "1", "Force", t, "", m);
                unity.row("Unity", "2", "Receive", t + 0.001 * r + 0.0001 * (i % 3), m, "");
            }
            std::ofstream(dir / ("run" + std::to_string(r)) / "chai.csv") << chai.text();
            std::ofstream(dir / ("run" + std::to_string(r)) / "unity.csv") << unity.text();
        }
        std::ofstream(dir / "spec.toml") << "[[pair]]\nfrom = \"Chai/Force\"\nto = \"Unity/Receive\"\n\n"
                                            "[[interval]]\nname = \"force to receive\"\nfrom = \"Chai/Force\"\nto = \"Unity/Receive\"\n"
                                            "kind = \"end_to_end\"\n";
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string path(const std::string& name) const { return (dir / name).string(); }
    fs::path dir;
};

TEST_F(Cli, AnalyzeWritesAllOutputs) {
    const auto r = run("analyze " + path("run1") + " --spec " + path("spec.toml") + " --json " + path("a.json") + " --markdown " +
                       path("a.md") + " --csv " + path("a.csv"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("M5 force to receive"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(read_file(dir / "a.json"));
    EXPECT_EQ(j["samples"], 40);
    EXPECT_EQ(j["edges"], 20);
    EXPECT_EQ(j["intervals"][0]["count"], 20);
    // Latencies 1.0, 1.1, 1.2 ms repeating (i % 3): 7 x 1.0, 7 x 1.1, 6 x 1.2.
    EXPECT_NEAR(j["intervals"][0]["mean_ms"].get<double>(), (7 * 1.0 + 7 * 1.1 + 6 * 1.2) / 20, 1e-9);
    EXPECT_NE(read_file(dir / "a.md").find("| M5 force to receive |"), std::string::npos);
    EXPECT_NE(read_file(dir / "a.csv").find("M5,force to receive,count,20"), std::string::npos);
}

TEST_F(Cli, SpecTypoIsAnErrorWithLineUnlessLenient) {
    std::ofstream(dir / "typo.toml") << "[[pair]]\nfrom = \"Chai/Force\"\nto = \"Unity/Recieve\"\n";
    const auto r = run("analyze " + path("run1") + " --spec " + path("typo.toml"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("typo.toml:1: [[pair]] to selector 'Unity/Recieve' matches no tracepoint"), std::string::npos) << r.out;
    const auto lenient = run("analyze " + path("run1") + " --spec " + path("typo.toml") + " --lenient");
    EXPECT_EQ(lenient.status, 0) << lenient.out;
    EXPECT_NE(lenient.out.find("warning: "), std::string::npos);
}

TEST_F(Cli, MalformedLineNamesFileAndLineLenientCounts) {
    std::ofstream(dir / "run1" / "chai.csv", std::ios::app) << "Chai,1,Force,id,id,bad-time,,\n";
    const auto r = run("analyze " + path("run1"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("chai.csv:22:"), std::string::npos) << r.out;
    const auto lenient = run("analyze " + path("run1") + " --lenient --json " + path("l.json"));
    EXPECT_EQ(lenient.status, 0) << lenient.out;
    EXPECT_EQ(nlohmann::json::parse(read_file(dir / "l.json"))["bad_records"], 1);
}

TEST_F(Cli, TimingsListEveryStageOnlyWhenAsked) {
    const auto quiet = run("analyze " + path("run1") + " --spec " + path("spec.toml"));
    ASSERT_EQ(quiet.status, 0) << quiet.out;
    EXPECT_EQ(quiet.out.find("cpu ms"), std::string::npos) << quiet.out;

    const auto timed = run("analyze " + path("run1") + " --spec " + path("spec.toml") + " --timings");
    ASSERT_EQ(timed.status, 0) << timed.out;
    EXPECT_NE(timed.out.find("M5 force to receive"), std::string::npos) << timed.out;
    const auto header = timed.out.find("stage        wall ms    cpu ms     peak MiB     held MiB\n");
    ASSERT_NE(header, std::string::npos) << timed.out;
    std::istringstream rows(timed.out.substr(header));
    std::string line, stage;
    std::getline(rows, line);
    std::vector<std::string> stages;
    while (stages.empty() || stages.back() != "total") {  // stdout's table may follow
        ASSERT_TRUE(std::getline(rows, line)) << timed.out;
        double wall = -1, cpu = -1, peak = -1, held = -1;
        std::istringstream fields(line);
        ASSERT_TRUE(fields >> stage >> wall >> cpu >> peak) << line;
        EXPECT_GE(wall, 0) << line;
        EXPECT_GE(cpu, 0) << line;
        EXPECT_GT(peak, 0) << line;
        if (stage != "total") {  // what a stage left resident: never above the peak so far
            ASSERT_TRUE(fields >> held) << line;
            EXPECT_GT(held, 0) << line;
            EXPECT_LE(held, peak) << line;
        }
        stages.push_back(stage);
    }
    EXPECT_EQ(stages, (std::vector<std::string>{"load", "checks", "link", "metrics", "output", "total"}));

    const auto compared = run("compare " + path("run1") + " " + path("run2") + " --spec " + path("spec.toml") + " --timings");
    ASSERT_EQ(compared.status, 0) << compared.out;
    EXPECT_NE(compared.out.find("\nmetrics "), compared.out.rfind("\nmetrics ")) << "one row per run:\n" << compared.out;
}

TEST_F(Cli, UsageErrors) {
    EXPECT_EQ(run("analyze").status, 2);
    EXPECT_EQ(run("analyze " + path("run1") + " --tolerance-ms -1").status, 2);
    EXPECT_EQ(run("analyze " + path("run1") + " --bogus").status, 2);
    EXPECT_EQ(run("compare " + path("run1")).status, 2);
    EXPECT_EQ(run("route " + path("run1")).status, 2);
    const auto missing = run("analyze " + path("nothing-here"));
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.out.find("nothing-here"), std::string::npos) << missing.out;
}

TEST_F(Cli, CompareTwoRuns) {
    const auto r = run("compare " + path("run1") + " " + path("run2") + " --spec " + path("spec.toml") + " --markdown " + path("c.md"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("run1"), std::string::npos);
    EXPECT_NE(r.out.find("welch p="), std::string::npos) << r.out;
    EXPECT_NE(read_file(dir / "c.md").find("| run1 | welch p="), std::string::npos) << read_file(dir / "c.md");  // run1 (1 ms faster) is best
}

TEST_F(Cli, CompareWritesAnHtmlPageWithBothRuns) {
    const auto r = run("compare " + path("run1") + " " + path("run2") + " --spec " + path("spec.toml") + " --html " + path("c.html"));
    ASSERT_EQ(r.status, 0) << r.out;
    const auto page = read_file(dir / "c.html");
    EXPECT_NE(page.find("<html"), std::string::npos);
    EXPECT_NE(page.find("hashtrace compare: run1 run2"), std::string::npos);
    EXPECT_EQ(run("compare " + path("run1") + " " + path("run2") + " --html " + path("no-such-dir/c.html")).status, 1);
}

TEST_F(Cli, RouteTextAndDot) {
    const auto r = run("route " + path("run1") + " --spec " + path("spec.toml") + " --from Chai/Force --after +0.05 --dot " + path("r.dot"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("Unity[2]/Receive"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("t=100.050000000"), std::string::npos) << r.out;
    EXPECT_NE(read_file(dir / "r.dot").find("->"), std::string::npos);
}

// A time past the run's end names the run's length, so the user sees the mistake.
TEST_F(Cli, RouteAfterTheRunsEndNamesItsLength) {
    const auto r = run("route " + path("run1") + " --spec " + path("spec.toml") + " --from Chai/Force --after +500");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("no sample of Chai/Force at or after the given time: the run lasts "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--after is at +500.000 s"), std::string::npos) << r.out;
}

// Two runs of different means: the comparison gives the difference with its interval.
TEST_F(Cli, CompareGivesTheDifferenceWithItsInterval) {
    const auto r = run("compare " + path("run1") + " " + path("run2") + " --spec " + path("spec.toml"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("difference from run1 (95% CI)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("run2 +1.000 ["), std::string::npos) << "run2 is 1 ms slower:\n" << r.out;
}

}  // namespace
