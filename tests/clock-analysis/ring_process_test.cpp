// `hashtrace clock estimate` on a one-way ring of four real processes over
// UDP on loopback (ring_node.cpp): N0 -> N1 -> N2 -> N3 -> N0, every hop one
// way. The processes share this machine's clock, so the truth is known: the
// offsets are zero, and a warp applied to a log afterwards (`hashtrace
// convert --warp-*`, as a clock that far off would have stamped it) is the
// truth of that log.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

using hashtrace::test::run_command;
using hashtrace::test::shell_quote;
namespace fs = std::filesystem;

constexpr int kNodes = 4;
constexpr int kMessages = 1500, kPeriodUs = 1000;  // 1.5 s

class RingProcesses : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new hashtrace::test::TempDir;
        fs::create_directories(dir_->path() / "logs");
        fs::create_directories(dir_->path() / "ports");
        std::string script = "cd " + shell_quote(dir_->path().string()) + " || exit 1; ";
        for (int n = kNodes - 1; n >= 0; --n)
            script += shell_quote(RING_NODE) + " logs " + std::to_string(n) + " " + std::to_string(kNodes) + " ports " +
                      std::to_string(kMessages) + " " + std::to_string(kPeriodUs) + " & p" + std::to_string(n) + "=$!; ";
        for (int n = 0; n < kNodes; ++n) script += "wait $p" + std::to_string(n) + " && ";
        script += "true";
        const auto r = run_command("timeout 60 sh -c " + shell_quote(script) + " 2>&1");
        ASSERT_EQ(r.status, 0) << r.out;
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }

    static fs::path logs() { return dir_->path() / "logs"; }
    static fs::path log_of(const fs::path& dir, int node) {
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().filename().string().rfind("N" + std::to_string(node) + "-", 0) == 0) return e.path();
        throw std::runtime_error("no log of N" + std::to_string(node) + " in " + dir.string());
    }
    // The estimate of the logs in `dir` against N0, as JSON; asserts it ran.
    static nlohmann::json estimate(const fs::path& dir) {
        const fs::path json = dir / "estimate.json";
        const auto r = run_command(shell_quote(HASHTRACE_EXE) + " clock estimate " + shell_quote(dir.string()) +
                                   " --reference N0 --quiet --json " + shell_quote(json.string()) + " 2>&1");
        EXPECT_EQ(r.status, 0) << r.out;
        std::ifstream in(json);
        return nlohmann::json::parse(in);
    }
    static const nlohmann::json& of(const nlohmann::json& j, int node) {
        for (const auto& e : j["clock_estimates"])
            if (e["node"] == "N" + std::to_string(node)) return e;
        throw std::runtime_error("no N" + std::to_string(node));
    }
    static bool inside(const nlohmann::json& piece, double truth) {
        return !piece["offset_lo_ns"].is_null() && !piece["offset_hi_ns"].is_null() && piece["offset_lo_ns"].get<double>() <= truth &&
               truth <= piece["offset_hi_ns"].get<double>();
    }

    static inline hashtrace::test::TempDir* dir_ = nullptr;
};

TEST_F(RingProcesses, EveryClockOfTheRingIsPlacedAroundTheSharedClock) {
    const auto j = estimate(logs());
    for (int n = 0; n < kNodes; ++n) {
        const auto& e = of(j, n);
        ASSERT_FALSE(e["offset_ns"].is_null()) << e.dump();
        EXPECT_EQ(e["pieces"].size(), 1u) << e.dump();
        EXPECT_TRUE(inside(e, 0)) << e.dump();
        EXPECT_GT(e["messages_used"].get<int>(), n == 0 ? -1 : kMessages / 2) << e.dump();
    }
}

// N2's log as a clock 50 ms ahead would have stamped it, stepping 1 ms
// further ahead 0.75 s in; N1's as one 20 ms behind.
TEST_F(RingProcesses, AWarpedClockThatStepsIsPlacedAndItsStepFoundOnItAlone) {
    const fs::path warped = dir_->path() / "warped";
    fs::create_directories(warped);
    for (int n = 0; n < kNodes; ++n) {
        const fs::path in = log_of(logs(), n), out = warped / in.filename();
        std::string warp;
        if (n == 2) warp = " --warp-offset-ms 50 --warp-step-ms 1 --warp-step-at-s 0.75";
        if (n == 1) warp = " --warp-offset-ms -20";
        const auto r = warp.empty() ? run_command("cp " + shell_quote(in.string()) + " " + shell_quote(out.string()))
                                    : run_command(shell_quote(HASHTRACE_EXE) + " convert " + shell_quote(in.string()) + " " +
                                                  shell_quote(out.string()) + warp + " 2>&1");
        ASSERT_EQ(r.status, 0) << r.out;
    }
    const auto j = estimate(warped);
    const double truth[kNodes] = {0, -20e6, 50e6, 0};
    for (int n = 0; n < kNodes; ++n) {
        const auto& e = of(j, n);
        ASSERT_FALSE(e["offset_ns"].is_null()) << e.dump();
        ASSERT_EQ(e["pieces"].size(), n == 2 ? 2u : 1u) << e.dump();
        EXPECT_TRUE(inside(e["pieces"][0], truth[n])) << e.dump();
    }
    EXPECT_TRUE(inside(of(j, 2)["pieces"][1], 51e6)) << of(j, 2).dump();
    for (const auto& piece : of(j, 2)["pieces"])
        std::printf("N2 piece from %+.3f s: offset %.3f ms, bounds %.1f us wide\n",
                    (piece["from_ns"].get<double>() - j["origin_ns"].get<double>()) * 1e-9, piece["offset_ns"].get<double>() * 1e-6,
                    (piece["offset_hi_ns"].get<double>() - piece["offset_lo_ns"].get<double>()) * 1e-3);
}

}  // namespace
