// change_table.hpp - which what-if changes apply to a constraint, resolved
// once per segment class of the model (a class is one pair of
// "node/tracepoint" labels and a kind), and applied with a count per change.
#pragma once

#include "hashtrace/critical_path/change.hpp"
#include "hashtrace/critical_path/model.hpp"

#include <cstdint>
#include <vector>

namespace hashtrace::critpath {

class ChangeTable {
public:
    ChangeTable(const DependenceModel& model, const std::vector<Change>& changes)
        : model_(model), changes_(changes), table_(model.classes().size()), resolved_(model.classes().size(), 0) {}

    const std::vector<std::uint32_t>& of(SampleIndex y, SampleIndex x, SegmentKind kind) {
        const std::uint32_t c = model_.class_index(y, x, kind);
        if (!resolved_[c]) {
            resolved_[c] = 1;
            const auto& s = model_.samples();
            for (std::uint32_t k = 0; k < changes_.size(); ++k)
                if (changes_[k].matches(s.tracepoint_of(y), s.tracepoint_of(x))) table_[c].push_back(k);
        }
        return table_[c];
    }

    // The duration `ns` of constraint y -> x with the changes that match it
    // applied, each counted in `counts` (per change).
    std::int64_t apply(SampleIndex y, SampleIndex x, SegmentKind kind, std::int64_t ns, std::vector<std::uint64_t>& counts) {
        for (std::uint32_t c : of(y, x, kind)) {
            ns = changes_[c].apply(ns);
            ++counts[c];
        }
        return ns;
    }

private:
    const DependenceModel& model_;
    const std::vector<Change>& changes_;
    std::vector<std::vector<std::uint32_t>> table_;
    std::vector<std::uint8_t> resolved_;
};

}  // namespace hashtrace::critpath
