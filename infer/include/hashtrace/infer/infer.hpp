// hashtrace/infer/infer.hpp - structure recovery in one call: the spec-less
// graph of a run -> evidence -> chains -> intervals a sample path follows ->
// the spec. What `hashtrace infer` writes, and what `hashtrace analyze` links
// with when it is given no spec (docs/infer.md).
//
//   auto specless = graph::link(samples, graph::AnalysisSpec{});   // hash ids kept
//   auto found = infer::infer_structure(samples, specless, options);
//   auto spec = graph::parse_spec(found.spec_text, "inferred spec");
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/evidence.hpp"

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hashtrace::infer {

struct InferOptions {
    bool all_intervals = false;  // every ordered pair along each route, not only each link and source to sink
    // Links the run with the kept pairs, where the spec-less graph does not
    // hold their links (Evidence::needs_relinking); empty: graph::link with
    // default options. A command passes its own linking stage (tolerance,
    // threads, progress).
    std::function<graph::Graph(const graph::AnalysisSpec&)> relink;
};

struct Inference {
    Evidence evidence;
    Chains chains;
    std::vector<ProposedInterval> intervals;
    std::size_t intervals_left_out = 0;  // along routes no sample path follows
    std::string spec_text;               // the spec, commented (write_spec)
};

// Logs that hold no structure: no input hash, nothing that links, or every
// candidate pair rejected. The message says which, and what was found.
class NoStructure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `specless` is the samples linked with no [[pair]] rules; the samples must
// still hold their hash ids. Throws NoStructure.
Inference infer_structure(const graph::SampleSet& samples, const graph::Graph& specless, const InferOptions& options = {});

}  // namespace hashtrace::infer
