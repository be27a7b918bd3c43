#include "hashtrace/sensors/clock_mapping.hpp"

#include <gtest/gtest.h>

#include <ctime>

namespace hs = hashtrace::sensors;

TEST(ClockMapping, ClassifiesStampByNearestClock) {
    const std::int64_t realtime = 1'700'000'000'000'000'000;  // 2023
    const std::int64_t monotonic = 3'600'000'000'000;         // an hour after boot
    EXPECT_EQ(hs::classify_event_clock(monotonic - 5'000'000, realtime, monotonic), hs::EventClock::monotonic);
    EXPECT_EQ(hs::classify_event_clock(realtime - 5'000'000, realtime, monotonic), hs::EventClock::realtime);
}

TEST(ClockMapping, MapsMonotonicStampWithTheOffsetAndKeepsRealtime) {
    hs::ClockOffsetReading reading;
    reading.realtime_minus_monotonic_ns = 1'000'000'000'000;
    EXPECT_EQ(hs::event_to_realtime(42, hs::EventClock::monotonic, reading), 1'000'000'000'042);
    EXPECT_EQ(hs::event_to_realtime(42, hs::EventClock::realtime, reading), 42);
}

TEST(ClockMapping, LiveOffsetMatchesTheSystemClocks) {
    const auto reading = hs::read_clock_offset();
    timespec real{}, mono{};
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    const std::int64_t mono_ns = mono.tv_sec * 1'000'000'000LL + mono.tv_nsec;
    const std::int64_t real_ns = real.tv_sec * 1'000'000'000LL + real.tv_nsec;
    // A monotonic stamp taken now maps to (about) the realtime now.
    const std::int64_t mapped = hs::event_to_realtime(mono_ns, hs::EventClock::monotonic, reading);
    EXPECT_LT(std::llabs(mapped - real_ns), 5'000'000);  // 5 ms: only scheduling separates the reads
    EXPECT_GE(reading.uncertainty_ns, 0);
    EXPECT_EQ(hs::classify_event_clock(mono_ns, reading.realtime_now_ns, reading.monotonic_now_ns),
              hs::EventClock::monotonic);
}
