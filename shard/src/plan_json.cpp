// A shard plan as JSON, for the processes (and machines) that summarise its
// shards and the one that merges them. What the merge needs of the logs is
// their health; what the workers need is each shard's window and the logs
// that reach into it.
#include "hashtrace/shard/kernel.hpp"
#include "hashtrace/shard/plan.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace hashtrace::shard {
namespace {

using json = nlohmann::ordered_json;
constexpr int kFormat = 1;

json health_json(const logio::ReadReport& r) {
    return json{{"bad_records", r.bad_records}, {"dropped_samples", r.dropped_samples}, {"lost_samples", r.lost_samples}, {"stream_dropped", r.stream_dropped},
                {"torn", r.torn},           {"torn_at", r.torn_tail.offset},         {"torn_reason", r.torn_tail.reason},
                {"clean_close", r.clean_close}, {"binary", r.format == logio::LogFormat::binary}};
}

logio::ReadReport health_of(const json& j) {
    logio::ReadReport r;
    r.bad_records = j.at("bad_records").get<std::uint64_t>();
    r.dropped_samples = j.at("dropped_samples").get<std::uint64_t>();
    r.lost_samples = j.at("lost_samples").get<std::uint64_t>();
    r.stream_dropped = j.value("stream_dropped", std::uint64_t{0});  // absent from plans written before it was counted
    r.torn = j.at("torn").get<bool>();
    r.torn_tail.offset = j.at("torn_at").get<std::uint64_t>();
    r.torn_tail.reason = j.at("torn_reason").get<std::string>();
    r.clean_close = j.at("clean_close").get<bool>();
    r.format = j.at("binary").get<bool>() ? logio::LogFormat::binary : logio::LogFormat::csv;
    return r;
}

}  // namespace

std::vector<std::size_t> logs_in(const RunIndex& run, TimeRange range) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < run.logs.size(); ++i)
        if (run.logs[i].samples && run.logs[i].max_ns >= range.from_ns && run.logs[i].min_ns < range.to_ns) out.push_back(i);
    return out;
}

std::string to_json(const PlanFile& plan) {
    json logs = json::array();
    for (const auto& log : plan.run.logs)
        logs.push_back({{"path", log.path}, {"samples", log.samples}, {"min_ns", log.min_ns}, {"max_ns", log.max_ns}, {"health", health_json(log.report)}});
    json shards = json::array();
    for (const TimeRange& r : plan.shards) {
        const ShardWindow w{r.from_ns, r.to_ns, plan.run.first_ns, plan.run.last_ns, plan.margin_ns};
        const TimeRange read{w.read_from_ns(), w.read_to_ns(plan.tolerance_ns)};
        shards.push_back({{"from_ns", r.from_ns},
                          {"to_ns", r.to_ns},
                          {"read_from_ns", read.from_ns},
                          {"read_to_ns", read.to_ns},
                          {"samples", samples_in(plan.run, read)},
                          {"logs", logs_in(plan.run, read)}});
    }
    return json{{"hashtrace_shard_plan", kFormat},
                {"samples", plan.run.samples},
                {"first_ns", plan.run.first_ns},
                {"last_ns", plan.run.last_ns},
                {"margin_ns", plan.margin_ns},
                {"tolerance_ns", plan.tolerance_ns},
                {"logs", logs},
                {"shards", shards}}
        .dump(1);
}

PlanFile plan_from_json(const std::string& text) {
    try {
        const json j = json::parse(text);
        if (!j.is_object() || !j.contains("hashtrace_shard_plan")) throw std::invalid_argument("not a shard plan");
        if (j.at("hashtrace_shard_plan").get<int>() != kFormat)
            throw std::invalid_argument("a shard plan of format " + j.at("hashtrace_shard_plan").dump() + ", made by another hashtrace version");
        PlanFile plan;
        plan.run.samples = j.at("samples").get<std::uint64_t>();
        plan.run.first_ns = j.at("first_ns").get<std::int64_t>();
        plan.run.last_ns = j.at("last_ns").get<std::int64_t>();
        plan.margin_ns = j.at("margin_ns").get<std::int64_t>();
        plan.tolerance_ns = j.at("tolerance_ns").get<std::int64_t>();
        for (const auto& l : j.at("logs")) {
            logio::LogIndex log;
            log.path = l.at("path").get<std::string>();
            log.samples = l.at("samples").get<std::uint64_t>();
            log.min_ns = l.at("min_ns").get<std::int64_t>();
            log.max_ns = l.at("max_ns").get<std::int64_t>();
            log.report = health_of(l.at("health"));
            log.report.file = log.path;
            plan.run.logs.push_back(std::move(log));
        }
        for (const auto& s : j.at("shards")) plan.shards.push_back({s.at("from_ns").get<std::int64_t>(), s.at("to_ns").get<std::int64_t>()});
        return plan;
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("a malformed shard plan: ") + e.what());
    }
}

}  // namespace hashtrace::shard
