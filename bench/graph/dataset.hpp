// dataset.hpp - a synthetic run shaped like the paper's Case Study 2: five
// nodes (haptics, router, physics, graphics, a display camera), fan-out
// through the router, wrapping loop counters (hash reuse), a display that
// shows a frame more than once, and the ten intervals of bench_spec().
#pragma once

#include "hashtrace/log_format.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace hashtrace::bench {

struct DatasetSize {
    std::uint64_t samples = 0;  // written in total
    std::uint64_t files = 0;
};

// Writes one log per node into `dir` (created), about `target_samples` in total.
DatasetSize generate_dataset(const std::filesystem::path& dir, std::uint64_t target_samples, LogFormat format, std::uint64_t seed = 1);

// The analysis spec for the dataset (TOML): its allowed pairs and ten intervals.
std::string bench_spec();

}  // namespace hashtrace::bench
