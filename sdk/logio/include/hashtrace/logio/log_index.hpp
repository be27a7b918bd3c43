// hashtrace/logio/log_index.hpp - where a log's samples lie in time, without
// keeping them: for a time-sharded analysis to cut a run into shards and to
// read only what a shard needs.
//
//   auto index = hashtrace::logio::index_log("logs/Physics-1a2b.htlog");
//   for (const auto& span : index.spans) ...   // min_ns, max_ns, samples
#pragma once

#include "hashtrace/logio/reader.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hashtrace::logio {

// A stretch of a log in file order and the times of its samples: a block of
// a binary log of version 3 that holds only samples (its header's time
// index), else a batch of up to SampleColumns::kCapacity samples as read.
struct TimeSpan {
    std::int64_t min_ns = 0, max_ns = 0;
    std::uint64_t samples = 0;  // never 0
    std::uint64_t at = 0, end = 0;  // a block's bytes; 0, 0 for a batch as read
};

struct LogIndex {
    std::string path;
    LogHeader header;
    std::vector<TimeSpan> spans;  // in file order, each sample in one; a time may lie in several spans' ranges
    std::uint64_t samples = 0;
    std::int64_t min_ns = 0, max_ns = 0;  // of every sample (samples > 0)
    ReadReport report;                    // what a whole read reports: drops, losses, torn tail, clean close, bad records
};

// A binary log of version 3 is indexed from its block headers: every block
// is checked against its checksum (so damage is found before any shard is
// read), the blocks with records other than samples are decoded (so the
// report is a whole read's) and the others are not. Older versions and CSV
// are read in full. Throws LogError as read_log does.
LogIndex index_log(const std::filesystem::path& file, const ReadOptions& options = {});

// The stretches of the log a read of [from_ns, to_ns) can jump over
// (ReadOptions::jumps): runs of adjacent blocks of samples all outside the
// range. Empty for a log whose index holds no blocks (older versions, CSV).
std::vector<ByteJump> jumps_outside(const LogIndex& index, std::int64_t from_ns, std::int64_t to_ns);

}  // namespace hashtrace::logio
