// system_logs.hpp - hand-made systems for the structure-recovery tests: CSV
// logs (SPEC.md section 1) written sample by sample, with the hash labels of
// each tracepoint, and the truth as a hand-written spec.
//
//   SystemLogs logs;
//   logs.add({"Camera", "c1", "Captured", "", "frame"}, t_ns, {}, value(7));
//   auto samples = logs.load();
#pragma once

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::infer::testing {

struct Tp {
    std::string node, instance, name, in_label, out_label;
};

// The hash of an integer the way two id spaces overlap: only the value
// counts, not what it stands for. `kind` keeps unrelated values apart.
inline std::string value(std::uint64_t v, std::uint32_t kind = 0) {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%08x%08x%016llx", kind, 0u, static_cast<unsigned long long>(v));
    return buf;
}

class SystemLogs {
public:
    void add(const Tp& tp, std::int64_t time_ns, const std::string& in, const std::string& out, int thread = 0) {
        char time[64];
        std::snprintf(time, sizeof time, "%lld.%09lld", static_cast<long long>(time_ns / 1'000'000'000),
                      static_cast<long long>(time_ns % 1'000'000'000));
        rows_[tp.node + "-" + tp.instance].push_back({time_ns, tp.node + "," + tp.instance + "," + tp.name + "," + tp.in_label + "," +
                                                                    tp.out_label + "," + time + "," + in + "," + out + "," +
                                                                    std::to_string(thread)});
    }

    std::vector<std::pair<std::string, std::string>> files() const {
        std::vector<std::pair<std::string, std::string>> out;
        for (auto [name, rows] : rows_) {
            std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            std::string text = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash,thread\n";
            for (const auto& r : rows) text += r.second + "\n";
            out.emplace_back(name + ".csv", std::move(text));
        }
        return out;
    }

    graph::SampleSet load() const {
        graph::LoadOptions options;
        options.threads = 1;
        return graph::load_samples_from_memory(files(), options);
    }

private:
    std::map<std::string, std::vector<std::pair<std::int64_t, std::string>>> rows_;
};

constexpr std::int64_t kStart = 1'800'000'000'000'000'000;
constexpr std::int64_t kMs = 1'000'000;

inline std::set<std::pair<graph::SampleIndex, graph::SampleIndex>> edge_set(const graph::Graph& g) {
    std::set<std::pair<graph::SampleIndex, graph::SampleIndex>> out;
    for (const auto& e : g.edges) out.emplace(e.from, e.to);
    return out;
}

}  // namespace hashtrace::infer::testing
