#include "hashtrace/report/build.hpp"

#include <unordered_map>

namespace hashtrace::report {

TraceModel build_trace_tracks(const graph::SampleSet& samples, const Lanes& lanes, std::vector<std::uint32_t>& name_of_tracepoint) {
    TraceModel m;
    // Processes in lane order (node, instance): the loader numbers instances in
    // whatever order its threads finish, and the viewers' track order should not vary.
    std::vector<std::uint32_t> process_of_instance(samples.instances.size(), 0);
    std::vector<bool> seen(samples.instances.size(), false);
    for (std::size_t l = 0; l < lanes.lanes.size(); ++l) {
        const auto inst = lanes.instance[l];
        if (!seen[inst]) {
            seen[inst] = true;
            process_of_instance[inst] = std::uint32_t(m.processes.size());
            m.processes.push_back({samples.instances[inst].node_name, samples.instances[inst].instance});
        }
        // Each lane (instance, thread) is a thread track of its instance's process.
        m.threads.push_back({process_of_instance[inst],
                             lanes.lanes[l].thread ? "thread " + std::to_string(*lanes.lanes[l].thread) : "samples"});
    }
    std::unordered_map<std::string, std::uint32_t> name_index;
    name_of_tracepoint.clear();
    for (const auto& tp : samples.tracepoints) {
        const auto [it, added] = name_index.emplace(tp.tracepoint_name, std::uint32_t(m.names.size()));
        if (added) m.names.push_back(tp.tracepoint_name);
        name_of_tracepoint.push_back(it->second);
    }
    return m;
}

TraceModel build_trace_model(const graph::SampleSet& samples, const graph::Graph& graph, std::int64_t slice_ns) {
    const auto lanes = assign_lanes(samples);
    std::vector<std::uint32_t> name_of_tracepoint;
    TraceModel m = build_trace_tracks(samples, lanes, name_of_tracepoint);
    m.slice_ns = slice_ns;
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
