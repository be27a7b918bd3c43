// change_table.hpp - which what-if changes apply to a constraint, resolved
// once per segment class of the model (a class is one pair of
// "node/tracepoint" labels and a kind), and applied with a count per change.
#pragma once

#include "hashtrace/critical_path/change.hpp"
#include "hashtrace/critical_path/model.hpp"

#include <cstdint>
#include <vector>

namespace hashtrace::critical_path {

class ChangeTable {
public:
    // Resolved for every class at once (a class's labels tell its node and
    // tracepoint names), so that lookups are reads, safe from any thread.
    ChangeTable(const DependenceModel& model, const std::vector<Change>& changes)
        : model_(model), changes_(changes), table_(model.classes().size()) {
        const auto& tracepoints = model.samples().tracepoints;
        std::vector<const graph::Tracepoint*> of_label(model.labels().size(), nullptr);
        for (std::size_t t = 0; t < tracepoints.size(); ++t) of_label[model.label_of_tracepoint(graph::TracepointId(t))] = &tracepoints[t];
        for (std::size_t c = 0; c < table_.size(); ++c) {
            const SegmentClass& segment = model.classes()[c];
            for (std::uint32_t k = 0; k < changes_.size(); ++k)
                if (changes_[k].matches(*of_label[segment.from_label], *of_label[segment.to_label])) table_[c].push_back(k);
        }
    }

    // The changes (indices) that match constraint y -> x, or its class.
    const std::vector<std::uint32_t>& of(SampleIndex y, SampleIndex x, SegmentKind kind) const { return of_class(model_.class_index(y, x, kind)); }
    const std::vector<std::uint32_t>& of_class(std::uint32_t segment_class) const { return table_[segment_class]; }

    // The duration `ns` of constraint y -> x with the changes that match it
    // applied, each counted in `counts` (per change).
    std::int64_t apply(SampleIndex y, SampleIndex x, SegmentKind kind, std::int64_t ns, std::vector<std::uint64_t>& counts) const {
        return apply(of(y, x, kind), ns, counts);
    }
    std::int64_t apply(const std::vector<std::uint32_t>& matching, std::int64_t ns, std::vector<std::uint64_t>& counts) const {
        for (std::uint32_t c : matching) {
            ns = changes_[c].apply(ns);
            ++counts[c];
        }
        return ns;
    }

private:
    const DependenceModel& model_;
    const std::vector<Change>& changes_;
    std::vector<std::vector<std::uint32_t>> table_;
};

}  // namespace hashtrace::critical_path
