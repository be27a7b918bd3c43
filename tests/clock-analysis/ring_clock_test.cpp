// `hashtrace clock estimate` on a one-way ring of four instances (N0 -> N1 ->
// N2 -> N3 -> N0, hand-made CSV logs, clocks known). No pair has messages
// both ways: every instance is placed from the ring's cycle alone, and the
// clocks tens of ms apart put some receives "before" their sends, so the
// estimate has to link with a tolerance too.
#include "clock_model.hpp"
#include "ring_logs.hpp"
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

constexpr int kNodes = kRingNodes;

class RingClocks : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("hashtrace_ring_" + std::to_string(::getpid()));
        fs::remove_all(root_);
        fs::create_directories(root_);
    }
    void TearDown() override { fs::remove_all(root_); }

    // The logs of the ring with these clocks; `hops` fewer than kNodes
    // leaves the ring open (N3 does not send to N0).
    void write_ring(const std::array<Clock, kNodes>& clocks, std::uint64_t seed = 7, int hops = kNodes) {
        write_ring_logs(root_, clocks, seed, RingShape{hops});
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

// N2 runs 50 ms ahead and steps 1 ms further ahead 5 s into the run (an NTP
// step). The cycles carry messages over N2's hops by bounds that hold across
// a step (hop_envelope.hpp), so the step is found on N2 alone, as its second
// piece, and the pairs whose clocks agree keep one piece. A one-way ring
// bounds each offset only to the sum of its hops' shortest transits (here
// some 0.1-0.4 ms), so the truth is checked against the bounds, not a
// tolerance.
TEST_F(RingClocks, AStepOnAClockFiftyMillisecondsAheadIsItsSecondPieceOnly) {
    const std::int64_t step_at = kT0 + 5 * kSecond;
    const std::array<Clock, kNodes> clocks{Clock{}, Clock{}, Clock{50.0 * kMs, 0, 1 * kMs, step_at}, Clock{}};
    write_ring(clocks);
    const auto r = estimate();
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = estimate_json();
    for (int n = 0; n < kNodes; ++n) {
        const auto& e = of(j, "N" + std::to_string(n));
        ASSERT_FALSE(e["offset_ns"].is_null()) << e.dump() << r.output;
        EXPECT_EQ(e["pieces"].size(), n == 2 ? 2u : 1u) << e.dump();
    }
    const auto& pieces = of(j, "N2")["pieces"];
    const auto inside = [](const nlohmann::json& piece, double truth) {
        return piece["offset_lo_ns"].get<double>() <= truth && truth <= piece["offset_hi_ns"].get<double>();
    };
    EXPECT_TRUE(inside(pieces[0], 50e6)) << pieces.dump();
    // The second piece's offset is given at its own start, on the reference's clock.
    EXPECT_TRUE(inside(pieces[1], 51e6)) << pieces.dump();
    EXPECT_NEAR(static_cast<double>(pieces[1]["from_ns"].get<std::int64_t>() - step_at), 0, 20e6);
    EXPECT_NEAR(pieces[1]["offset_ns"].get<double>() - pieces[0]["offset_ns"].get<double>(), 1e6, 0.2e6) << pieces.dump();
}

// 20 rings with random offsets (up to 80 ms) and drifts (up to 300 ppm), one
// clock stepping up or down by 0.5-3 ms at a random time: the step is found
// as two pieces on that clock only, each piece's bounds holding its truth.
TEST_F(RingClocks, StepsEitherWayAreFoundOnTheSteppedClockOnly) {
    std::mt19937_64 random(29);
    std::uniform_real_distribution<double> offset(-80.0 * kMs, 80.0 * kMs), drift(-300, 300), size(0.5 * kMs, 3.0 * kMs), when(2, 8);
    for (int trial = 0; trial < 20; ++trial) {
        std::array<Clock, kNodes> clocks{};
        for (int n = 1; n < kNodes; ++n) clocks[n] = Clock{offset(random), drift(random)};
        const int stepped = 1 + trial % (kNodes - 1);
        clocks[stepped].step_ns = std::llround((trial % 2 ? -1 : 1) * size(random));
        clocks[stepped].step_at = kT0 + std::llround(when(random) * kSecond);
        write_ring(clocks, 500 + 10 * trial);
        const auto r = estimate();
        ASSERT_EQ(r.exit_code, 0) << "trial " << trial << ": " << r.output;
        const auto j = estimate_json();
        for (int n = 1; n < kNodes; ++n) {
            const auto& pieces = of(j, "N" + std::to_string(n))["pieces"];
            ASSERT_EQ(pieces.size(), n == stepped ? 2u : 1u) << "trial " << trial << " node " << n << ": " << r.output;
            for (std::size_t k = 0; k < pieces.size(); ++k) {
                const auto& piece = pieces[k];
                // A piece's line at its start, which may lie a little before the step.
                const std::int64_t from = piece["from_ns"];
                Clock line = clocks[n];
                line.step_at = k == 0 ? INT64_MAX : INT64_MIN;
                const double truth = line.offset_from(clocks[0], from);
                if (k == 1) {
                    EXPECT_NEAR(static_cast<double>(from - clocks[n].step_at), 0, 100e6) << "trial " << trial;
                }
                EXPECT_LE(piece["offset_lo_ns"].get<double>(), truth) << "trial " << trial << " node " << n << ": " << pieces.dump();
                EXPECT_GE(piece["offset_hi_ns"].get<double>(), truth) << "trial " << trial << " node " << n << ": " << pieces.dump();
            }
        }
    }
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
