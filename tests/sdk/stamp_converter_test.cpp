// TSC stamps to CLOCK_REALTIME (detail/stamp_converter.hpp), on made-up clocks
// whose true answer is known: a TSC at 3 GHz, CLOCK_REALTIME slewed and stepped.
#include <hashtrace/detail/stamp_converter.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

using hashtrace::detail::ClockPoint;
using hashtrace::detail::StampConverter;

namespace {

constexpr std::uint64_t kTsc0 = 1'000'000'000'000;  // ticks at the session's start
constexpr std::int64_t kNs0 = 1'700'000'000'000'000'000;
constexpr double kTicksPerNs = 3.0;

// CLOCK_REALTIME `ns` after the start, as the TSC shows it when the real clock
// runs `ppm` fast against it.
ClockPoint at(std::int64_t ns, double ppm = 0, std::int64_t step_ns = 0) {
    const double ticks = static_cast<double>(ns) * kTicksPerNs / (1 + ppm * 1e-6);
    return {kTsc0 + static_cast<std::uint64_t>(std::llround(ticks)), kNs0 + ns + step_ns};
}
std::int64_t tsc_at(std::int64_t ns, double ppm = 0) { return static_cast<std::int64_t>(at(ns, ppm).tsc); }

}  // namespace

TEST(StampConverter, WithoutTscStampsAreAlreadyRealtime) {
    const StampConverter identity;
    EXPECT_FALSE(identity.converts());
    EXPECT_EQ(identity.to_ns(kNs0 + 5), kNs0 + 5);
}

TEST(StampConverter, InterpolatesBetweenPointsAndFollowsTheRealClocksRate) {
    // The real clock runs 40 ppm fast against the TSC (PTP slewing): the
    // conversion must follow it, not the TSC's nominal rate.
    StampConverter c(at(0, 40));
    for (std::int64_t ms = 1; ms <= 100; ++ms) c.add(at(ms * 1'000'000, 40));
    for (std::int64_t ns : {95'000'000LL, 99'123'457LL, 100'000'000LL, 100'400'000LL})
        EXPECT_NEAR(static_cast<double>(c.to_ns(tsc_at(ns, 40)) - kNs0), static_cast<double>(ns), 2.0) << ns;
}

TEST(StampConverter, LateStampsUseTheKnotsAroundThem) {
    // The rate changes at 50 ms (PTP corrects): a stamp from before the change
    // that reaches the writer late is converted with the rate of its time.
    StampConverter c(at(0));
    std::int64_t ns = 0;
    for (; ns <= 50'000'000; ns += 1'000'000) c.add(at(ns));
    const ClockPoint change = at(50'000'000);
    auto after = [&](std::int64_t dns) {  // 100 ppm fast from the change on
        return ClockPoint{change.tsc + static_cast<std::uint64_t>(std::llround(dns * kTicksPerNs / (1 + 1e-4))),
                          change.ns + dns};
    };
    for (std::int64_t d = 1'000'000; d <= 60'000'000; d += 1'000'000) c.add(after(d));
    EXPECT_NEAR(static_cast<double>(c.to_ns(tsc_at(25'000'000)) - kNs0), 25'000'000, 2.0);
    EXPECT_NEAR(static_cast<double>(c.to_ns(static_cast<std::int64_t>(after(33'000'000).tsc)) - change.ns), 33'000'000, 2.0);
    EXPECT_NEAR(static_cast<double>(c.to_ns(static_cast<std::int64_t>(after(60'500'000).tsc)) - change.ns), 60'500'000, 2.0);
}

TEST(StampConverter, OlderThanTheHistoryIsExtrapolatedBack) {
    StampConverter c(at(0));
    for (std::int64_t ms = 1; ms <= 2000; ++ms) c.add(at(ms * 1'000'000));  // 64 knots keep ~640 ms
    EXPECT_NEAR(static_cast<double>(c.to_ns(tsc_at(3'000'000)) - kNs0), 3'000'000, 2.0);
}

TEST(StampConverter, AStepOfTheClockIsNotSmearedOverTheSamplesBeforeIt) {
    // At 30.5 ms CLOCK_REALTIME is stepped 2 ms forward; the writer's next point is at 31 ms.
    constexpr std::int64_t kStep = 2'000'000;
    StampConverter c(at(0));
    for (std::int64_t ms = 1; ms <= 30; ++ms) c.add(at(ms * 1'000'000));
    c.add(at(31'000'000, 0, kStep));
    EXPECT_NEAR(static_cast<double>(c.to_ns(tsc_at(30'200'000)) - kNs0), 30'200'000, 2.0) << "before the step: old time";
    for (std::int64_t ms = 32; ms <= 40; ++ms) c.add(at(ms * 1'000'000, 0, kStep));
    EXPECT_NEAR(static_cast<double>(c.to_ns(tsc_at(35'000'000)) - kNs0), 35'000'000 + kStep, 2.0) << "after: new time";
    EXPECT_NEAR(static_cast<double>(c.to_ns(tsc_at(30'200'000)) - kNs0), 30'200'000, 2.0) << "late stamp from before";
}

TEST(StampConverter, NoisyPointsGiveErrorsOfTheirOwnSizeOnly) {
    // Points read with up to +-40 ns of error (clock_gettime on a busy VM):
    // converted stamps stay within a few times that, not ms.
    StampConverter c(at(0));
    std::uint64_t seed = 7;
    auto noise = [&] {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::int64_t>((seed >> 33) % 81) - 40;
    };
    double worst = 0;
    for (std::int64_t us = 50; us <= 500'000; us += 50) {
        ClockPoint p = at(us * 1000);
        p.ns += noise();
        c.add(p);
        const std::int64_t probe = us * 1000 + 25'000;  // a stamp after the newest point
        worst = std::max(worst, std::fabs(static_cast<double>(c.to_ns(tsc_at(probe)) - kNs0 - probe)));
    }
    EXPECT_LT(worst, 200.0);
}

TEST(StampConverter, APointReadAcrossAPreemptionIsPassedOver) {
    auto read = [](std::int64_t ns) {  // a clock_gettime call takes ~70 ticks
        ClockPoint p = at(ns);
        p.window = 70;
        return p;
    };
    StampConverter c(read(0));
    for (std::int64_t ms = 1; ms <= 30; ++ms) c.add(read(ms * 1'000'000));
    // Preempted for 3 ms between the TSC read and clock_gettime: the point's
    // time is 3 ms late, and its window says so.
    ClockPoint late = at(30'500'000);
    late.ns += 3'000'000;
    late.window = 9'000'000;
    c.add(late);
    EXPECT_NEAR(static_cast<double>(c.to_ns(tsc_at(30'700'000)) - kNs0), 30'700'000, 2.0);
}
