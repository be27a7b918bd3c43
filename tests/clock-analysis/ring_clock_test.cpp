// `hashtrace clock estimate` on a one-way ring of four instances (N0 -> N1 ->
// N2 -> N3 -> N0, hand-made CSV logs, clocks known). No pair has messages
// both ways: every instance is placed from the ring's cycle alone, and the
// clocks tens of ms apart put some receives "before" their sends, so the
// estimate has to link with a tolerance too.
#include "clock_model.hpp"
#include "hashtrace/clocksync/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace hc = hashtrace::clocksync;
namespace fs = std::filesystem;
using namespace clock_model;

namespace {

constexpr int kNodes = 4;
constexpr std::int64_t kPeriod = 5 * kMs;

class RingClocks : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("hashtrace_ring_" + std::to_string(::getpid()));
        fs::remove_all(root_);
        fs::create_directories(root_);
    }
    void TearDown() override { fs::remove_all(root_); }

    // The logs of the ring with these clocks, one file per instance; `hops`
    // fewer than kNodes leaves the ring open (N3 does not send to N0).
    void write_ring(const std::array<Clock, kNodes>& clocks, std::uint64_t seed = 7, int hops = kNodes) {
        std::array<std::ofstream, kNodes> logs;
        for (int n = 0; n < kNodes; ++n) {
            logs[n].open(root_ / ("N" + std::to_string(n) + "-1.csv"));
            logs[n] << kCsvHeader;
        }
        for (int hop = 0; hop < hops; ++hop) {
            const int to = (hop + 1) % kNodes;
            const auto sent = messages(clocks[hop], clocks[to], kPeriod, 10 * kSecond, 30'000, 300'000, seed + hop, hop * kMs);
            for (std::size_t k = 0; k < sent.size(); ++k) {
                const std::string hash = csv_hash(hop * 100'000 + static_cast<int>(k));
                logs[hop] << "N" << hop << ",1,Send,none,msg," << csv_seconds(sent[k].send_ns) << ",," << hash << "\n";
                logs[to] << "N" << to << ",1,Receive,msg,none," << csv_seconds(sent[k].receive_ns) << "," << hash << ",\n";
            }
        }
    }
    hc::CommandResult estimate() {
        return hc::run_command({HASHTRACE_EXE, "clock", "estimate", root_.string(), "--reference", "N0", "--json",
                                (root_ / "e.json").string(), "--quiet"},
                               std::chrono::seconds(60));
    }
    nlohmann::json estimate_json() {
        std::ifstream in(root_ / "e.json");
        return nlohmann::json::parse(in);
    }
    static const nlohmann::json& of(const nlohmann::json& j, const std::string& node) {
        for (const auto& e : j["clock_estimates"])
            if (e["node"] == node) return e;
        throw std::runtime_error("no " + node);
    }

    fs::path root_;
};

}  // namespace

