// A shard summary as JSON: what a shard summarised in another process (or
// on another machine) hands to the merge. 128-bit sums are decimal strings
// (JSON numbers are doubles to most readers); histograms are runs of their
// buckets (a start key and the counts from it), most of a summary's bytes.
#include "hashtrace/shard/summary.hpp"

#include <nlohmann/json.hpp>

#include <limits>
#include <stdexcept>

namespace hashtrace::shard {
namespace {

using json = nlohmann::ordered_json;

constexpr int kFormat = 3;  // bumped whenever a reader of the old layout would misread the new

std::string text_of(unsigned __int128 v) {
    std::string out;
    do {
        out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    } while (v != 0);
    return out;
}
std::string text_of(__int128 v) { return v < 0 ? "-" + text_of(static_cast<unsigned __int128>(-v)) : text_of(static_cast<unsigned __int128>(v)); }

unsigned __int128 unsigned_of(const json& j, const char* key) {
    const std::string text = j.at(key).get<std::string>();
    if (text.empty() || text.size() > 39) throw std::invalid_argument(std::string("bad number in \"") + key + "\"");
    unsigned __int128 v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') throw std::invalid_argument(std::string("bad number in \"") + key + "\": " + text);
        v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return v;
}
__int128 signed_of(const json& j, const char* key) {
    const std::string text = j.at(key).get<std::string>();
    if (!text.empty() && text[0] == '-') return -static_cast<__int128>(unsigned_of(json{{key, text.substr(1)}}, key));
    return static_cast<__int128>(unsigned_of(j, key));
}

// A run goes on over up to this many empty buckets (a zero costs 2 bytes,
// a new run about 12): the non-empty buckets of a latency mostly lie side
// by side, so a run holds about 3 bytes a bucket where [key, count] took 12.
constexpr std::int64_t kZerosInARun = 5;

json histogram_json(const LogHistogram& h) {
    json runs = json::array();
    std::int64_t next = 0;  // the key after the last run's last count
    for (const auto& [key, n] : h.buckets()) {
        if (runs.empty() || key - next > kZerosInARun) runs.push_back({key, json::array()});
        json& counts = runs.back()[1];
        for (; next < key && !counts.empty(); ++next) counts.push_back(0);
        counts.push_back(n);
        next = key + 1;
    }
    return json{{"sub_bucket_bits", h.sub_bucket_bits()}, {"runs", runs}};
}

LogHistogram histogram_of(const json& j) {
    std::vector<std::pair<std::int64_t, std::uint64_t>> buckets;
    for (const json& run : j.at("runs")) {
        std::int64_t key = run.at(0).get<std::int64_t>();
        for (const json& n : run.at(1)) {
            if (const auto count = n.get<std::uint64_t>()) buckets.emplace_back(key, count);
            if (key == std::numeric_limits<std::int64_t>::max()) throw std::invalid_argument("a histogram run runs past the last bucket");
            ++key;
        }
    }
    return LogHistogram::from_buckets(j.at("sub_bucket_bits").get<unsigned>(), buckets);
}

json unlinked_json(const std::map<std::string, LogHistogram>& by_tracepoint) {
    json out = json::object();
    for (const auto& [tracepoint, h] : by_tracepoint) out[tracepoint] = histogram_json(h);
    return out;
}

json distribution_json(const Distribution& d) {
    return json{{"count", d.count},
                {"sum", text_of(d.sum)},
                {"sum_sq", text_of(d.sum_sq)},
                {"min", d.min},
                {"max", d.max},
                {"first", d.first},
                {"last", d.last},
                {"diff_sum", text_of(d.diff_sum)},
                {"diff_sum_sq", text_of(d.diff_sum_sq)},
                {"histogram", histogram_json(d.histogram)}};
}

Distribution distribution_of(const json& j) {
    Distribution d;
    d.count = j.at("count").get<std::uint64_t>();
    d.sum = signed_of(j, "sum");
    d.sum_sq = unsigned_of(j, "sum_sq");
    d.min = j.at("min").get<std::int64_t>();
    d.max = j.at("max").get<std::int64_t>();
    d.first = j.at("first").get<std::int64_t>();
    d.last = j.at("last").get<std::int64_t>();
    d.diff_sum = signed_of(j, "diff_sum");
    d.diff_sum_sq = unsigned_of(j, "diff_sum_sq");
    d.histogram = histogram_of(j.at("histogram"));
    if (d.histogram.count() != d.count) throw std::invalid_argument("a distribution's histogram does not hold its count");
    return d;
}

json bins_json(const BinnedValues& bins) {
    json out = json::array();
    for (const auto& [bin, b] : bins) out.push_back({{"bin", bin}, {"count", b.count}, {"min", b.min}, {"max", b.max}, {"histogram", histogram_json(b.histogram)}});
    return out;
}

BinnedValues bins_of(const json& j) {
    BinnedValues out;
    for (const auto& b : j) {
        BinStats& stats = out[b.at("bin").get<std::uint32_t>()];
        stats.count = b.at("count").get<std::uint64_t>();
        stats.min = b.at("min").get<std::int64_t>();
        stats.max = b.at("max").get<std::int64_t>();
        stats.histogram = histogram_of(b.at("histogram"));
        if (stats.histogram.count() != stats.count) throw std::invalid_argument("a time bin's histogram does not hold its count");
    }
    return out;
}

json links_json(const std::map<std::pair<std::string, std::string>, LinkSummary>& links) {
    json out = json::array();
    for (const auto& [key, link] : links)
        out.push_back({{"from", key.first}, {"to", key.second}, {"latency", distribution_json(link.latency)}, {"per_bin", link.per_bin}});
    return out;
}

json instances_json(const std::map<std::pair<std::string, std::string>, InstanceCounts>& instances) {
    json out = json::array();
    for (const auto& [key, c] : instances)
        out.push_back({{"node", key.first}, {"instance", key.second}, {"samples", c.samples}, {"unlinked_inputs", c.unlinked_inputs}});
    return out;
}

}  // namespace

std::string to_json(const ShardSummary& s) {
    json intervals = json::array();
    for (const auto& i : s.intervals)
        intervals.push_back({{"name", i.name},
                             {"from", i.from},
                             {"to", i.to},
                             {"kind", i.kind == graph::IntervalKind::process ? "process" : "end_to_end"},
                             {"latency", distribution_json(i.latency)},
                             {"over_time", bins_json(i.over_time)}});
    json matrix = json::array();
    for (const auto& [key, c] : s.matrix) matrix.push_back({{"from", key.first}, {"to", key.second}, {"count", c.count}, {"sum_ns", text_of(c.sum_ns)}, {"max_ns", c.max_ns}});
    return json{{"hashtrace_shard_summary", kFormat},
                {"shards", s.shards},
                {"own_from_ns", s.own_from_ns},
                {"own_to_ns", s.own_to_ns},
                {"samples", s.samples},
                {"edges", s.edges},
                {"message_edges", s.message_edges},
                {"local_edges", s.local_edges},
                {"unlinked_inputs", s.unlinked_inputs},
                {"unconsumed_outputs", s.unconsumed_outputs},
                {"link_digest", s.link_digest},
                {"first_time_ns", s.first_time_ns},
                {"last_time_ns", s.last_time_ns},
                {"local_ns", text_of(s.local_ns)},
                {"message_ns", text_of(s.message_ns)},
                {"in_flight_ns", text_of(s.in_flight_ns)},
                {"in_flight_sq_ns", text_of(s.in_flight_sq_ns)},
                {"in_flight_max", s.in_flight_max},
                {"intervals", intervals},
                {"m11", distribution_json(s.m11)},
                {"matrix", matrix},
                {"bins", {{"origin_ns", s.bins.origin_ns}, {"width_ns", s.bins.width_ns}, {"count", s.bins.count}}},
                {"links", links_json(s.links)},
                {"nodes", s.nodes},
                {"instances", instances_json(s.instances)},
                {"margin",
                 {{"margin_ns", s.margin.margin_ns},
                  {"longest_link_ns", s.margin.longest_link_ns},
                  {"longest_interval_ns", s.margin.longest_interval_ns},
                  {"longest_link_into", s.margin.longest_link_into},
                  {"unlinked_since_window", unlinked_json(s.margin.unlinked_since_window)}}}}
        .dump();
}

ShardSummary from_json(const std::string& text) {
    try {
        const json j = json::parse(text);
        if (!j.is_object() || !j.contains("hashtrace_shard_summary")) throw std::invalid_argument("not a shard summary");
        if (j.at("hashtrace_shard_summary").get<int>() != kFormat)
            throw std::invalid_argument("a shard summary of format " + j.at("hashtrace_shard_summary").dump() + " (this hashtrace reads " +
                                        std::to_string(kFormat) + ": the workers run another version)");
        ShardSummary s;
        s.shards = j.at("shards").get<std::uint64_t>();
        s.own_from_ns = j.at("own_from_ns").get<std::int64_t>();
        s.own_to_ns = j.at("own_to_ns").get<std::int64_t>();
        s.samples = j.at("samples").get<std::uint64_t>();
        s.edges = j.at("edges").get<std::uint64_t>();
        s.message_edges = j.at("message_edges").get<std::uint64_t>();
        s.local_edges = j.at("local_edges").get<std::uint64_t>();
        s.unlinked_inputs = j.at("unlinked_inputs").get<std::uint64_t>();
        s.unconsumed_outputs = j.at("unconsumed_outputs").get<std::uint64_t>();
        s.link_digest = j.at("link_digest").get<std::uint64_t>();
        s.first_time_ns = j.at("first_time_ns").get<std::int64_t>();
        s.last_time_ns = j.at("last_time_ns").get<std::int64_t>();
        s.local_ns = signed_of(j, "local_ns");
        s.message_ns = signed_of(j, "message_ns");
        s.in_flight_ns = unsigned_of(j, "in_flight_ns");
        s.in_flight_sq_ns = unsigned_of(j, "in_flight_sq_ns");
        s.in_flight_max = j.at("in_flight_max").get<std::uint64_t>();
        for (const auto& i : j.at("intervals")) {
            const std::string kind = i.at("kind").get<std::string>();
            if (kind != "process" && kind != "end_to_end") throw std::invalid_argument("an interval of kind \"" + kind + "\"");
            s.intervals.push_back({i.at("name").get<std::string>(), i.at("from").get<std::string>(), i.at("to").get<std::string>(),
                                   kind == "process" ? graph::IntervalKind::process : graph::IntervalKind::end_to_end,
                                   distribution_of(i.at("latency")), bins_of(i.at("over_time"))});
        }
        s.m11 = distribution_of(j.at("m11"));
        for (const auto& c : j.at("matrix"))
            s.matrix[{c.at("from").get<std::string>(), c.at("to").get<std::string>()}] = {c.at("count").get<std::uint64_t>(),
                                                                                          signed_of(c, "sum_ns"), c.at("max_ns").get<std::int64_t>()};
        const json& bins = j.at("bins");
        s.bins = {bins.at("origin_ns").get<std::int64_t>(), bins.at("width_ns").get<std::int64_t>(), bins.at("count").get<std::uint32_t>()};
        for (const auto& l : j.at("links")) {
            LinkSummary& link = s.links[{l.at("from").get<std::string>(), l.at("to").get<std::string>()}];
            link.latency = distribution_of(l.at("latency"));
            link.per_bin = l.at("per_bin").get<std::map<std::uint32_t, std::uint64_t>>();
        }
        s.nodes = j.at("nodes").get<std::set<std::string>>();
        for (const auto& i : j.at("instances"))
            s.instances[{i.at("node").get<std::string>(), i.at("instance").get<std::string>()}] = {i.at("samples").get<std::uint64_t>(),
                                                                                                 i.at("unlinked_inputs").get<std::uint64_t>()};
        const json& m = j.at("margin");
        s.margin.margin_ns = m.at("margin_ns").get<std::int64_t>();
        s.margin.longest_link_ns = m.at("longest_link_ns").get<std::int64_t>();
        s.margin.longest_interval_ns = m.at("longest_interval_ns").get<std::int64_t>();
        s.margin.longest_link_into = m.at("longest_link_into").get<std::map<std::string, std::int64_t>>();
        for (const auto& [tracepoint, h] : m.at("unlinked_since_window").items()) s.margin.unlinked_since_window.emplace(tracepoint, histogram_of(h));
        return s;
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("a malformed shard summary: ") + e.what());
    }
}

}  // namespace hashtrace::shard
