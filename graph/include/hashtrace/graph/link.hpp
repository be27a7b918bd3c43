// hashtrace/graph/link.hpp - the linking stage (docs/spec.md section 4): samples
// become graph nodes, hash equality plus the spec's constraints make edges.
#pragma once

#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace hashtrace::graph {

struct LinkOptions {
    std::int64_t tolerance_ns = 0;  // admits a.time <= b.time + tolerance (clock error across nodes)
    bool keep_all = false;          // every candidate per source instead of only the latest (rule 5)
    unsigned threads = 0;           // consumer loop workers; 0 = hardware concurrency
    std::function<void(std::uint64_t consumers_done, std::uint64_t edges)> progress;
};

struct Edge {
    SampleIndex from;
    SampleIndex to;
};

// The causality graph in compressed sparse rows, both directions.
struct Graph {
    Column<Edge> edges;                // sorted by (from, to)
    Column<std::uint32_t> out_offset;  // size samples+1: out-edges of s are edges[out_offset[s] .. out_offset[s+1])
    Column<std::uint32_t> in_edges;    // edge indices sorted by (to, from)
    Column<std::uint32_t> in_offset;   // size samples+1: in_edges[in_offset[s] .. in_offset[s+1])

    // docs/spec.md section 4 leftovers, reported by analyze.
    std::uint64_t unlinked_inputs = 0;       // samples with an input hash and no incoming edge
    std::uint64_t unconsumed_outputs = 0;    // samples with an output hash and no outgoing edge

    std::span<const Edge> out(SampleIndex s) const {
        return {edges.data() + out_offset[s], edges.data() + out_offset[s + 1]};
    }
    std::size_t in_degree(SampleIndex s) const { return in_offset[s + 1] - in_offset[s]; }
    template <typename F> void for_each_in(SampleIndex s, F&& f) const {
        for (auto i = in_offset[s]; i < in_offset[s + 1]; ++i) f(edges[in_edges[i]]);
    }
};

// Throws std::invalid_argument for a negative tolerance.
Graph link(const SampleSet& samples, const AnalysisSpec& spec, const LinkOptions& options = {});

// link() in its two steps, for a caller that frees memory in between: join()
// reads the samples' hash ids and finds every edge into per-worker lists;
// place() lays the edges out as the graph's rows and reads nothing of the
// samples. `analyze` drops the hash ids between the two (SampleSet::
// drop_hash_ids), so that the rows take those pages instead of fresh ones
// (8 bytes a sample off the peak). link(s, spec, o) is place(join(s, spec, o)).
struct JoinedEdges {
    struct Lists;  // link.cpp
    std::unique_ptr<Lists> lists;

    JoinedEdges();
    JoinedEdges(JoinedEdges&&) noexcept;
    JoinedEdges& operator=(JoinedEdges&&) noexcept;
    ~JoinedEdges();
};
JoinedEdges join(const SampleSet& samples, const AnalysisSpec& spec, const LinkOptions& options = {});
Graph place(JoinedEdges joined);

// docs/spec.md section 5: an edge is local when both ends share node instance and thread (or
// instance alone where the log has no thread column); otherwise a message edge.
inline bool is_local(const SampleSet& s, const Edge& e) {
    return s.tracepoints[s.tracepoint[e.from]].instance_id == s.tracepoints[s.tracepoint[e.to]].instance_id &&
           s.thread[e.from] == s.thread[e.to];
}

}  // namespace hashtrace::graph
