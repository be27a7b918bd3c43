#include "hashtrace/report/build.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace hashtrace::report {

std::map<std::string, double> clock_error_ms_by_node(const metrics::AnalysisResult& result) {
    std::map<std::string, double> out;
    for (const auto& section : result.extra) {
        if (section.key != "clock_sync") continue;
        try {
            // {"corrected": bool, "clocks": [...], "nodes": [{"node": "...", "error_bound_ns": int|null}]}
            const auto doc = nlohmann::json::parse(section.json);
            for (const auto& node : doc.at("nodes"))
                if (!node.at("error_bound_ns").is_null())
                    out[node.at("node").get<std::string>()] = node.at("error_bound_ns").get<double>() / 1e6;
        } catch (const nlohmann::json::exception& e) {
            throw std::invalid_argument(std::string("clock_sync section of the analysis: ") + e.what());
        }
    }
    return out;
}

}  // namespace hashtrace::report
