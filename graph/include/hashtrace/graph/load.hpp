// hashtrace/graph/load.hpp - the loading stage: log files (binary or CSV, any
// mix) -> SampleSet. The only part of the graph builder that touches disk.
#pragma once

#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/logio/reader.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::graph {

struct LoadProgress {
    std::size_t files_done = 0;
    std::size_t files_total = 0;
    std::uint64_t samples_read = 0;
};

struct LoadOptions {
    bool lenient = false;           // skip malformed records and count them (ReadReport::bad_records)
    bool keep_hash_values = false;  // fill SampleSet::hash_values (routes need them, metrics do not)
    unsigned threads = 0;           // parallel file parsing; 0 = hardware concurrency
    std::function<void(const LoadProgress&)> progress;  // called from the loading threads, serialised
    // Only the samples of [from_ns, to_ns) (a time shard and its margins:
    // binary logs of format 3 are read only where their blocks hold such
    // times). Every file keeps its place, with or without samples in the range.
    std::int64_t from_ns = INT64_MIN, to_ns = INT64_MAX;
    // Per file, how many samples the range is expected to hold (from the
    // logs' time index), so that a file's columns are not sized for all of it; empty: unknown.
    std::vector<std::uint64_t> expected_samples;
    // Per file, the stretches the range read may jump over (logio::jumps_outside
    // of its index), so that it maps only the blocks it reads; empty: none.
    std::vector<std::vector<logio::ByteJump>> jumps;
};

// Loads the given files in parallel (one worker per file at a time). The files
// keep the order given. Throws logio::LogError for the first bad file.
SampleSet load_samples(const std::vector<std::filesystem::path>& files, const LoadOptions& options = {});

// The same from in-memory logs {name, bytes} (format detected from the bytes);
// for tests and fuzzing.
SampleSet load_samples_from_memory(const std::vector<std::pair<std::string, std::string>>& logs,
                                   const LoadOptions& options = {});

}  // namespace hashtrace::graph
