#include "run_stats.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace hashtrace::samples {

ValueSummary summarize_values(std::vector<double> values) {
    ValueSummary s;
    s.count = values.size();
    if (values.empty()) return s;
    double sum = 0;
    for (double v : values) sum += v;
    s.mean = sum / static_cast<double>(values.size());
    double sq = 0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(sq / static_cast<double>(values.size()));
    std::sort(values.begin(), values.end());
    auto rank = [&](double p) {
        auto r = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
        return values[std::clamp<std::size_t>(r, 1, values.size()) - 1];
    };
    s.p50 = rank(50);
    s.p99 = rank(99);
    s.max = values.back();
    return s;
}

namespace {

using json = nlohmann::ordered_json;

// Six significant digits, as the statistics were always written.
double digits6(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return std::strtod(text, nullptr);
}

json summary_json(const ValueSummary& s) {
    return json{{"count", s.count}, {"mean", digits6(s.mean)}, {"sd", digits6(s.sd)},
                {"p50", digits6(s.p50)}, {"p99", digits6(s.p99)}, {"max", digits6(s.max)}};
}

}  // namespace

std::string RunStats::to_json(double target_rate_hz) const {
    json j{{"node", node_},
           {"target_rate_hz", digits6(target_rate_hz)},
           {"iterations", iterations_},
           {"loop_seconds", digits6(loop_seconds_)},
           {"rate_hz", digits6(loop_seconds_ > 0 ? static_cast<double>(iterations_) / loop_seconds_ : 0.0)},
           {"messages_created", created_},
           {"cpu_seconds", digits6(cpu_seconds_)},
           {"period_ms", summary_json(summarize_values(periods_ms_))},
           {"latency_ms", json::object()}};
    for (const auto& [origin, values] : latency_ms_) j["latency_ms"][msg::to_string(origin)] = summary_json(summarize_values(values));
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

void RunStats::write(const std::string& file, double target_rate_hz) const {
    std::ofstream out(file);
    out << to_json(target_rate_hz);
    if (!out) throw std::runtime_error(file + ": cannot write the node's statistics");
}

}  // namespace hashtrace::samples
