#include "hashtrace/collectors/pps_edges.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using namespace hashtrace::collectors;

namespace {

// The LED's light averaged over each frame [k, k+1) when it rises linearly
// from `dark` to `bright` over [edge, edge + rise) and stays lit for `width`.
std::vector<double> luminance(std::size_t frames, std::vector<double> edges, double rise, double width,
                              double dark = 40, double bright = 200, double noise = 0, unsigned seed = 1) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> gauss(0, noise > 0 ? noise : 1);
    std::vector<double> out(frames);
    for (std::size_t k = 0; k < frames; ++k) {
        double lit = 0;
        constexpr int steps = 200;  // numeric integration, independent of the code under test
        for (int s = 0; s < steps; ++s) {
            const double t = static_cast<double>(k) + (s + 0.5) / steps;
            for (double e : edges) {
                double on = rise > 0 ? std::clamp((t - e) / rise, 0.0, 1.0) : (t >= e ? 1.0 : 0.0);
                double off = rise > 0 ? std::clamp((t - e - width) / rise, 0.0, 1.0) : (t >= e + width ? 1.0 : 0.0);
                lit += on - off;
            }
        }
        out[k] = dark + (bright - dark) * lit / steps + (noise > 0 ? gauss(rng) : 0);
    }
    return out;
}

}  // namespace

TEST(ClusterLevels, FindsDarkAndBrightForAShortDutyCycle) {
    const auto lum = luminance(3000, {500.0, 1500.0, 2500.0}, 0, 100);  // 10% lit
    const auto levels = cluster_levels(lum);
    EXPECT_NEAR(levels.dark, 40, 0.5);
    EXPECT_NEAR(levels.bright, 200, 0.5);
}

TEST(PpsEdges, InstantaneousEdgesAtSubFramePrecision) {
    const std::vector<double> truth{300.25, 1300.8, 2301.6};
    const auto result = detect_pps_edges(luminance(3000, truth, 0, 100));
    ASSERT_TRUE(result.has_signal);
    ASSERT_EQ(result.edges.size(), truth.size());
    for (std::size_t i = 0; i < truth.size(); ++i) {
        EXPECT_NEAR(result.edges[i].position, truth[i], 0.01);
        EXPECT_EQ(result.edges[i].frame, static_cast<std::size_t>(truth[i]) + (truth[i] - static_cast<int>(truth[i]) < 0.5 ? 0 : 1));
    }
}

TEST(PpsEdges, NoiseAveragesOut) {
    const std::vector<double> truth{200.4, 1200.9};
    const auto result = detect_pps_edges(luminance(2000, truth, 0, 100, 40, 200, 4.0));
    ASSERT_EQ(result.edges.size(), 2u);
    for (std::size_t i = 0; i < truth.size(); ++i) EXPECT_NEAR(result.edges[i].position, truth[i], 0.15);
}

TEST(PpsEdges, SlowRiseIsDatedAtItsStartGivenTheRiseTime) {
    const std::vector<double> truth{400.3};
    const auto lum = luminance(1000, truth, 3.0, 100);
    const auto uncorrected = detect_pps_edges(lum);
    ASSERT_EQ(uncorrected.edges.size(), 1u);
    EXPECT_NEAR(uncorrected.edges[0].position, truth[0] + 1.5, 0.02);  // the rise's midpoint
    PpsEdgeOptions options;
    options.rise_frames = 3.0;
    const auto corrected = detect_pps_edges(lum, options);
    ASSERT_EQ(corrected.edges.size(), 1u);
    EXPECT_NEAR(corrected.edges[0].position, truth[0], 0.02);
}

TEST(PpsEdges, SingleBrightFramesAreNotEdges) {
    auto lum = luminance(2000, {1000.5}, 0, 100);
    lum[300] = 200;  // a reflection, a cosmic ray
    lum[301] = 190;
    const auto result = detect_pps_edges(lum);
    ASSERT_EQ(result.edges.size(), 1u);
    EXPECT_NEAR(result.edges[0].position, 1000.5, 0.01);
}

TEST(PpsEdges, NoContrastMeansNoSignal) {
    const auto result = detect_pps_edges(luminance(2000, {500.0}, 0, 100, 100, 105));
    EXPECT_FALSE(result.has_signal);
    EXPECT_TRUE(result.edges.empty());
}

TEST(PpsEdges, EdgesTooCloseToTheEndsAreCountedNotGuessed) {
    const auto result = detect_pps_edges(luminance(1000, {3.5, 500.5, 996.2}, 0, 100));
    ASSERT_EQ(result.edges.size(), 1u);
    EXPECT_NEAR(result.edges[0].position, 500.5, 0.01);
    EXPECT_EQ(result.edges_at_boundary, 2u);
}
