#include "pair_table.hpp"

#include <algorithm>

namespace hashtrace::graph::detail {

PairTable::PairTable(const SampleSet& samples, const AnalysisSpec& spec) : sources_(samples.source_count) {
    allow_all_ = spec.pairs.empty();
    if (allow_all_) return;
    for (const PairRule& rule : spec.pairs) {
        RuleMasks masks{std::vector<bool>(sources_), std::vector<bool>(sources_), code_of(rule.scope)};
        for (const Tracepoint& tp : samples.tracepoints) {
            if (rule.from.matches(tp.node_name, tp.tracepoint_name)) masks.from[tp.source_id] = true;
            if (rule.to.matches(tp.node_name, tp.tracepoint_name)) masks.to[tp.source_id] = true;
        }
        rules_.push_back(std::move(masks));
    }
    constexpr std::size_t kMaxDense = std::size_t{1} << 24;  // 16 MiB: thousands of sources
    if (sources_ * sources_ > kMaxDense) return;
    dense_.assign(sources_ * sources_, 0);
    for (const RuleMasks& r : rules_)
        for (std::size_t a = 0; a < sources_; ++a)
            if (r.from[a])
                for (std::size_t b = 0; b < sources_; ++b)
                    if (r.to[b]) dense_[a * sources_ + b] = std::max(dense_[a * sources_ + b], r.code);
    rules_.clear();
}

std::uint8_t PairTable::sparse_lookup(std::uint32_t from, std::uint32_t to) const {
    std::uint8_t code = 0;
    for (const RuleMasks& r : rules_)
        if (r.from[from] && r.to[to]) code = std::max(code, r.code);
    return code;
}

}  // namespace hashtrace::graph::detail
