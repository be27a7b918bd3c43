// The bound that carries a cycle's messages over a hop: above the true theta
// everywhere, across a step either way, and tighter once cut at the hop's pieces.
#include "hop_envelope.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace ca = hashtrace::clock_analysis;
using ca::detail::HopEnvelope;

namespace {

constexpr std::int64_t kMs = 1'000'000, kTransit = 100'000, kStepAt = 500 * kMs + 1;

// theta(x) = step from kStepAt on, else 0; a message every 5 ms, 100 us in transit.
std::int64_t theta(std::int64_t x, std::int64_t step) { return x >= kStepAt ? step : 0; }
std::vector<ca::Point> messages(std::int64_t step) {
    std::vector<ca::Point> points;
    for (std::int64_t x = 0; x <= 1000 * kMs; x += 5 * kMs) points.push_back({x, theta(x, step) + kTransit});
    return points;
}

// Every 0.1 ms over the run: the bound is never below the truth.
void expect_above_truth(const HopEnvelope& envelope, std::int64_t step) {
    for (std::int64_t x = 0; x <= 1000 * kMs; x += kMs / 10) {
        const auto bound = envelope.at(x);
        ASSERT_TRUE(bound) << x;
        ASSERT_GE(*bound, static_cast<long double>(theta(x, step))) << "at " << x << " with a step of " << step;
    }
}

ca::PairFit two_pieces(std::int64_t change_lo, std::int64_t change_hi) {
    ca::PairFit fit;
    ca::PairPiece before, after;
    before.first_ns = 0, before.last_ns = kStepAt - 1;
    after.first_ns = kStepAt, after.last_ns = 1000 * kMs;
    after.change_lo_ns = change_lo, after.change_hi_ns = change_hi;
    fit.pieces = {before, after};
    return fit;
}

}  // namespace

TEST(HopEnvelope, TheConeHoldsAcrossAStepUpOrDown) {
    for (const std::int64_t step : {1 * kMs, -1 * kMs}) expect_above_truth(HopEnvelope(messages(step)), step);
}

TEST(HopEnvelope, NothingOutsideTheMessagesSpan) {
    const HopEnvelope envelope(messages(0));
    EXPECT_FALSE(envelope.at(-1));
    EXPECT_FALSE(envelope.at(1000 * kMs + 1));
    EXPECT_FALSE(HopEnvelope({}).at(0));
}

// Between two messages the cone pays 1 % of the distance; the piece's convex
// envelope is exact on a line.
TEST(HopEnvelope, CutAtThePiecesItIsTheConvexEnvelopeInsideThem) {
    const std::int64_t mid = 102 * kMs + kMs / 2;
    HopEnvelope envelope(messages(1 * kMs));
    EXPECT_NEAR(static_cast<double>(*envelope.at(mid)), kTransit + 0.01 * 2.5 * kMs, 1);
    envelope.cut(two_pieces(kStepAt - 7 * kMs, kStepAt + 6 * kMs));
    EXPECT_NEAR(static_cast<double>(*envelope.at(mid)), kTransit, 1);
    EXPECT_NEAR(static_cast<double>(*envelope.at(mid + 600 * kMs)), 1 * kMs + kTransit, 1);
    expect_above_truth(envelope, 1 * kMs);
}

// A fit that was refused says nothing about where the hop's clock changes.
TEST(HopEnvelope, ARefusedFitCutsNothing) {
    HopEnvelope envelope(messages(0));
    const auto before = *envelope.at(102 * kMs + kMs / 2);
    auto fit = two_pieces(0, 0);
    fit.problem = ca::PairFit::Contradiction{"refused", 0, 0};
    envelope.cut(fit);
    EXPECT_EQ(*envelope.at(102 * kMs + kMs / 2), before);
}
