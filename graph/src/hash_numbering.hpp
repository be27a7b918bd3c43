// hash_numbering.hpp - the run's hash ids from the loading workers' own.
#pragma once

#include "chunk.hpp"

#include <vector>

namespace hashtrace::graph::detail {

// The largest chunk's hash ids become the global ids (its table is kept,
// the others' keys are looked up in it: the fewer the better). Another
// chunk's hash takes that chunk's id if it has one - a lookup that only reads
// the table, so two threads share the work and nothing is inserted or
// rehashed - and else the next new id, in chunk order. Sets out.hash_count
// (and the values when kept); returns each chunk's map from its ids to the
// global ones, indexed by id + 1 so that kNoHash (which wraps to 0) maps to
// itself without a branch.
std::vector<std::vector<HashId>> number_hashes(std::vector<Chunk>& chunks, SampleSet& out, bool keep_hash_values);

}  // namespace hashtrace::graph::detail
