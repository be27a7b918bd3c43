// hashtrace/infer/writers.hpp - structure recovery, step 3: the inferred
// structure as a spec to edit (TOML, SPEC.md section 3), a picture (Graphviz
// DOT) and JSON. Pure: text in, text out.
#pragma once

#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/evidence.hpp"

#include <string>
#include <vector>

namespace hashtrace::infer {

// [[pair]] per kept pair, each with a comment (links, share of the consumer's
// inputs, median latency, why kept), then the [[interval]] entries. Tracepoint
// names a selector cannot spell (a '/' or '*' in them) are left out, with a
// comment saying so. graph::parse_spec reads it back.
std::string write_spec(const Evidence& evidence, const std::vector<ProposedInterval>& intervals);

// Nodes as clusters, tracepoints inside, kept pairs as edges labelled with
// rate and median latency; rejected pairs other than shortcuts dashed.
std::string write_dot(const Evidence& evidence, const Chains& chains);

std::string write_json(const Evidence& evidence, const Chains& chains, const std::vector<ProposedInterval>& intervals);

// The evidence as a terminal table, one row per candidate pair, then the chains.
std::string write_report(const Evidence& evidence, const Chains& chains);

}  // namespace hashtrace::infer
