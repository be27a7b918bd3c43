// clock_model.hpp - simulated clocks with known offset, drift and steps, the
// messages they would stamp (the known answers the estimate is held to), and
// the CSV log text of such samples.
#pragma once

#include "hashtrace/clock_analysis/edge_constraints.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace clock_model {

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSecond = 1'000'000'000;

// local(T) = T + offset + drift * (T - kT0), plus `step` from `step_at` on.
struct Clock {
    double offset_ns = 0;
    double drift_ppm = 0;
    std::int64_t step_ns = 0;
    std::int64_t step_at = INT64_MAX;
    std::int64_t local(std::int64_t t) const {
        return t + std::llround(offset_ns + drift_ppm * 1e-6 * static_cast<double>(t - kT0)) + (t >= step_at ? step_ns : 0);
    }
    // The true offset from a reference clock at true time t.
    double offset_from(const Clock& ref, std::int64_t t) const { return static_cast<double>(local(t) - ref.local(t)); }
};

// Messages every `period` over `duration` from kT0 + `start`, each with a
// transit drawn from [min_transit, max_transit].
inline std::vector<hashtrace::clock_analysis::Message> messages(const Clock& from, const Clock& to, std::int64_t period,
                                                                std::int64_t duration, std::int64_t min_transit,
                                                                std::int64_t max_transit, std::uint64_t seed,
                                                                std::int64_t start = 0) {
    std::mt19937_64 random(seed);
    std::vector<hashtrace::clock_analysis::Message> out;
    for (std::int64_t t = kT0 + start; t < kT0 + start + duration; t += period) {
        const std::int64_t transit = min_transit + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(max_transit - min_transit + 1));
        out.push_back({from.local(t), to.local(t + transit)});
    }
    return out;
}

// CSV logs of those stamps, exact to the nanosecond: the header, a message's
// hash (32 hex digits from its number) and a time in seconds.
constexpr const char* kCsvHeader = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n";

inline std::string csv_hash(int i) {
    char buffer[33];
    std::snprintf(buffer, sizeof buffer, "%032x", i + 1);
    return buffer;
}

inline std::string csv_seconds(std::int64_t ns) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%lld.%09lld", static_cast<long long>(ns / kSecond), static_cast<long long>(ns % kSecond));
    return buffer;
}

}  // namespace clock_model
