// chunk_filler.hpp - parsing one log into a loading worker's chunk.
#pragma once

#include "chunk.hpp"
#include "hashtrace/logio/reader.hpp"

#include <cstdint>
#include <functional>

namespace hashtrace::graph::detail {

// Appends the samples of the log that `parse` reads (into the visitor it is
// given) to `chunk`, their hashes interned into the chunk's table; `file` is
// the log's index among the inputs, `bytes` its size (to size the columns
// and table once), `meta` takes its header, `runs` notes where its times go
// back, and on_batch (if set) hears of each batch of samples. Returns what
// `parse` reports.
logio::ReadReport fill_chunk(Chunk& chunk, std::uint32_t file, std::uintmax_t bytes, SourceFile& meta, RunStarts& runs,
                             const std::function<void(std::uint64_t)>& on_batch,
                             const std::function<logio::ReadReport(logio::LogVisitor&)>& parse);

}  // namespace hashtrace::graph::detail
