// Clocks from causality on a real run of the sample system (local router, on
// loopback: every process reads the host's clock, so the truth is 0 until the
// logs are warped by a known offset, drift and step).
#include "hashtrace/clocksync/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace hc = hashtrace::clocksync;
namespace fs = std::filesystem;

namespace {

class SampleSystemClocks : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        run_ = fs::temp_directory_path() / ("hashtrace-clock-e2e-" + std::to_string(::getpid()));
        fs::remove_all(run_);
        const auto r = hc::run_command({"/usr/bin/env", std::string("SAMPLE_BIN_DIR=") + HASHTRACE_SAMPLE_BIN_DIR, "DURATION=8",
                                        std::string(HASHTRACE_SAMPLES_DIR) + "/run-system.sh", "local-router", run_.string()},
                                       std::chrono::seconds(60));
        ASSERT_EQ(r.exit_code, 0) << r.output;
    }
    static void TearDownTestSuite() { fs::remove_all(run_); }

    // The run's logs in `dir`, the node's warped by `warp` (convert options);
    // returns the warp's t0 (the log's first sample).
    std::int64_t warped_run(const fs::path& dir, const std::string& node, const std::vector<std::string>& warp) {
        fs::remove_all(dir);
        fs::create_directories(dir);
        std::int64_t t0 = 0;
        for (const auto& f : fs::directory_iterator(run_)) {
            if (f.path().extension() != ".htlog") continue;
            const auto name = f.path().filename().string();
            if (name.rfind(node + "-", 0) != 0) {
                fs::create_symlink(f.path(), dir / name);
                continue;
            }
            std::vector<std::string> argv{HASHTRACE_EXE, "convert", f.path().string(), (dir / name).string()};
            argv.insert(argv.end(), warp.begin(), warp.end());
            const auto r = hc::run_command(argv, std::chrono::seconds(60));
            EXPECT_EQ(r.exit_code, 0) << r.output;
            std::smatch m;
            if (std::regex_search(r.output, m, std::regex("t0 = (-?[0-9]+)"))) t0 = std::stoll(m[1]);
        }
        return t0;
    }
    nlohmann::json estimate(const fs::path& dir) {
        const auto r = hc::run_command({HASHTRACE_EXE, "clock", "estimate", dir.string(), "--spec", std::string(HASHTRACE_SAMPLES_DIR) + "/spec.toml",
                                        "--reference", "Router", "--json", (dir / "e.json").string(), "--quiet"},
                                       std::chrono::seconds(60));
        EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;  // 1: Render only receives, it is not placed
        std::ifstream in(dir / "e.json");
        return nlohmann::json::parse(in);
    }
    static const nlohmann::json& of(const nlohmann::json& j, const std::string& node) {
        for (const auto& e : j["clock_estimates"])
            if (e["node"] == node) return e;
        throw std::runtime_error("no " + node);
    }

    static inline fs::path run_;
};

}  // namespace

TEST_F(SampleSystemClocks, FiftyMillisecondsAndTwoHundredPpmAreFoundInsideTheBounds) {
    const auto dir = run_ / "warped";
    const std::int64_t t0 = warped_run(dir, "Haptics", {"--warp-offset-ms", "50", "--warp-drift-ppm", "200"});
    const auto j = estimate(dir);
    const auto& h = of(j, "Haptics");
    ASSERT_FALSE(h["offset_ns"].is_null()) << j.dump();
    const double truth = 50e6 + 200e-6 * static_cast<double>(j["origin_ns"].get<std::int64_t>() - t0);
    EXPECT_LE(h["offset_lo_ns"].get<double>(), truth);
    EXPECT_GE(h["offset_hi_ns"].get<double>(), truth);
    EXPECT_NEAR(h["offset_ns"].get<double>(), truth, 20'000);  // the goal is for 10 s; this run is 5 s
    EXPECT_NEAR(h["drift_ppm"].get<double>(), 200, 2);
    // The unwarped instances share the reference's clock: 0 is inside their bounds.
    const auto& p = of(j, "Physics");
    EXPECT_LE(p["offset_lo_ns"].get<double>(), 0);
    EXPECT_GE(p["offset_hi_ns"].get<double>(), 0);
    EXPECT_TRUE(of(j, "Render")["offset_ns"].is_null());
}

TEST_F(SampleSystemClocks, AOneMillisecondStepMidRunIsASecondPiece) {
    const auto dir = run_ / "stepped";
    const std::int64_t t0 = warped_run(dir, "Physics", {"--warp-offset-ms", "-20", "--warp-drift-ppm", "-100", "--warp-step-ms", "1",
                                                        "--warp-step-at-s", "4"});
    const auto j = estimate(dir);
    const auto& p = of(j, "Physics");
    ASSERT_EQ(p["pieces"].size(), 2u) << p.dump();
    const auto& second = p["pieces"][1];
    const std::int64_t from = second["from_ns"];
    EXPECT_NEAR(static_cast<double>(from - (t0 + 4'000'000'000)), 0, 20e6);
    // The second piece is the clock after the step: its line, at its start, is that clock's,
    // also where the start falls a little before the step (between the last message before
    // it and the first after, ~1 ms early in a loaded run).
    const double truth = -20e6 - 100e-6 * static_cast<double>(from - t0) + 1e6;
    EXPECT_LE(second["offset_lo_ns"].get<double>(), truth);
    EXPECT_GE(second["offset_hi_ns"].get<double>(), truth);
    EXPECT_NEAR(second["drift_ppm"].get<double>(), -100, 3);
}
