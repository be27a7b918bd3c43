// Replay tests of the measuring path: edges with known offset, drift and
// jitter go through a replay file into the tracker, and the estimates are
// compared with the truth that generated them.
#include "hashtrace/clocksync/pps_loop.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace hc = hashtrace::clocksync;
namespace hs = hashtrace::sensors;

namespace {
constexpr std::int64_t kStart = 1'700'000'000'000'000'000;

hc::PpsTrackerConfig lab_config() {
    hc::PpsTrackerConfig config;
    config.host = "lab";
    return config;
}
constexpr std::int64_t kSecond = 1'000'000'000;

struct Truth {
    double offset_ns;   // local minus reference at the first edge
    double drift_ppb;   // ns of offset gained per second
    double jitter_ns;   // standard deviation of an edge's stamp
};

// The edges a GPIO pin would have stamped: the local clock's reading at each
// reference second boundary, plus interrupt jitter.
std::vector<hs::Edge> make_edges(const Truth& truth, int count, std::uint32_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> jitter(0.0, truth.jitter_ns);
    std::vector<hs::Edge> edges;
    for (int k = 0; k < count; ++k) {
        const double local = truth.offset_ns + truth.drift_ppb * k + jitter(random);
        edges.push_back({kStart + k * kSecond + std::llround(local), hs::EdgeKind::rising, static_cast<std::uint64_t>(k + 1)});
    }
    return edges;
}

std::vector<hc::ClockRecord> measure(const std::vector<hs::Edge>& edges, std::size_t window = 16) {
    // Through the replay file format, as `hashtrace clock pps --replay` reads it.
    auto source = hs::make_replay_edges(hs::parse_edge_replay(hs::format_edge_replay(edges), "replay"));
    hc::PpsTrackerConfig config;
    config.host = "lab";
    config.window = window;
    hc::PpsTracker tracker(config, nullptr);
    std::vector<hc::ClockRecord> records;
    hc::run_pps_loop(*source, tracker, [&](const hc::ClockRecord& r) { records.push_back(r); });
    return records;
}
}  // namespace

TEST(PhaseToSecond, WrapsToTheNearestSecond) {
    EXPECT_EQ(hc::phase_to_second_ns(kStart + 250), 250);
    EXPECT_EQ(hc::phase_to_second_ns(kStart - 250), -250);
    EXPECT_EQ(hc::phase_to_second_ns(kStart + 499'999'999), 499'999'999);
    EXPECT_EQ(hc::phase_to_second_ns(kStart + 500'000'000), -500'000'000);
}

TEST(PhaseEstimator, RecoversExactLineWithoutJitter) {
    hc::PhaseEstimator estimator(8);
    std::optional<hc::PhaseEstimate> e;
    for (int k = 0; k < 20; ++k) e = estimator.add(kStart + k * kSecond, 1000 + 250 * k);
    ASSERT_TRUE(e);
    EXPECT_NEAR(e->phase_ns, 1000 + 250 * 19, 1e-6);
    EXPECT_NEAR(e->drift_ppb, 250, 1e-9);
    EXPECT_NEAR(e->jitter_ns, 0, 1e-6);
    EXPECT_EQ(e->edges, 8u);
}

