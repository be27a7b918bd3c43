#include "hashtrace/report/aggregate.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <numeric>

namespace hashtrace::report {
namespace {

using ::testing::ElementsAre;

TEST(Histogram, CountsEveryValueOnceWithTheMaximumInTheLastBin) {
    const std::vector<double> v = {1, 2, 2, 3, 4, 5, 9, 10};
    const auto h = make_histogram(v, 3);
    EXPECT_DOUBLE_EQ(h.lo_ms, 1);
    EXPECT_DOUBLE_EQ(h.width_ms, 3);
    EXPECT_THAT(h.counts, ElementsAre(4, 2, 2));  // [1,4) [4,7) [7,10]
}

TEST(Histogram, ALongTailIsCountedAsOverflow) {
    std::vector<double> v(200, 1.0);
    for (int i = 0; i < 200; ++i) v[i] = 1.0 + i * 0.01;  // 1.00 .. 2.99
    v.back() = 500;                                        // one outlier, far above p99
    const auto h = make_histogram(v, 10);
    EXPECT_EQ(h.overflow, 1u);
    std::uint64_t drawn = 0;
    for (auto c : h.counts) drawn += c;
    EXPECT_EQ(drawn, 199u);
    EXPECT_LT(h.lo_ms + h.width_ms * double(h.counts.size()), 4.0);  // 1.25 x p99 (2.98)
    // No tail: the bins reach the maximum and nothing overflows.
    v.back() = 3.5;
    EXPECT_EQ(make_histogram(v, 10).overflow, 0u);
}

TEST(Histogram, EqualValuesMakeOneBinAndEmptyInputNone) {
    const std::vector<double> same = {4, 4, 4};
    const auto h = make_histogram(same, 10);
    EXPECT_THAT(h.counts, ElementsAre(3));
    EXPECT_GT(h.width_ms, 0);
    EXPECT_TRUE(make_histogram({}, 10).counts.empty());
}

TEST(LatencyOverTime, BinsUseNearestRankPercentiles) {
    std::vector<double> t, ms;
    for (int i = 1; i <= 100; ++i) {  // bin 0: latencies 1..100; bin 1: one value 500
        t.push_back(0.5);
        ms.push_back(i);
    }
    t.push_back(1.5);
    ms.push_back(500);
    const auto out = latency_over_time(t, ms, 2.0, 2, 1000);
    ASSERT_EQ(out.bins.size(), 2u);
    EXPECT_DOUBLE_EQ(out.bin_s, 1.0);
    EXPECT_EQ(out.bins[0].count, 100u);
    EXPECT_DOUBLE_EQ(out.bins[0].p50, 50);
    EXPECT_DOUBLE_EQ(out.bins[0].p95, 95);
    EXPECT_DOUBLE_EQ(out.bins[0].p99, 99);
    EXPECT_DOUBLE_EQ(out.bins[0].max, 100);
    EXPECT_EQ(out.bins[1].count, 1u);
    EXPECT_DOUBLE_EQ(out.bins[1].p50, 500);
    EXPECT_EQ(out.points.size(), 101u);  // under the cap: every observation
}

TEST(LatencyOverTime, ThinnedPointsKeepTheOutliers) {
    std::vector<double> t(10000), ms(10000, 1.0);
    std::iota(t.begin(), t.end(), 0.0);
    ms[4321] = 900;  // a spike the stride would miss
    const auto out = latency_over_time(t, ms, 10000, 10, 100);
    EXPECT_LE(out.points.size(), 100u);
    EXPECT_GE(out.points.size(), 50u);
    bool spike = false;
    for (auto [time, v] : out.points) spike |= (time == 4321 && v == 900);
    EXPECT_TRUE(spike);
}

TEST(IdleGaps, FindsGapsOverTheThresholdAndCountsNodesPausedTogether) {
    const std::vector<std::vector<std::int64_t>> times = {
        {0, 50, 100, 500, 590},  // lane 0: idle 100..500
        {0, 300, 700},           // lane 1: idle 0..300 and 300..700
        {0, 800, 1000, 1010},    // lane 2: idle 0..800 and 800..1000
        {0, 10, 20, 30}};        // lane 3: never idle
    const auto gaps = find_idle_gaps(times, 150);
    std::map<std::pair<std::uint32_t, std::int64_t>, std::uint32_t> concurrent;
    for (const auto& g : gaps) concurrent[{g.lane, g.start_ns}] = g.concurrent;
    EXPECT_EQ(concurrent.size(), 5u);
    EXPECT_EQ((concurrent[{0, 100}]), 3u);  // with lane 1 and lane 2
    EXPECT_EQ((concurrent[{1, 0}]), 3u);
    EXPECT_EQ((concurrent[{1, 300}]), 3u);
    EXPECT_EQ((concurrent[{2, 0}]), 3u);
    EXPECT_EQ((concurrent[{2, 800}]), 1u);  // alone by then
    EXPECT_TRUE(find_idle_gaps(times, 1000).empty());
}

TEST(IdleGaps, TouchingGapsDoNotCountAsConcurrent) {
    const std::vector<std::vector<std::int64_t>> times = {{0, 100}, {100, 200}};
    const auto gaps = find_idle_gaps(times, 50);
    ASSERT_EQ(gaps.size(), 2u);
    EXPECT_EQ(gaps[0].concurrent, 1u);
    EXPECT_EQ(gaps[1].concurrent, 1u);
}

TEST(Density, CountsSamplesPerLaneAndBinIncludingTheLastInstant) {
    const std::vector<std::uint32_t> lane = {0, 0, 1, 1, 1};
    const std::vector<std::int64_t> t = {1000, 1499, 1500, 2000, 2500};
    const auto d = density(lane, t, 2, 1000, 1000, 2);
    EXPECT_THAT(d[0], ElementsAre(2, 0));
    EXPECT_THAT(d[1], ElementsAre(0, 2));  // 2500 is outside the span: not counted
}

TEST(EvenSample, ThinsToTheCapSpreadOverTheRange) {
    EXPECT_THAT(even_sample(3, 5), ElementsAre(0, 1, 2));
    EXPECT_THAT(even_sample(10, 5), ElementsAre(0, 2, 4, 6, 8));
    EXPECT_TRUE(even_sample(10, 0).empty());
}

}  // namespace
}  // namespace hashtrace::report
