// One time base from many pairs: composition along paths, cycles for
// one-way pipelines, one-sided bounds and refusals naming the instances.
#include "clock_model.hpp"
#include "hashtrace/clock_analysis/time_base.hpp"

#include <gtest/gtest.h>

namespace ca = hashtrace::clock_analysis;
using namespace clock_model;

namespace {

struct SimulatedRun {
    std::vector<Clock> clocks;
    std::vector<ca::InstanceMessages> messages;
    void link(std::uint32_t from, std::uint32_t to, std::uint64_t seed, std::int64_t period = kMs) {
        messages.push_back({from, to, clock_model::messages(clocks[from], clocks[to], period, 10 * kSecond, 20'000, 150'000, seed)});
    }
    ca::TimeBase estimate(ca::EstimateOptions options = {}) const {
        std::vector<std::int64_t> first;
        std::vector<std::string> names;
        for (std::size_t i = 0; i < clocks.size(); ++i) {
            first.push_back(clocks[i].local(kT0));
            names.push_back("N" + std::to_string(i) + "/1");
        }
        return ca::estimate_time_base(messages, first, names, options);
    }
};

// Instance i's estimate and bounds against the truth, over the run.
void expect_truth_inside(const SimulatedRun& run, const ca::TimeBase& base, std::uint32_t i, double max_error_ns) {
    const Clock& ref = run.clocks[base.reference];
    for (std::int64_t t = kT0; t <= kT0 + 10 * kSecond; t += kSecond / 2) {
        const std::int64_t ref_t = ref.local(t);
        const auto at = base.at(i, ref_t);
        ASSERT_TRUE(at.offset_ns && at.bounds.lo && at.bounds.hi) << "instance " << i;
        const double truth = run.clocks[i].offset_from(ref, t);
        EXPECT_LE(*at.bounds.lo, truth + 1) << "instance " << i << " at +" << (t - kT0) / kMs << " ms";
        EXPECT_GE(*at.bounds.hi, truth - 1) << "instance " << i << " at +" << (t - kT0) / kMs << " ms";
        EXPECT_NEAR(static_cast<double>(*at.offset_ns), truth, max_error_ns) << "instance " << i;
        // The inverse: an instance timestamp back onto the reference's clock.
        EXPECT_NEAR(static_cast<double>(*base.to_reference(i, run.clocks[i].local(t)) - ref_t), 0, max_error_ns);
    }
}

}  // namespace

