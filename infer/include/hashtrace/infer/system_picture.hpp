// hashtrace/infer/system_picture.hpp - the inferred system as a picture to
// draw: nodes as clusters with their tracepoints inside, candidate pairs as
// edges labelled with rate and median latency, suspect pairs marked. The one
// description of what the picture shows: `infer --dot` (writers.hpp) and the
// HTML report of a spec-less `analyze` both draw it. Pure.
#pragma once

#include "hashtrace/infer/chains.hpp"
#include "hashtrace/infer/evidence.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hashtrace::infer {

struct PictureTracepoint {
    ClassId id = 0;
    std::string selector;  // "node/tracepoint"
    std::string name;      // the tracepoint alone
    std::uint64_t samples = 0;
    bool source = false, sink = false;
    // Chain depth: the most kept pairs on a path from a source to it (a
    // pair closing a cycle does not count), so sources sit left and each
    // consumer right of its producers.
    std::uint32_t depth = 0;
};

struct PictureNode {  // a cluster: every tracepoint of one node (all its instances)
    std::string name;
    std::vector<PictureTracepoint> tracepoints;  // in ClassId order
};

struct PictureEdge {
    std::uint32_t pair = 0;  // index into Evidence::pairs
    std::string from, to;    // selectors
    double rate_per_s = 0, p50_ms = 0;
    bool suspect = false;    // rejected (drawn dashed), with its verdict
    Verdict verdict = Verdict::kept;
    graph::PairScope scope = graph::PairScope::any;  // of a kept pair
};

struct SystemPicture {
    std::vector<PictureNode> nodes;  // by name
    std::vector<PictureEdge> edges;  // every candidate pair but shortcuts (implied by the drawn ones), in Evidence::pairs order
    std::size_t kept = 0, suspect = 0, shortcuts = 0;
    std::uint32_t depths = 0;        // 1 + the largest depth (0 without tracepoints)
};

SystemPicture system_picture(const Evidence& evidence, const Chains& chains);

}  // namespace hashtrace::infer
