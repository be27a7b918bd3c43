// pair_table.hpp - which sources may link (docs/spec.md section 3 [[pair]] rules),
// resolved once per analysis from names to source ids so the linking loop
// pays one byte load per candidate run.
#pragma once

#include "hashtrace/graph/sample_set.hpp"
#include "hashtrace/graph/spec.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace hashtrace::graph::detail {

class PairTable {
public:
    PairTable(const SampleSet& samples, const AnalysisSpec& spec);

    // The scope under which a sample of source `from` may link to one of
    // source `to`; nullopt when no rule allows the pair.
    std::optional<PairScope> scope(std::uint32_t from, std::uint32_t to) const {
        const std::uint8_t code = allow_all_ ? kAny : dense_.empty() ? sparse_lookup(from, to) : dense_[std::size_t{from} * sources_ + to];
        if (code == 0) return std::nullopt;
        return code == kAny ? PairScope::any : code == kInstance ? PairScope::instance : PairScope::thread;
    }

    // The sources that may link to a sample of source `to`, ascending, with
    // their scopes, leaving out those whose scope needs the same node
    // instance and which are on another. A consumer usually has one or two:
    // the join looks them up instead of trying every producer source of a
    // hash. Only listed when few enough pairs are allowed (has_lists()).
    struct Allowed {
        std::uint32_t source;
        PairScope scope;
    };
    bool has_lists() const { return !list_offset_.empty(); }
    std::span<const Allowed> producers_for(std::uint32_t to) const {
        return {allowed_.data() + list_offset_[to], allowed_.data() + list_offset_[to + 1]};
    }

    // In a run of at most 64 sources, per consumer source, a bit per producer
    // source: those that may link to it (instances already checked, as for
    // producers_for), and those of them whose scope also needs the same
    // thread. The join then tests a candidate producer with a bit instead of
    // looking up its pair's scope and both instances.
    struct SourceMasks {
        std::uint64_t allowed = 0, same_thread = 0;
    };
    static constexpr std::size_t kMostMaskedSources = 64;
    bool has_masks() const { return !masks_.empty(); }
    const SourceMasks& masks_for(std::uint32_t to) const { return masks_[to]; }

private:
    // Larger code = more permissive; several rules allowing a pair combine to the most permissive.
    static constexpr std::uint8_t kThread = 1, kInstance = 2, kAny = 3;
    static std::uint8_t code_of(PairScope s) { return s == PairScope::any ? kAny : s == PairScope::instance ? kInstance : kThread; }
    std::uint8_t sparse_lookup(std::uint32_t from, std::uint32_t to) const;
    void list_allowed(const SampleSet& samples);
    void mask_allowed(const SampleSet& samples);

    struct RuleMasks {
        std::vector<bool> from, to;
        std::uint8_t code;
    };
    bool allow_all_ = false;
    std::size_t sources_ = 0;
    std::vector<std::uint8_t> dense_;   // sources x sources, when small enough
    std::vector<RuleMasks> rules_;      // otherwise
    std::vector<std::uint32_t> list_offset_;  // per `to` source, where its producers_for list starts (sources+1)
    std::vector<Allowed> allowed_;
    std::vector<SourceMasks> masks_;  // per `to` source, when sources_ <= kMostMaskedSources
};

}  // namespace hashtrace::graph::detail
