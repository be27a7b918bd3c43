// placement.hpp - the chunks' samples into the SampleSet's columns, in time order.
#pragma once

#include "chunk.hpp"

#include <cstddef>
#include <vector>

namespace hashtrace::graph::detail {

// Where the placement writes a chunk's samples from: the chunk's columns
// with the maps from its ids to the run's.
struct ChunkColumns {
    const Chunk* chunk;
    const HashId* hash_map;  // by the chunk's id + 1 (number_hashes)
    const TracepointId* tracepoint_map;
};

// Writes every sample to its place in `out` in time order (ties in file
// order), each output once, from two threads: files in time order, or
// nearly (a few sorted runs), are merged; others are sorted in a copy. Each
// thread reads a run (or a file) through a reader of its own.
void place_in_time_order(const std::vector<Chunk>& chunks, const std::vector<ParsedFile>& files, std::size_t total,
                         const std::vector<ChunkColumns>& columns, SampleSet& out);

}  // namespace hashtrace::graph::detail
