#include "hashtrace/report/build.hpp"

#include <unordered_map>

namespace hashtrace::report {

TraceModel build_trace_model(const graph::SampleSet& samples, const graph::Graph& graph, std::int64_t slice_ns) {
    TraceModel m;
    m.slice_ns = slice_ns;
    for (const auto& inst : samples.instances) m.processes.push_back({inst.node_name, inst.instance});

    const auto lanes = assign_lanes(samples);
    // Lanes are per (instance, thread): each becomes a thread track of its instance's process.
    for (std::size_t l = 0; l < lanes.lanes.size(); ++l)
        m.threads.push_back({lanes.instance[l], lanes.lanes[l].thread ? "thread " + std::to_string(*lanes.lanes[l].thread)
                                                                       : "samples"});

    std::unordered_map<std::string, std::uint32_t> name_index;
    std::vector<std::uint32_t> name_of_tracepoint;
    for (const auto& tp : samples.tracepoints) {
        const auto [it, added] = name_index.emplace(tp.tracepoint_name, std::uint32_t(m.names.size()));
        if (added) m.names.push_back(tp.tracepoint_name);
        name_of_tracepoint.push_back(it->second);
    }

    const bool hashes = !samples.hash_values.empty();
    m.events.resize(samples.size());
    for (std::size_t s = 0; s < samples.size(); ++s) {
        auto& e = m.events[s];
        e.time_ns = samples.time_ns[s];
        e.thread = lanes.of_sample[s];
        e.name = name_of_tracepoint[samples.tracepoint[s]];
        e.has_input = hashes && samples.input[s] != graph::kNoHash;
        e.has_output = hashes && samples.output[s] != graph::kNoHash;
        if (e.has_input) e.input_hash = samples.hash_values[samples.input[s]];
        if (e.has_output) e.output_hash = samples.hash_values[samples.output[s]];
    }
    m.flows.reserve(graph.edges.size());
    for (const auto& edge : graph.edges) m.flows.push_back({edge.from, edge.to});
    return m;
}

}  // namespace hashtrace::report
