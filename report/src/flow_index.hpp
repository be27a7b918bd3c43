// flow_index.hpp - for each event, the flows that leave it and that end in it,
// as compressed rows (two flat arrays instead of a vector per event: exports
// hold millions of events).
#pragma once

#include "hashtrace/report/trace_model.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hashtrace::report {

class FlowIndex {
public:
    explicit FlowIndex(const TraceModel& model);
    std::span<const std::uint32_t> outgoing(std::uint32_t event) const { return row(out_start_, out_, event); }
    std::span<const std::uint32_t> incoming(std::uint32_t event) const { return row(in_start_, in_, event); }

private:
    static std::span<const std::uint32_t> row(const std::vector<std::uint32_t>& start,
                                              const std::vector<std::uint32_t>& items, std::uint32_t event) {
        return {items.data() + start[event], items.data() + start[event + 1]};
    }
    std::vector<std::uint32_t> out_start_, out_, in_start_, in_;
};

}  // namespace hashtrace::report
