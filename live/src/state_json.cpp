// Collector::state: GET /api/state's document (docs/live.md says what each number
// means), its keys in the order written.
#include "hashtrace/live/collector.hpp"

#include "connection.hpp"

#include <filesystem>
#include <fstream>

namespace hashtrace::live {
namespace {

using json = nlohmann::ordered_json;

double window_seconds(const shard::ShardSummary& s) { return s.own_to_ns > s.own_from_ns ? double(s.own_to_ns - s.own_from_ns) / 1e9 : 0; }

void percentiles(json& out, const shard::Distribution* d) {
    const metrics::Summary s = d ? d->summary_ms() : metrics::Summary{};
    out["p50_ms"] = s.p50;
    out["p95_ms"] = s.p95;
    out["p99_ms"] = s.p99;
}

// Since the collector started: the merged summaries of every settled part,
// as `analyze` of the saved logs summarises the whole run.
json since_start(const shard::Distribution& d) {
    const metrics::Summary s = d.summary_ms();
    return {{"mean_ms", s.mean}, {"p50_ms", s.p50}, {"p95_ms", s.p95}, {"p99_ms", s.p99}};
}

}  // namespace

json Collector::nodes_json() const {
    std::map<std::pair<std::string, std::string>, NodeTotals> nodes;
    for (const auto& [id, c] : connections_) {
        if (!c->accepted) continue;
        NodeTotals& n = nodes[{c->node, c->instance}];
        ++n.connections;
        n.connected = n.connected || c->open;
        if (const auto found = shed_.find(id); found != shed_.end()) n.shed += found->second;
        if (const auto found = losses_.find(id); found != losses_.end()) {
            n.dropped += found->second.first;
            n.stream_dropped += found->second.second;
        }
    }
    json out = json::array();
    for (const auto& [key, n] : nodes) {
        shard::InstanceCounts counts;
        if (total_)
            if (const auto found = total_->instances.find(key); found != total_->instances.end()) counts = found->second;
        const auto offset = offsets_.find(key);
        out.push_back({{"node", key.first}, {"instance", key.second}, {"samples", counts.samples}, {"dropped", n.dropped},
                       {"stream_dropped", n.stream_dropped}, {"shed", n.shed}, {"unlinked_inputs", counts.unlinked_inputs},
                       {"offset_ns", offset == offsets_.end() ? json(nullptr) : json(offset->second)},
                       {"connected", n.connected}, {"connections", n.connections}});
    }
    return out;
}

json Collector::links_json() const {
    json out = json::array();
    if (!total_) return out;
    for (const auto& [ends, link] : total_->links) {
        const shard::LinkSummary* recent = nullptr;
        if (recent_merged_)
            if (const auto found = recent_merged_->links.find(ends); found != recent_merged_->links.end()) recent = &found->second;
        const double seconds = recent_merged_ ? window_seconds(*recent_merged_) : 0;
        json l = {{"from", ends.first}, {"to", ends.second}, {"count", link.latency.count},
                  {"rate", recent && seconds > 0 ? double(recent->latency.count) / seconds : 0.0}};
        percentiles(l, recent ? &recent->latency : nullptr);
        l["since_start"] = since_start(link.latency);
        out.push_back(std::move(l));
    }
    return out;
}

namespace {
// The segment that contributes most to the interval's critical paths over
// the window (critical_path's tables list them by mean contribution); null
// before any instance was walked.
json top_segment(const std::vector<critical_path::IntervalCriticalPath>& tables, const std::string& interval) {
    for (const auto& t : tables) {
        if (t.name != interval || t.segments.empty()) continue;
        const critical_path::SegmentSummary& s = t.segments.front();
        return {{"from", s.from}, {"to", s.to}, {"kind", std::string(critical_path::to_string(s.kind))}, {"mean_ms", s.mean_ms}, {"share", s.share}};
    }
    return nullptr;
}
}  // namespace

json Collector::intervals_json() const {
    json out = json::array();
    if (!total_) return out;
    for (std::size_t k = 0; k < total_->intervals.size(); ++k) {
        const shard::IntervalSummary& i = total_->intervals[k];
        json j = {{"name", i.name}, {"from", i.from}, {"to", i.to}, {"count", i.latency.count}};
        percentiles(j, recent_merged_ && k < recent_merged_->intervals.size() ? &recent_merged_->intervals[k].latency : nullptr);
        j["critical_segment"] = top_segment(recent_path_tables_, i.name);
        j["since_start"] = since_start(i.latency);
        out.push_back(std::move(j));
    }
    return out;
}

json Collector::state() const {
    std::lock_guard lock(mutex_);
    json out;
    out["time_ns"] = window_.newest_ns() == INT64_MIN ? 0 : window_.newest_ns();
    out["settled_ns"] = settled_ns_ == INT64_MIN ? 0 : settled_ns_;
    out["window_s"] = recent_merged_ ? window_seconds(*recent_merged_) : 0.0;
    out["nodes"] = nodes_json();
    out["links"] = links_json();
    out["intervals"] = intervals_json();
    out["late_samples"] = late_samples_;
    out["refused"] = refused_;
    out["shed_samples"] = shed_total_;
    out["shedding"] = shedding_;
    out["margin_held"] = !total_ || total_->margin.held();
    out["messages"] = json(std::vector<std::string>(messages_.begin(), messages_.end()));
    return out;
}

std::vector<std::filesystem::path> Collector::save_recent(const std::filesystem::path& dir, double seconds) const {
    std::lock_guard lock(mutex_);
    std::filesystem::create_directories(dir);
    const auto from = window_.newest_ns() - static_cast<std::int64_t>(seconds * 1e9);
    std::vector<std::filesystem::path> written;
    for (const auto& [name, bytes] : window_.logs(from)) {
        std::filesystem::path file = dir / (name + ".htlog");
        std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        written.push_back(std::move(file));
    }
    return written;
}

}  // namespace hashtrace::live
