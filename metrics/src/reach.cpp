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

void EarliestReach::run(std::span<const TargetSet* const> targets) {
    if (targets.size() > kWidth) throw std::invalid_argument("EarliestReach: too many target sets in one pass");
    width_ = targets.size();
    const std::size_t n = samples_.size();
    // Which of this pass's sets each tracepoint belongs to, as bits.
    std::vector<std::uint8_t> membership(samples_.tracepoints.size(), 0);
    for (std::size_t k = 0; k < width_; ++k)
        for (std::size_t t = 0; t < membership.size(); ++t)
            if ((*targets[k])[t]) membership[t] |= std::uint8_t(1u << k);
    best_.assign(n * width_, kUnreached);
    const graph::Edge* edges = graph_.edges.data();
    const std::uint32_t* offset = graph_.out_offset.data();
    bool changed = true;
    while (changed) {
        changed = false;
        for (std::size_t v = n; v-- > 0;) {
            graph::SampleIndex* mine = &best_[v * width_];
            for (std::uint32_t e = offset[v]; e < offset[v + 1]; ++e) {
                const graph::SampleIndex c = edges[e].to;
                const std::uint8_t bits = membership[samples_.tracepoint[c]];
                const graph::SampleIndex* theirs = &best_[std::size_t{c} * width_];
                for (std::size_t k = 0; k < width_; ++k) {
                    const graph::SampleIndex candidate = std::min((bits >> k) & 1 ? c : kUnreached, theirs[k]);
                    if (candidate < mine[k]) {
                        mine[k] = candidate;
                        changed = true;
                    }
                }
            }
        }
        changed &= backward_edges_;
    }
}

}  // namespace hashtrace::metrics::detail
