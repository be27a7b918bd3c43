// The pair fit on hand-made messages with known clocks: chains, bounds that
// contain the truth, one-sided bounds, pieces at a step, refusals.
#include "clock_model.hpp"
#include "hashtrace/clock_analysis/pair_estimate.hpp"

#include <gtest/gtest.h>

namespace ca = hashtrace::clock_analysis;
using namespace clock_model;

namespace {

ca::PairFit fit(const Clock& axis, const Clock& other, std::int64_t duration, std::uint64_t seed, std::int64_t period = kMs) {
    const auto out = messages(axis, other, period, duration, 20'000, 200'000, seed);
    const auto in = messages(other, axis, period, duration, 30'000, 150'000, seed + 1);
    return ca::fit_pair(ca::upper_points(out), ca::lower_points(in), axis.local(kT0));
}

// The truth lies inside the piece's bounds at axis time x.
void expect_contains(const ca::PairFit& f, const Clock& axis, const Clock& other, std::int64_t t) {
    const std::int64_t x = axis.local(t);
    const auto b = f.piece_at(x).bounds_at(x, f.origin_ns);
    ASSERT_TRUE(b.lo && b.hi);
    const double truth = other.offset_from(axis, t);
    EXPECT_LE(*b.lo, truth + 1) << "at +" << (t - kT0) / kMs << " ms";
    EXPECT_GE(*b.hi, truth - 1) << "at +" << (t - kT0) / kMs << " ms";
}

}  // namespace

TEST(ConvexChains, KeepOnlyTheBindingPoints) {
    const std::vector<ca::Point> points{{0, 5}, {1, 1}, {2, 4}, {3, 0}, {3, 2}, {4, 6}, {5, 3}};
    const auto lower = ca::lower_chain(points);
    ASSERT_EQ(lower.size(), 4u);
    EXPECT_EQ(lower[0].y, 5);
    EXPECT_EQ(lower[1].x, 1);
    EXPECT_EQ(lower[2].x, 3);
    EXPECT_EQ(lower[2].y, 0);  // of two points at x = 3, the lower
    EXPECT_EQ(lower[3].x, 5);
    const auto upper = ca::upper_chain(points);
    ASSERT_EQ(upper.size(), 3u);
    EXPECT_EQ(upper[0].x, 0);
    EXPECT_EQ(upper[1].x, 4);
    EXPECT_EQ(upper[2].x, 5);
    // Collinear points are not vertices.
    const std::vector<ca::Point> line{{0, 0}, {1, 1}, {2, 2}, {3, 3}};
    EXPECT_EQ(ca::lower_chain(line).size(), 2u);
}

