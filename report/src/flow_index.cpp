#include "flow_index.hpp"

namespace hashtrace::report {

namespace {

// Counting sort of flow indices by one end.
void build_rows(const TraceModel& model, std::uint32_t TraceFlow::*end, std::vector<std::uint32_t>& start,
                std::vector<std::uint32_t>& items) {
    start.assign(model.events.size() + 1, 0);
    for (const auto& f : model.flows) ++start[f.*end + 1];
    for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    items.resize(model.flows.size());
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::uint32_t i = 0; i < model.flows.size(); ++i) items[fill[model.flows[i].*end]++] = i;
}

}  // namespace

FlowIndex::FlowIndex(const TraceModel& model) {
    build_rows(model, &TraceFlow::from, out_start_, out_);
    build_rows(model, &TraceFlow::to, in_start_, in_);
}

}  // namespace hashtrace::report
