// hashtrace/graph/sample_set.hpp - every sample of a run, collated from many
// node logs into compact columns (the input of linking and metrics).
//
// Why columns: a run holds millions of samples and linking touches only a few
// fields at a time; 128-bit hashes are interned to dense 32-bit ids while the
// logs are read, so equality of ids is equality of (hash function, hash) and a
// sample costs 24 bytes instead of ~60.
//
//   auto samples = hashtrace::graph::load_samples(paths);          // load.hpp
//   hashtrace::graph::correct_times(samples, clock_correction);    // optional
//   auto graph = hashtrace::graph::link(samples, spec, options);   // link.hpp
#pragma once

#include "hashtrace/graph/column.hpp"
#include "hashtrace/hash128.hpp"
#include "hashtrace/logio/sample_log.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hashtrace::graph {

using SampleIndex = std::uint32_t;
using HashId = std::uint32_t;
using TracepointId = std::uint32_t;

inline constexpr HashId kNoHash = 0xFFFFFFFFu;       // the sample has no input / output hash
inline constexpr std::uint32_t kNoThread = 0xFFFFFFFFu;  // the log has no thread column

// One tracepoint as one file defines it (so a sample's file is its
// tracepoint's file and costs no per-sample bytes), with the run's ids of
// what it belongs to. Files of the same node instance defining the same
// tracepoint share its source_id.
struct Tracepoint : logio::TracepointInfo {
    std::uint32_t instance_id = 0;  // index into SampleSet::instances
    std::uint32_t node_id = 0;      // index into SampleSet::node_names
    std::uint32_t source_id = 0;    // docs/spec.md section 4 rule 5 "source": (node, instance, tracepoint name)
    std::uint32_t file = 0;         // index into SampleSet::files
};

// A node instance: (node name, instance text).
struct Instance {
    std::string node_name;
    std::string instance;
    std::uint32_t node_id = 0;
};

// One input file.
struct SourceFile {
    std::string path;
    logio::LogHeader header;
    logio::ReadReport report;
    SampleIndex sample_count = 0;
};

// Samples are kept in time order (ties in file order): linking then finds
// producers already sorted, and graph walks in index order run forward in time
// with cache-friendly access.
struct SampleSet {
    // Per-sample columns, all the same length.
    Column<std::int64_t> time_ns;     // UTC ns since the Unix epoch
    Column<HashId> input;             // kNoHash when the sample has no input hash
    Column<HashId> output;            // kNoHash when the sample has no output hash
    Column<TracepointId> tracepoint;  // index into tracepoints
    Column<std::uint32_t> thread;     // kNoThread when the log has no thread column

    std::vector<Tracepoint> tracepoints;
    std::vector<Instance> instances;
    std::vector<std::string> node_names;
    std::uint32_t source_count = 0;          // distinct Tracepoint::source_id values
    std::vector<SourceFile> files;

    // The value behind each HashId (for routes and exports); empty when the
    // loader was told not to keep them (analyze does not need them).
    std::vector<Hash128> hash_values;
    std::vector<HashFunction> hash_functions;  // parallel to hash_values
    std::size_t hash_count = 0;              // number of distinct ids (kept or not)

    std::uint64_t dropped_samples = 0;       // sum over the files' drop records
    std::uint64_t lost_samples = 0;          // sum over the files' loss records (writes a full disk refused)

    std::size_t size() const noexcept { return time_ns.size(); }
    std::size_t file_of(SampleIndex s) const { return tracepoints[tracepoint[s]].file; }
    const Tracepoint& tracepoint_of(SampleIndex s) const { return tracepoints[tracepoint[s]]; }
    // "Node/tracepoint" of a sample, for messages.
    std::string label(SampleIndex s) const;
    // Frees the input and output columns (8 bytes a sample), for a caller
    // done with them: linking reads them, the metrics do not.
    void drop_hash_ids() noexcept;
    // f(column) for each per-sample column.
    template <typename F>
    void for_each_column(F&& f) {
        f(time_ns);
        f(input);
        f(output);
        f(tracepoint);
        f(thread);
    }
};

// t_to - t_from without undefined behaviour on absurd inputs: wraps (as
// two's complement) only when the span exceeds 292 years.
inline std::int64_t elapsed_ns(std::int64_t from, std::int64_t to) noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from));
}

// The first sample at or after time t (size() when none): where a time
// window's own samples begin, the samples being in time order.
inline SampleIndex first_at_or_after(const SampleSet& s, std::int64_t t) noexcept {
    return static_cast<SampleIndex>(std::lower_bound(s.time_ns.begin(), s.time_ns.end(), t) - s.time_ns.begin());
}

// The stage where clock correction plugs in (`analyze --clock-correct`):
// replaces every sample's time t of file f by correction(f, t), then restores
// time order. Run it after loading and before linking; the core never reads
// clocks itself. Sample indices change: take none across this call.
using TimeCorrection = std::function<std::int64_t(std::size_t file_index, std::int64_t time_ns)>;
void correct_times(SampleSet& samples, const TimeCorrection& correction);

// Restores time order (stable); the loader and correct_times call it. For
// code that builds a SampleSet by hand.
void sort_by_time(SampleSet& samples);

}  // namespace hashtrace::graph