// Known failure, kept to be fixed: a cycle's virtual messages carry each
// message over the later hops by the hop's one convex envelope (time_base.cpp,
// compose), which assumes one line per hop. A step on N2 bends the envelopes
// of N1 -> N2 -> N3, so the pairs closed by those cycles (N0/N1, N0/N3, whose
// clocks agree) need "more than 16 pieces" and nothing is placed. Run with
// --gtest_also_run_disabled_tests.
TEST_F(RingClocks, DISABLED_AStepOnAClockFiftyMillisecondsAheadIsItsSecondPieceOnly) {
    const std::array<Clock, kNodes> clocks{Clock{}, Clock{}, Clock{50.0 * kMs, 0, 1 * kMs, kT0 + 5 * kSecond}, Clock{}};
    write_ring(clocks);
    const auto r = estimate();
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = estimate_json();
    for (int n = 0; n < kNodes; ++n) {
        const auto& e = of(j, "N" + std::to_string(n));
        ASSERT_FALSE(e["offset_ns"].is_null()) << e.dump();
        EXPECT_EQ(e["pieces"].size(), n == 2 ? 2u : 1u) << e.dump();
    }
    const auto& second = of(j, "N2")["pieces"][1];
    EXPECT_NEAR(static_cast<double>(second["from_ns"].get<std::int64_t>() - (kT0 + 5 * kSecond)), 0, 20e6);
    EXPECT_NEAR(second["offset_ns"].get<double>(), 51e6, 20'000);
}

// 50 rings, each with three clocks drawn at random (offsets up to 80 ms
// either way, drifts up to 300 ppm): every instance is placed from both
// sides, with bounds containing its true offset at the origin, and the drift
// within 2 ppm.
TEST_F(RingClocks, EveryInstanceOfFiftyWarpedRingsIsPlacedInsideItsBounds) {
    std::mt19937_64 random(2026);
    std::uniform_real_distribution<double> offset(-80.0 * kMs, 80.0 * kMs), drift(-300, 300);
    double worst_offset_error = 0, worst_drift_error = 0;
    for (int trial = 0; trial < 50; ++trial) {
        std::array<Clock, kNodes> clocks{};
        for (int n = 1; n < kNodes; ++n) clocks[n] = Clock{offset(random), drift(random)};
        write_ring(clocks, 100 + 10 * trial);
        const auto r = estimate();
        ASSERT_EQ(r.exit_code, 0) << "trial " << trial << ": " << r.output;
        const auto j = estimate_json();
        const std::int64_t origin = j["origin_ns"];
        for (int n = 1; n < kNodes; ++n) {
            const auto& e = of(j, "N" + std::to_string(n));
            ASSERT_FALSE(e["offset_lo_ns"].is_null() || e["offset_hi_ns"].is_null() || e["offset_ns"].is_null()) << trial << e.dump();
            ASSERT_EQ(e["pieces"].size(), 1u) << trial << e.dump();
            const double truth = clocks[n].offset_from(clocks[0], origin);
            EXPECT_LE(e["offset_lo_ns"].get<double>(), truth) << trial << e.dump();
            EXPECT_GE(e["offset_hi_ns"].get<double>(), truth) << trial << e.dump();
            EXPECT_NEAR(e["drift_ppm"].get<double>(), clocks[n].drift_ppm, 2) << trial << e.dump();
            worst_offset_error = std::max(worst_offset_error, std::fabs(e["offset_ns"].get<double>() - truth));
            worst_drift_error = std::max(worst_drift_error, std::fabs(e["drift_ppm"].get<double>() - clocks[n].drift_ppm));
        }
    }
    std::printf("worst offset error %.0f ns, worst drift error %.3f ppm\n", worst_offset_error, worst_drift_error);
}

// The ring opened (no N3 -> N0): messages go one way only and close no cycle,
// so nothing besides the reference is placed: exit 1 with a message saying
// so, and N1, which receives from the reference, still gets the upper bound
// the messages give it, as a number, the lower side null.
TEST_F(RingClocks, AnOpenRingPlacesNothingAndSaysSoWithTheOneSidedBound) {
    const std::array<Clock, kNodes> clocks{Clock{}, Clock{30.0 * kMs, 100}, Clock{-20.0 * kMs, 0}, Clock{}};
    write_ring(clocks, 7, kNodes - 1);
    const auto r = estimate();
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("no instance besides the reference (N0/1) can be placed"), std::string::npos) << r.output;
    for (const char* name : {"N1/1", "N2/1", "N3/1"})
        EXPECT_NE(r.output.find(std::string(name) + " cannot be placed"), std::string::npos) << r.output;
    const auto j = estimate_json();
    const auto& n1 = of(j, "N1");
    EXPECT_TRUE(n1["offset_ns"].is_null()) << n1.dump();
    EXPECT_TRUE(n1["offset_lo_ns"].is_null()) << n1.dump();
    ASSERT_TRUE(n1["offset_hi_ns"].is_number()) << n1.dump();
    EXPECT_GE(n1["offset_hi_ns"].get<double>(), clocks[1].offset_from(clocks[0], j["origin_ns"]));
}