TEST(PpsMeasure, EstimatesOffsetDriftAndJitterAgainstKnownTruth) {
    const Truth truth{-120'000, 10'000, 50'000};  // -120 us, 10 us/s, 50 us jitter
    const auto edges = make_edges(truth, 300, 7);
    const auto records = measure(edges);
    ASSERT_EQ(records.size(), edges.size());
    EXPECT_EQ(records[0].state, "ACQUIRING");
    EXPECT_FALSE(records[0].offset_ns.has_value());

    double phase_sq = 0, drift_sq = 0, jitter_sum = 0;
    int n = 0;
    for (std::size_t k = 16; k < records.size(); ++k) {  // once the window is full
        const auto& r = records[k];
        ASSERT_EQ(r.state, "TRACKING");
        const double true_offset = truth.offset_ns + truth.drift_ppb * static_cast<double>(k);
        phase_sq += std::pow(static_cast<double>(*r.offset_ns) - true_offset, 2);
        drift_sq += std::pow(*r.freq_ppb - truth.drift_ppb, 2);
        jitter_sum += static_cast<double>(*r.jitter_ns);
        ++n;
    }
    // A 16-edge fit of 50 us jitter: the fitted end point has a standard
    // error of 50 * sqrt(1/16 + 7.5^2/340) = 24 us, the slope 50/sqrt(340) = 2.7 us/s.
    EXPECT_LT(std::sqrt(phase_sq / n), 30'000);
    EXPECT_LT(std::sqrt(drift_sq / n), 3'500);
    EXPECT_NEAR(jitter_sum / n, 50'000 * std::sqrt(14.0 / 16.0), 6'000);  // rms of residuals, n-2 dof
}

TEST(PpsMeasure, ReportsLargeOffsetWithoutJitterExactly) {
    const auto records = measure(make_edges({300'000'000, -2'000, 0.0}, 20, 1));
    EXPECT_EQ(*records.back().offset_ns, 300'000'000 - 2'000 * 19);
    // Drift is per second of the local clock, which itself runs 2 ppm slow.
    EXPECT_NEAR(*records.back().freq_ppb, -2'000 / (1 - 2e-6), 1e-6);
}

TEST(PpsMeasure, PhaseStaysContinuousWhenTheClockDriftsAcrossHalfASecond) {
    // 499.9 ms ahead, gaining 10 us/s: the edges cross the +-0.5 s wrap after 10 s.
    const auto records = measure(make_edges({499'900'000, 10'000, 0.0}, 40, 1));
    for (std::size_t k = 3; k < records.size(); ++k) {
        EXPECT_EQ(*records[k].offset_ns, 499'900'000 + 10'000 * static_cast<std::int64_t>(k)) << k;
        EXPECT_NEAR(*records[k].freq_ppb, 10'000, 1);
    }
}

TEST(PpsMeasure, GlitchEdgesAreDroppedAndCounted) {
    auto edges = make_edges({1'000, 0, 0.0}, 10, 1);
    edges.insert(edges.begin() + 5, hs::Edge{edges[4].realtime_ns + 100'000'000, hs::EdgeKind::rising, 99});
    auto source = hs::make_replay_edges(edges);
    hc::PpsTracker tracker(lab_config(), nullptr);
    std::vector<hc::ClockRecord> records;
    const auto counts = hc::run_pps_loop(*source, tracker, [&](const hc::ClockRecord& r) { records.push_back(r); });
    EXPECT_EQ(counts.glitches, 1u);
    EXPECT_EQ(counts.edges, 10u);
    EXPECT_EQ(records.size(), 10u);
    EXPECT_EQ(*records.back().offset_ns, 1'000);
}

TEST(PpsMeasure, MissingEdgesBecomeNoSignalRecords) {
    // A source that has nothing to say (a disconnected PPS wire) for two waits.
    class SilentSource final : public hs::EdgeSource {
    public:
        std::optional<hs::Edge> next(std::chrono::nanoseconds) override {
            ++waits;
            return std::nullopt;
        }
        bool finished() const override { return waits >= 2; }
        std::string describe() const override { return "silent"; }
        int waits = 0;
    } silent;
    hc::PpsTracker tracker(lab_config(), nullptr);
    std::vector<hc::ClockRecord> records;
    hc::PpsLoopOptions options;
    options.now_ns = [] { return kStart; };
    const auto counts = hc::run_pps_loop(silent, tracker, [&](const hc::ClockRecord& r) { records.push_back(r); }, options);
    EXPECT_EQ(counts.timeouts, 1u);  // the second wait ended the source, not a timeout
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].state, "NO_SIGNAL");
    EXPECT_EQ(records[0].time_ns, kStart);
    EXPECT_EQ(hc::sync_status(records[0]), hc::SyncStatus::unknown);
}
