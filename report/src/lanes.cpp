#include "hashtrace/report/build.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace hashtrace::report {

Lanes assign_lanes(const graph::SampleSet& samples, bool of_each_sample) {
    // Distinct (instance, thread) pairs, ordered by node, instance, thread so
    // that a node's threads sit next to each other.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> index;
    for (std::size_t s = 0; s < samples.size(); ++s)
        index.emplace(std::pair{samples.tracepoint_of(graph::SampleIndex(s)).instance_id, samples.thread[s]}, 0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> keys;
    for (const auto& [key, unused] : index) keys.push_back(key);
    std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
        const auto& ia = samples.instances[a.first];
        const auto& ib = samples.instances[b.first];
        return std::tie(ia.node_name, ia.instance, a.second) < std::tie(ib.node_name, ib.instance, b.second);
    });
    Lanes out;
    for (const auto& key : keys) {
        index[key] = static_cast<std::uint32_t>(out.lanes.size());
        const auto& inst = samples.instances[key.first];
        Lane lane{inst.node_name + " " + inst.instance, inst.node_name, inst.instance, std::nullopt};
        if (key.second != graph::kNoThread) {
            lane.thread = key.second;
            lane.label += " t" + std::to_string(key.second);
        }
        out.lanes.push_back(std::move(lane));
        out.instance.push_back(key.first);
    }
    if (!of_each_sample) return out;
    out.of_sample.resize(samples.size());
    for (std::size_t s = 0; s < samples.size(); ++s)
        out.of_sample[s] = index.at({samples.tracepoint_of(graph::SampleIndex(s)).instance_id, samples.thread[s]});
    return out;
}

}  // namespace hashtrace::report
