// consumer_blocks.hpp - a join unit's edges grouped by block of consumers,
// so that the degree counts and row writes that follow go a cache-sized block
// of samples at a time (link.cpp, for units whose samples span the run).
#pragma once

#include "hashtrace/graph/link.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace hashtrace::graph::detail {

// log2 of the consumers a block holds, for consumers in [first, first + span):
// 2^13 (a block's writes stay within 32-64 KiB of each graph column), coarser
// past 2048 blocks, so that the counters stay L1-resident and the scattered
// writes go to few enough streams.
inline unsigned consumer_block_shift(std::uint32_t span) {
    constexpr unsigned kBlockShift = 13, kMostBlockBits = 11;
    const unsigned bits = span > 1 ? static_cast<unsigned>(std::bit_width(span - 1)) : 0;
    return std::max(kBlockShift, bits > kMostBlockBits ? bits - kMostBlockBits : 0);
}

// Stable partition of edges by (to - first) >> consumer_block_shift(span),
// every edge's consumer in [first, first + span), in place: one counting
// pass, a copy into `scratch` (its capacity kept for the next call) and one
// scattering pass back. Being stable, it keeps what placing the rows relies
// on: each consumer's edges next to each other, each producer's in consumer
// order. Blocks, not a full sort by consumer: placing needs no more, and a
// sort would cost more than the unit's join.
inline void group_by_consumer_block(std::span<Edge> edges, SampleIndex first, std::uint32_t span, Column<Edge>& scratch,
                                    std::vector<std::uint32_t>& block_start) {
    if (edges.size() < 2) return;
    const unsigned shift = consumer_block_shift(span);
    auto block_of = [&](const Edge& e) { return (e.to - first) >> shift; };
    block_start.assign((std::size_t{span - 1} >> shift) + 1, 0);
    for (const Edge& e : edges) ++block_start[block_of(e)];
    std::uint32_t sum = 0;
    for (std::uint32_t& c : block_start) sum += std::exchange(c, sum);
    scratch.assign(edges.begin(), edges.end());
    for (const Edge& e : scratch) edges[block_start[block_of(e)]++] = e;
}

}  // namespace hashtrace::graph::detail
