#include "reach.hpp"

#include <algorithm>
#include <stdexcept>

namespace hashtrace::metrics::detail {

EarliestReach::EarliestReach(const graph::SampleSet& samples, const graph::Graph& graph) : samples_(samples), graph_(graph) {
    for (const graph::Edge& e : graph.edges)
        if (e.from >= e.to) {
            backward_edges_ = true;
            break;
        }
}

namespace {

// One backward pass; returns whether any value changed. `member[c]` holds the
// target-set bits of sample c. Templated on the width so the inner loop unrolls.
template <std::size_t W>
bool relax(std::size_t n, const std::uint32_t* offset, const graph::Edge* edges, const std::uint8_t* member, graph::SampleIndex* best) {
    bool changed = false;
    for (std::size_t v = n; v-- > 0;) {
        const std::uint32_t end = offset[v + 1];
        if (offset[v] == end) continue;
        graph::SampleIndex mine[W];
        for (std::size_t k = 0; k < W; ++k) mine[k] = best[v * W + k];
        for (std::uint32_t e = offset[v]; e < end; ++e) {
            const graph::SampleIndex c = edges[e].to;
            const std::uint8_t bits = member[c];
            for (std::size_t k = 0; k < W; ++k) {
                const graph::SampleIndex self = (bits >> k) & 1 ? c : kUnreached;
                mine[k] = std::min({mine[k], self, best[std::size_t{c} * W + k]});
            }
        }
        for (std::size_t k = 0; k < W; ++k) {
            changed |= mine[k] != best[v * W + k];
            best[v * W + k] = mine[k];
        }
    }
    return changed;
}

}  // namespace

void EarliestReach::run(std::span<const TargetSet* const> targets) {
    if (targets.size() > kWidth) throw std::invalid_argument("EarliestReach: too many target sets in one pass");
    width_ = targets.size();
    const std::size_t n = samples_.size();
    std::vector<std::uint8_t> by_tracepoint(samples_.tracepoints.size(), 0);
    for (std::size_t k = 0; k < width_; ++k)
        for (std::size_t t = 0; t < by_tracepoint.size(); ++t)
            if ((*targets[k])[t]) by_tracepoint[t] |= std::uint8_t(1u << k);
    std::vector<std::uint8_t> member(n);
    for (std::size_t i = 0; i < n; ++i) member[i] = by_tracepoint[samples_.tracepoint[i]];
    best_.assign(n * width_, kUnreached);
    auto pass = [&] {
        const auto* offset = graph_.out_offset.data();
        const auto* edges = graph_.edges.data();
        switch (width_) {
            case 1: return relax<1>(n, offset, edges, member.data(), best_.data());
            case 2: return relax<2>(n, offset, edges, member.data(), best_.data());
            case 3: return relax<3>(n, offset, edges, member.data(), best_.data());
            default: return relax<4>(n, offset, edges, member.data(), best_.data());
        }
    };
    // Without backward edges one pass in reverse index order is exact.
    while (pass() && backward_edges_) {
    }
}

}  // namespace hashtrace::metrics::detail
