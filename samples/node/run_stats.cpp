#include "run_stats.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
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
void put_summary(std::ostringstream& out, const ValueSummary& s) {
    out << "{\"count\": " << s.count << ", \"mean\": " << s.mean << ", \"sd\": " << s.sd << ", \"p50\": " << s.p50
        << ", \"p99\": " << s.p99 << ", \"max\": " << s.max << "}";
}
}  // namespace

std::string RunStats::to_json(double target_rate_hz) const {
    std::ostringstream out;
    out.precision(6);
    out << "{\"node\": \"" << node_ << "\", \"target_rate_hz\": " << target_rate_hz
        << ", \"iterations\": " << iterations_ << ", \"loop_seconds\": " << loop_seconds_ << ", \"rate_hz\": "
        << (loop_seconds_ > 0 ? static_cast<double>(iterations_) / loop_seconds_ : 0.0)
        << ", \"messages_created\": " << created_ << ", \"cpu_seconds\": " << cpu_seconds_
        << ", \"period_ms\": ";
    put_summary(out, summarize_values(periods_ms_));
    out << ", \"latency_ms\": {";
    bool first = true;
    for (const auto& [origin, values] : latency_ms_) {
        out << (first ? "" : ", ") << "\"" << msg::to_string(origin) << "\": ";
        put_summary(out, summarize_values(values));
        first = false;
    }
    out << "}}\n";
    return out.str();
}

void RunStats::write(const std::string& file, double target_rate_hz) const {
    std::ofstream out(file);
    out << to_json(target_rate_hz);
    if (!out) throw std::runtime_error(file + ": cannot write the node's statistics");
}

}  // namespace hashtrace::samples
