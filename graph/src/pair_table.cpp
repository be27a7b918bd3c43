#include "pair_table.hpp"

#include <algorithm>

namespace hashtrace::graph::detail {

PairTable::PairTable(const SampleSet& samples, const AnalysisSpec& spec) : sources_(samples.source_count) {
    allow_all_ = spec.pairs.empty();
    if (allow_all_) {
        mask_allowed(samples);
        return;
    }
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
    list_allowed(samples);
    mask_allowed(samples);
}

// (Called with the dense table built, or with every pair allowed.)
void PairTable::mask_allowed(const SampleSet& samples) {
    if (sources_ > kMostMaskedSources) return;
    std::vector<std::uint32_t> instance_of(sources_);
    for (const Tracepoint& tp : samples.tracepoints) instance_of[tp.source_id] = tp.instance_id;
    masks_.assign(sources_, {});
    for (std::size_t to = 0; to < sources_; ++to)
        for (std::size_t from = 0; from < sources_; ++from) {
            const std::uint8_t code = allow_all_ ? kAny : dense_[from * sources_ + to];
            if (code == 0 || (code != kAny && instance_of[from] != instance_of[to])) continue;
            const std::uint64_t bit = std::uint64_t{1} << from;
            masks_[to].allowed |= bit;
            if (code == kThread) masks_[to].same_thread |= bit;
        }
}

void PairTable::list_allowed(const SampleSet& samples) {
    std::vector<std::uint32_t> instance_of(sources_);
    for (const Tracepoint& tp : samples.tracepoints) instance_of[tp.source_id] = tp.instance_id;
    auto links = [&](std::size_t from, std::size_t to) {
        const std::uint8_t code = dense_[from * sources_ + to];
        return code == kAny || (code != 0 && instance_of[from] == instance_of[to]);
    };
    // A list longer than the few producer sources of a typical hash would not
    // be used; this bound also keeps the lists small next to the dense table.
    constexpr std::size_t kMaxListed = std::size_t{1} << 20;
    std::size_t listed = 0;
    for (std::size_t from = 0; from < sources_; ++from)
        for (std::size_t to = 0; to < sources_; ++to) listed += links(from, to);
    if (listed > kMaxListed) return;
    list_offset_.assign(sources_ + 1, 0);
    allowed_.reserve(listed);
    for (std::size_t to = 0; to < sources_; ++to) {
        for (std::size_t from = 0; from < sources_; ++from)
            if (links(from, to)) allowed_.push_back({static_cast<std::uint32_t>(from), *scope(static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to))});
        list_offset_[to + 1] = static_cast<std::uint32_t>(allowed_.size());
    }
}

std::uint8_t PairTable::sparse_lookup(std::uint32_t from, std::uint32_t to) const {
    std::uint8_t code = 0;
    for (const RuleMasks& r : rules_)
        if (r.from[from] && r.to[to]) code = std::max(code, r.code);
    return code;
}

}  // namespace hashtrace::graph::detail
