// chunk.hpp - what one loading worker parsed: the samples of several files
// in columns of blocks, with their hashes and tracepoints numbered in the
// worker's own id spaces (chunk_filler.cpp fills it; hash_numbering.cpp and
// placement.cpp merge the chunks into the SampleSet).
#pragma once

#include "block_column.hpp"
#include "hash_interner.hpp"
#include "run_merge.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/logio/sample_log.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hashtrace::graph::detail {

struct Chunk {
    BlockColumn<std::int64_t> time;
    BlockColumn<HashId> input, output;
    BlockColumn<TracepointId> tracepoint;
    BlockColumn<std::uint32_t> thread;
    HashInterner hashes;
    std::vector<std::pair<logio::TracepointInfo, std::uint32_t>> tracepoints;  // with their file index

    // f(column) for each sample column.
    template <typename F>
    void for_each_column(F&& f) {
        f(time);
        f(input);
        f(output);
        f(tracepoint);
        f(thread);
    }
};

// Where one file's samples went.
struct ParsedFile {
    std::size_t chunk = 0;
    std::size_t first = 0;  // in the chunk
    RunStarts runs;         // in the chunk
    SourceFile meta;
};

}  // namespace hashtrace::graph::detail