TEST(PairFit, BoundsContainTheTrueLineAndTheEstimateIsCloseToIt) {
    const Clock axis{}, other{50.0 * kMs, 200};
    const auto f = fit(axis, other, 10 * kSecond, 7);
    ASSERT_TRUE(f.placed());
    ASSERT_EQ(f.pieces.size(), 1u);
    for (std::int64_t t = kT0; t < kT0 + 10 * kSecond; t += kSecond / 3) expect_contains(f, axis, other, t);
    const auto& line = *f.pieces[0].estimate;
    // The minimum transits are 20 and 30 us: the feasible band is ~50 us wide.
    EXPECT_NEAR(static_cast<double>(line.offset_ns), other.offset_from(axis, kT0), 10'000);
    EXPECT_NEAR(static_cast<double>(line.rate) * 1e6, 200, 1.0);
    const auto b = f.pieces[0].bounds_at(f.origin_ns + 5 * kSecond, f.origin_ns);
    EXPECT_LT(*b.hi - *b.lo, 60'000);
    EXPECT_GT(*b.hi - *b.lo, 45'000);  // no tighter than the transits allow
}

TEST(PairFit, OneWayMessagesBoundOneSideOnly) {
    const Clock axis{}, other{-3.0 * kMs, -40};
    const auto out = messages(axis, other, kMs, 2 * kSecond, 20'000, 90'000, 3);
    auto f = ca::fit_pair(ca::upper_points(out), {}, axis.local(kT0));
    EXPECT_FALSE(f.placed());
    ASSERT_EQ(f.pieces.size(), 1u);
    const std::int64_t mid = kT0 + kSecond;
    const auto b = f.pieces[0].bounds_at(axis.local(mid), f.origin_ns);
    EXPECT_FALSE(b.lo);
    ASSERT_TRUE(b.hi);
    EXPECT_GE(*b.hi, other.offset_from(axis, mid));
    EXPECT_LE(*b.hi, other.offset_from(axis, mid) + 90'000);
    // The other way round: a lower bound only.
    f = ca::fit_pair({}, ca::lower_points(out), other.local(kT0));
    const auto c = f.pieces[0].bounds_at(other.local(mid), f.origin_ns);
    EXPECT_FALSE(c.hi);
    ASSERT_TRUE(c.lo);
    EXPECT_LE(*c.lo, axis.offset_from(other, mid));
}

// Before its first message (the reference's first sample comes earlier) a
// one-sided bound still holds: the chain's first point loosened by the
// steepest line the search box allows, and no looser than that.
TEST(PairFit, AOneSidedBoundHoldsBeforeTheFirstMessageLoosenedByTheRateBox) {
    const Clock axis{}, other{-3.0 * kMs, -40};
    const auto out = messages(axis, other, kMs, 2 * kSecond, 20'000, 90'000, 5);
    const auto f = ca::fit_pair(ca::upper_points(out), {}, axis.local(kT0));
    const auto& piece = f.pieces.at(0);
    const std::int64_t first = piece.ceiling.front().x;
    for (const std::int64_t before : {std::int64_t{1'000}, 50 * kMs, 2 * kSecond}) {
        const std::int64_t x = first - before;
        const auto b = piece.bounds_at(x, f.origin_ns);
        ASSERT_TRUE(b.hi) << before;
        EXPECT_FALSE(b.lo);
        EXPECT_GE(*b.hi, other.offset_from(axis, x - axis.local(kT0) + kT0) - 1) << before;  // the truth, -40 ppm, is below
        EXPECT_NEAR(*b.hi, static_cast<long double>(piece.ceiling.front().y) + ca::kMaxRate * static_cast<long double>(before), 1) << before;
    }
    // After the last message, the same.
    const std::int64_t last = piece.ceiling.back().x;
    const auto after = piece.bounds_at(last + 10 * kMs, f.origin_ns);
    ASSERT_TRUE(after.hi);
    EXPECT_NEAR(*after.hi, static_cast<long double>(piece.ceiling.back().y) + ca::kMaxRate * 10 * kMs, 1);
}

TEST(PairFit, AStepMidRunSplitsIntoTwoPiecesEachContainingTheTruth) {
    const Clock axis{}, other{50.0 * kMs, 200, kMs, kT0 + 5 * kSecond};
    const auto f = fit(axis, other, 10 * kSecond, 11);
    ASSERT_TRUE(f.placed()) << (f.problem ? f.problem->reason : "");
    ASSERT_EQ(f.pieces.size(), 2u);
    // The second piece starts within a few messages of the step.
    EXPECT_NEAR(static_cast<double>(f.pieces[1].first_ns - axis.local(kT0 + 5 * kSecond)), 0, 5.0 * kMs);
    for (std::int64_t t = kT0; t < kT0 + 10 * kSecond; t += kSecond / 7) {
        if (std::llabs(t - (kT0 + 5 * kSecond)) < 10 * kMs) continue;  // the messages around the step are split by time
        expect_contains(f, axis, other, t);
    }
    EXPECT_NEAR(static_cast<double>(f.pieces[1].estimate->offset_ns - f.pieces[0].estimate->offset_ns), kMs, 20'000);
}

TEST(PairFit, ARateChangeIsAPieceToo) {
    // 200 ppm for 5 s, then 100 ppm: a line misses by 125 us in the middle, more than the transits.
    std::vector<ca::Message> out, in;
    const auto local = [](std::int64_t t) {
        const double x = static_cast<double>(t - kT0);
        return t + std::llround(x < 5e9 ? 200e-6 * x : 200e-6 * 5e9 + 100e-6 * (x - 5e9));
    };
    for (std::int64_t t = kT0; t < kT0 + 10 * kSecond; t += kMs) {
        out.push_back({t, local(t + 40'000)});
        in.push_back({local(t), t + 40'000});
    }
    const auto f = ca::fit_pair(ca::upper_points(out), ca::lower_points(in), kT0);
    ASSERT_TRUE(f.placed());
    ASSERT_EQ(f.pieces.size(), 2u);
    EXPECT_NEAR(static_cast<double>(f.pieces[0].estimate->rate) * 1e6, 200, 1);
    EXPECT_NEAR(static_cast<double>(f.pieces[1].estimate->rate) * 1e6, 100, 1);
}

TEST(PairFit, AClockJumpingBackAndForthIsRefusedWithItsTimeSpan) {
    std::vector<ca::Message> out, in;
    for (std::int64_t t = kT0; t < kT0 + 2 * kSecond; t += kMs) {
        const std::int64_t jump = ((t - kT0) / (20 * kMs)) % 2 ? 2 * kMs : 0;  // +2 ms every other 20 ms
        out.push_back({t, t + 40'000 + jump});
        in.push_back({t + jump, t + 40'000});
    }
    const auto f = ca::fit_pair(ca::upper_points(out), ca::lower_points(in), kT0);
    EXPECT_FALSE(f.placed());
    ASSERT_TRUE(f.problem);
    EXPECT_NE(f.problem->reason.find("pieces"), std::string::npos) << f.problem->reason;
    EXPECT_GE(f.problem->first_ns, kT0);
    EXPECT_LE(f.problem->last_ns, kT0 + 2 * kSecond);
}

TEST(PairFit, AWrongLinkIsRefusedNotAbsorbed) {
    std::vector<ca::Message> out, in;
    for (std::int64_t t = kT0; t < kT0 + 2 * kSecond; t += kMs) {
        out.push_back({t, t + 40'000});
        in.push_back({t, t + 40'000});
    }
    in[1000].receive_ns -= 5 * kMs;  // received 5 ms before it was sent, whatever the clocks
    const auto f = ca::fit_pair(ca::upper_points(out), ca::lower_points(in), kT0);
    EXPECT_FALSE(f.placed());
    ASSERT_TRUE(f.problem);
    EXPECT_LE(f.problem->first_ns, kT0 + 1001 * kMs);
    EXPECT_GE(f.problem->last_ns, kT0 + 999 * kMs - 5 * kMs);
}

TEST(PairFit, TooFewMessagesForADriftGiveNoEstimate) {
    const std::vector<ca::Message> out{{kT0, kT0 + 50'000}}, in{{kT0 + kMs, kT0 + kMs + 50'000}};
    const auto f = ca::fit_pair(ca::upper_points(out), ca::lower_points(in), kT0);
    EXPECT_FALSE(f.placed());
    EXPECT_FALSE(f.problem);
}
