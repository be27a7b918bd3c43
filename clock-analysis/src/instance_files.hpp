// instance_files.hpp - the process instance each log file holds, for the
// corrections that move a file's times onto the reference's clock.
#pragma once

#include "hashtrace/graph/sample_set.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace hashtrace::clock_analysis::detail {

// The instance of each file; nullopt for a file mixing instances.
inline std::vector<std::optional<std::uint32_t>> instance_of_files(const graph::SampleSet& samples) {
    std::vector<std::optional<std::uint32_t>> of(samples.files.size());
    std::vector<bool> mixed(samples.files.size(), false);
    for (const auto& tp : samples.tracepoints) {
        auto& o = of[tp.file];
        if (o && *o != tp.instance_id) mixed[tp.file] = true;
        o = tp.instance_id;
    }
    for (std::size_t f = 0; f < of.size(); ++f)
        if (mixed[f]) of[f].reset();
    return of;
}

}  // namespace hashtrace::clock_analysis::detail
