#include "hashtrace/collectors/frame_clock.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace hashtrace::collectors;

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'001 * kSecond;

TEST(FrameClock, InterpolatesBetweenEdgesWithTheirOwnRate) {
    // A camera 1000 ppm fast: 1001 frames between the seconds.
    const FrameClock clock({{100.0, kT0}, {1101.0, kT0 + kSecond}, {2101.0, kT0 + 2 * kSecond}}, 1000);
    EXPECT_EQ(clock.time_at(100.0), kT0);
    EXPECT_EQ(clock.time_at(600.5), kT0 + kSecond / 2);
    EXPECT_EQ(clock.time_at(1601.0), kT0 + kSecond + kSecond / 2);          // second segment: 1000 frames/s
    EXPECT_NEAR(static_cast<double>(clock.time_at(0.0) - kT0), -100e9 / 1001, 1.0);  // extends the first segment
    EXPECT_EQ(clock.time_at(2201.0), kT0 + 2 * kSecond + 100'000'000);      // extends the last one
    EXPECT_EQ(clock.frame_time(100), clock.time_at(100.5));                  // middle of the exposure
}

TEST(FrameClock, OneKnotUsesTheNominalRate) {
    const FrameClock clock = clock_from_start_time(kT0, 500);
    EXPECT_EQ(clock.frame_time(0), kT0 + 1'000'000);
    EXPECT_EQ(clock.frame_time(1000), kT0 + 2 * kSecond + 1'000'000);
}

TEST(FrameClock, RejectsKnotsOutOfOrderAndMissingRates) {
    EXPECT_THROW(FrameClock({{5.0, kT0}, {5.0, kT0 + kSecond}}, 1000), std::invalid_argument);
    EXPECT_THROW(FrameClock({}, 1000), std::invalid_argument);
    EXPECT_THROW(FrameClock({{0.0, kT0}}, 0), std::invalid_argument);
}

TEST(CeilToSecond, RoundsUpExactlyOnBothSidesOfTheEpoch) {
    EXPECT_EQ(ceil_to_second(kT0), kT0);
    EXPECT_EQ(ceil_to_second(kT0 + 1), kT0 + kSecond);
    EXPECT_EQ(ceil_to_second(kT0 - 1), kT0);
    EXPECT_EQ(ceil_to_second(-1), 0);
    EXPECT_EQ(ceil_to_second(-kSecond - 1), -kSecond);
}