TEST(TimeBase, ComposesPairsAlongAChainAndPicksTheBusiestInstanceAsReference) {
    SimulatedRun run{{Clock{}, Clock{50.0 * kMs, 200}, Clock{-20.0 * kMs, -150}}, {}};
    // 0 <-> 1 <-> 2, instance 1 in the middle has the most messages.
    run.link(0, 1, 1);
    run.link(1, 0, 2);
    run.link(1, 2, 3);
    run.link(2, 1, 4);
    const auto base = run.estimate();
    EXPECT_EQ(base.reference, 1u);
    EXPECT_TRUE(base.warnings.empty());
    for (std::uint32_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(base.clocks[i].placed) << base.clocks[i].note;
        expect_truth_inside(run, base, i, 30'000);
    }
    EXPECT_EQ(base.clocks[1].path.size(), 0u);
    EXPECT_NEAR(static_cast<double>(*base.clocks[2].drift_ppm), (1 - 150e-6) / (1 + 200e-6) * 1e6 - 1e6, 2);
    EXPECT_EQ(base.clocks[0].messages_used, 20'000u);
    ASSERT_EQ(base.clocks[2].pieces.size(), 1u);
}

TEST(TimeBase, TakesThePathWithTheTightestBounds) {
    SimulatedRun run{{Clock{}, Clock{5.0 * kMs, 20}, Clock{-7.0 * kMs, 30}}, {}};
    // 0 - 2 directly, but rarely (a wide band); 0 - 1 - 2 often.
    run.link(0, 2, 1, 500 * kMs);
    run.link(2, 0, 2, 500 * kMs);
    for (auto [a, b, seed] : {std::tuple{0u, 1u, 3u}, {1u, 0u, 4u}, {1u, 2u, 5u}, {2u, 1u, 6u}}) run.link(a, b, seed, kMs / 4);
    ca::EstimateOptions options;
    options.reference = 0;
    const auto base = run.estimate(options);
    ASSERT_TRUE(base.clocks[2].placed);
    EXPECT_EQ(base.clocks[2].path.size(), 2u);
    expect_truth_inside(run, base, 2, 30'000);
}

TEST(TimeBase, AOneWayPipelineThatLoopsBackIsPlacedThroughItsCycle) {
    SimulatedRun run{{Clock{}, Clock{50.0 * kMs, 200}, Clock{-3.0 * kMs, -80}}, {}};
    run.link(0, 1, 1);  // a sensor, its consumer, an acknowledgement back
    run.link(1, 2, 2);
    run.link(2, 0, 3);
    ca::EstimateOptions options;
    options.reference = 0;
    const auto base = run.estimate(options);
    for (std::uint32_t i = 1; i < 3; ++i) {
        ASSERT_TRUE(base.clocks[i].placed) << base.clocks[i].note;
        expect_truth_inside(run, base, i, 200'000);
    }
    // Without the acknowledgement nothing bounds the consumers from below.
    run.messages.pop_back();
    const auto open = run.estimate(options);
    EXPECT_FALSE(open.clocks[1].placed);
    EXPECT_FALSE(open.clocks[1].bounds.lo);
    ASSERT_TRUE(open.clocks[1].bounds.hi);
    EXPECT_GE(*open.clocks[1].bounds.hi, run.clocks[1].offset_from(run.clocks[0], kT0));
    EXPECT_NE(open.clocks[1].note.find("one way only"), std::string::npos) << open.clocks[1].note;
    ASSERT_FALSE(open.warnings.empty());
    EXPECT_NE(open.warnings.front().find("N1/1"), std::string::npos) << open.warnings.front();
}

TEST(TimeBase, AnInstanceWithoutMessagesIsNamedNotInvented) {
    SimulatedRun run{{Clock{}, Clock{1.0 * kMs, 0}, Clock{}}, {}};
    run.link(0, 1, 1);
    run.link(1, 0, 2);
    const auto base = run.estimate();
    EXPECT_FALSE(base.clocks[2].placed);
    EXPECT_FALSE(base.clocks[2].offset_ns);
    EXPECT_EQ(base.clocks[2].note, "no messages to or from other instances");
    ASSERT_EQ(base.warnings.size(), 1u);
    EXPECT_NE(base.warnings[0].find("N2/1"), std::string::npos);
}

TEST(TimeBase, ContradictoryConstraintsAreRefusedWithTheInstancesAndTimeSpan) {
    SimulatedRun run{{Clock{}, Clock{}}, {}};
    run.link(0, 1, 1);
    run.link(1, 0, 2);
    run.messages[1].messages[4000].receive_ns -= 3 * kMs;  // a wrong link
    const auto base = run.estimate();
    EXPECT_FALSE(base.clocks[0].placed && base.clocks[1].placed);
    ASSERT_FALSE(base.warnings.empty());
    const std::string& w = base.warnings.front();
    EXPECT_NE(w.find("N0/1 and N1/1"), std::string::npos) << w;
    EXPECT_NE(w.find("+3.99"), std::string::npos) << w;  // the span, in seconds from the reference's first sample
}

TEST(TimeBase, AStepShowsAsTwoPiecesOfTheInstance) {
    SimulatedRun run{{Clock{}, Clock{50.0 * kMs, 200, kMs, kT0 + 5 * kSecond}}, {}};
    run.link(0, 1, 1);
    run.link(1, 0, 2);
    ca::EstimateOptions options;
    options.reference = 0;
    const auto base = run.estimate(options);
    ASSERT_TRUE(base.clocks[1].placed);
    const auto& pieces = base.clocks[1].pieces;
    ASSERT_EQ(pieces.size(), 2u);
    EXPECT_NEAR(static_cast<double>(pieces[1].from_ns - (kT0 + 5 * kSecond)), 0, 5.0 * kMs);
    EXPECT_NEAR(static_cast<double>(pieces[1].offset_ns), run.clocks[1].offset_from(run.clocks[0], pieces[1].from_ns), 30'000);
    EXPECT_NEAR(static_cast<double>(pieces[1].drift_ppm), 200, 2);
}
