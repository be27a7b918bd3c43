// End to end: `hashtrace critical-path` and `hashtrace whatif` on a queue
// with a backlog (the model tests' Backlog run, 20 messages), their outputs
// and their errors.
#include "../graph/test_logs.hpp"

#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using hashtrace::graph::testing::CsvLog;

// The CLI with `arguments`: its exit status, stdout and stderr together.
hashtrace::test::CommandResult run(const std::string& arguments) {
    return hashtrace::test::run_command(std::string(HASHTRACE_BIN) + " " + arguments + " 2>&1");
}

nlohmann::json read_json(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

// Q/Put every 0.1 ms on thread 1; Q/Take, then 1 ms of Q/Apply, on thread 2.
class CriticalPathCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("hashtrace-cp-cli-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir / "run");
        CsvLog q;
        double consumer_free = 0;
        for (int i = 0; i < 20; ++i) {
            const double put = i * 0.1, take = std::max(put, consumer_free) + 0.01;
            consumer_free = take + 1;
            q.row("Q", "1", "Put", 1 + put * 1e-3, "", "m" + std::to_string(i), 1);
            q.row("Q", "1", "Take", 1 + take * 1e-3, "m" + std::to_string(i), "p" + std::to_string(i), 2);
            q.row("Q", "1", "Apply", 1 + consumer_free * 1e-3, "p" + std::to_string(i), "", 2);
        }
        std::ofstream(dir / "run" / "q.csv") << q.text();
        std::ofstream(dir / "spec.toml") << "[[interval]]\nname = \"put to apply\"\nfrom = \"Q/Put\"\nto = \"Q/Apply\"\n\n"
                                            "[[interval]]\nname = \"take to apply\"\nfrom = \"Q/Take\"\nto = \"Q/Apply\"\n";
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string logs() const { return (dir / "run").string() + " --spec " + (dir / "spec.toml").string() + " --quiet"; }
    fs::path dir;
};

TEST_F(CriticalPathCli, NamesTheQueueAndWritesJsonAndMarkdown) {
    const auto r = run("critical-path " + logs() + " --interval 'put to apply' --json " + (dir / "cp.json").string() + " --markdown " +
                       (dir / "cp.md").string());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("Q/Put -> Q/Take"), std::string::npos) << r.out;
    const auto j = read_json(dir / "cp.json");
    ASSERT_EQ(j["critical_path"].size(), 1u);
    const auto& interval = j["critical_path"][0];
    EXPECT_EQ(interval["interval"], "put to apply");
    EXPECT_EQ(interval["count"], 20);
    const auto& top = interval["segments"][0];  // the backlog's wait outweighs the 1 ms of work
    EXPECT_EQ(top["from"], "Q/Put");
    EXPECT_EQ(top["to"], "Q/Take");
    EXPECT_EQ(top["kind"], "queue");
    EXPECT_DOUBLE_EQ(top["on_path_fraction"].get<double>(), 1.0);
    for (const char* key : {"mean_ms", "share", "p50_ms", "p95_ms", "p99_ms", "slack_ms"}) EXPECT_TRUE(top.contains(key)) << key;
    std::ifstream md(dir / "cp.md");
    std::stringstream text;
    text << md.rdbuf();
    EXPECT_NE(text.str().find("| Q/Put -> Q/Take | queue |"), std::string::npos) << text.str();
}

TEST_F(CriticalPathCli, EveryIntervalWithoutInterval) {
    const auto r = run("critical-path " + logs() + " --json " + (dir / "cp.json").string());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(read_json(dir / "cp.json")["critical_path"].size(), 2u);
}

TEST_F(CriticalPathCli, WhatIfPredictsTheDrainedBacklog) {
    const auto r = run("whatif " + logs() + " --interval 'put to apply' --change 'Q/Take->Q/Apply*0.05' --json " + (dir / "w.json").string());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("predicted"), std::string::npos);
    const auto j = read_json(dir / "w.json");
    EXPECT_EQ(j["interval"], "put to apply");
    EXPECT_EQ(j["changes"][0], "Q/Take->Q/Apply*0.05");
    for (const char* part : {"baseline", "predicted"})
        for (const char* key : {"count", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "m8"}) EXPECT_TRUE(j[part].contains(key)) << part << key;
    EXPECT_EQ(j["predicted"]["count"], 20);
    // 0.05 ms of work per 0.1 ms put: no backlog, each latency 0.01 + 0.05.
    EXPECT_NEAR(j["predicted"]["mean_ms"].get<double>(), 0.06, 1e-9);
    EXPECT_GT(j["baseline"]["mean_ms"].get<double>(), 5.0);
}

TEST_F(CriticalPathCli, BadArgumentsExit2NamingTheArgument) {
    struct Case {
        std::string arguments, expected;
    };
    const Case cases[] = {
        {"critical-path " + logs() + " --interval nope", "--interval 'nope'"},
        {"whatif " + logs() + " --interval nope --change 'Q/Take->Q/Apply*2'", "--interval 'nope'"},
        {"whatif " + logs() + " --interval 'put to apply' --change 'Q/Take->Q/Apply*0'", "--change 'Q/Take->Q/Apply*0': the factor must be > 0"},
        {"whatif " + logs() + " --interval 'put to apply' --change 'Q/Take->Q/Apply'", "--change 'Q/Take->Q/Apply'"},
        {"whatif " + logs() + " --interval 'put to apply' --change 'Q/Take->Q/Nope+1ms'", "'Q/Nope' matches no tracepoint"},
        {"whatif " + logs() + " --interval 'put to apply' --change 'Q/Apply->Q/Put+1ms'", "no segment of the run"},
        {"whatif " + logs() + " --change 'Q/Take->Q/Apply*2'", "--interval NAME is required"},
        {"whatif " + logs() + " --interval 'put to apply'", "--change"},
        {"critical-path " + (dir / "run").string(), "--spec"},
    };
    for (const auto& c : cases) {
        const auto r = run(c.arguments);
        EXPECT_EQ(r.status, 2) << c.arguments << "\n" << r.out;
        EXPECT_NE(r.out.find(c.expected), std::string::npos) << c.arguments << "\n" << r.out;
    }
}

TEST_F(CriticalPathCli, ATornLogIsAnalysedAndReported) {
    std::ofstream(dir / "run" / "q.csv", std::ios::app) << "Q,1,Put,id,id,1.5";  // a crashed writer's last line
    const auto r = run("critical-path " + logs());
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("torn"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("put to apply: 20 instances"), std::string::npos) << r.out;
}

}  // namespace
