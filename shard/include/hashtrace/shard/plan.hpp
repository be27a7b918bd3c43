// hashtrace/shard/plan.hpp - a run cut into time shards: the logs' time
// index (logio::index_log: block headers for binary logs of format 3, a scan
// for the others), then shard boundaries so that each shard holds about the
// samples asked for.
#pragma once

#include "hashtrace/logio/log_index.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hashtrace::shard {

// A run's logs, indexed: where their samples lie in time, and their health
// (drops, losses, torn tails, unclean closes), which is the whole run's and
// so reported once from here rather than by every shard.
struct RunIndex {
    std::vector<logio::LogIndex> logs;  // in the order of the files given
    std::uint64_t samples = 0;
    std::int64_t first_ns = 0, last_ns = 0;  // the run's first and last sample times (samples > 0)

    // The mean rate over the run (a run of one instant: as if over 1 ns).
    double samples_per_s() const noexcept {
        const double seconds = double(last_ns - first_ns) / 1e9;
        return double(samples) / (seconds > 1e-9 ? seconds : 1e-9);
    }
};

// Throws logio::LogError for the first bad file, as loading would.
RunIndex index_run(const std::vector<std::filesystem::path>& files, bool lenient = false, unsigned threads = 0);

struct TimeRange {
    std::int64_t from_ns = 0, to_ns = 0;  // [from, to)
};

// [first, last] cut into ranges of about `shard_samples` samples each (at
// least one range; samples are taken as spread evenly within a block of the
// index, so the counts are estimates). The ranges tile the run: each starts
// where the previous one ends, the first at the run's first time and the
// last past its last time.
std::vector<TimeRange> cut_shards(const RunIndex& run, std::uint64_t shard_samples);

// The first shard cut in two, its first `1/parts` a probe (samples at one
// time never split; unchanged when the shard is too short to cut): a
// default margin is widened from what the first shard sees, and a first
// shard that saw more than its margin is summarised again, which a probe
// makes cheap.
std::vector<TimeRange> with_probe(const RunIndex& run, std::vector<TimeRange> shards, unsigned parts);

// How many samples of the run fall in [from, to), estimated from the index:
// in all (for the memory a window takes) and per log (for its columns' size).
std::uint64_t samples_in(const RunIndex& run, TimeRange range);
std::vector<std::uint64_t> samples_per_log(const RunIndex& run, TimeRange range);

}  // namespace hashtrace::shard

namespace hashtrace::shard {

// A plan written for other processes or machines (`hashtrace shard plan`):
// the run's logs (paths, sample counts, time ranges, health), its shards
// with the windows they read, and for each shard the logs whose samples
// reach into its window.
struct PlanFile {
    RunIndex run;  // its logs' spans are not kept
    std::vector<TimeRange> shards;
    std::int64_t margin_ns = 0;
    std::int64_t tolerance_ns = 0;
};
std::string to_json(const PlanFile& plan);
// Throws std::invalid_argument naming what is wrong.
PlanFile plan_from_json(const std::string& text);

// The logs of `run` with samples in [from, to), by their index in run.logs.
std::vector<std::size_t> logs_in(const RunIndex& run, TimeRange range);

}  // namespace hashtrace::shard
