// The long-run generator against the analysis: a run's truth (edges, message
// edges, leftovers, interval counts, and per link its edges, its longest and
// its near- and beyond-margin waits) is what loading, linking and measuring
// the logs it wrote with the spec it wrote gives; a seed gives the same bytes
// every time, another seed other bytes; options out of range are refused.
#include "hashtrace/datagen/long_run.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/graph/spec.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/metrics/analysis.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <tuple>

namespace hashtrace::datagen {
namespace {

namespace fs = std::filesystem;

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("hashtrace-datagen-" + std::to_string(::getpid()) + "-" + name)) {
        fs::remove_all(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// What the analysis makes of a run's directory, as `hashtrace analyze` does it.
struct Analysed {
    graph::AnalysisSpec spec;
    graph::SampleSet samples;
    graph::Graph graph;
    metrics::AnalysisResult result;
};

Analysed analyse(const fs::path& dir) {
    Analysed a;
    a.spec = graph::load_spec(dir / "spec.toml");
    a.samples = graph::load_samples(logio::find_logs({dir}));
    a.graph = graph::link(a.samples, a.spec);
    a.result = metrics::analyze(a.samples, a.graph, a.spec);
    return a;
}

// Per "from -> to" of the graph: its edges, the longest, and the edges
// with a length in [near_from, near_to) and beyond `beyond`.
struct LinkCount {
    std::uint64_t edges = 0, near = 0, beyond = 0;
    std::int64_t longest_ns = 0;
};

std::map<std::string, LinkCount> count_links(const Analysed& a, std::int64_t near_from, std::int64_t near_to, std::int64_t beyond) {
    std::map<std::string, LinkCount> links;
    for (const auto& e : a.graph.edges) {
        const std::int64_t length = a.samples.time_ns[e.to] - a.samples.time_ns[e.from];
        LinkCount& c = links[a.samples.label(e.from) + " -> " + a.samples.label(e.to)];
        ++c.edges;
        c.longest_ns = std::max(c.longest_ns, length);
        c.near += length >= near_from && length < near_to;
        c.beyond += length > beyond;
    }
    return links;
}

// The injections the graph holds: its edges longer than `beyond`, in time order.
std::vector<std::tuple<std::string, std::string, std::int64_t, std::int64_t>> long_edges(const Analysed& a, std::int64_t beyond) {
    std::vector<std::tuple<std::string, std::string, std::int64_t, std::int64_t>> found;
    for (const auto& e : a.graph.edges) {
        const std::int64_t length = a.samples.time_ns[e.to] - a.samples.time_ns[e.from];
        if (length > beyond) found.emplace_back(a.samples.label(e.from), a.samples.label(e.to), a.samples.time_ns[e.from], length);
    }
    std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return std::get<2>(x) < std::get<2>(y); });
    return found;
}

void expect_truth_is_the_analysis(const fs::path& dir, const LongRunTruth& truth) {
    const Analysed a = analyse(dir);
    const auto& r = a.result;
    EXPECT_EQ(r.samples, truth.samples);
    EXPECT_EQ(r.edges, truth.edges);
    EXPECT_EQ(r.message_edges, truth.message_edges);
    EXPECT_EQ(r.local_edges, truth.local_edges);
    EXPECT_EQ(r.unlinked_inputs, truth.unlinked_inputs);
    EXPECT_EQ(r.unconsumed_outputs, truth.unconsumed_outputs);
    EXPECT_EQ(r.first_time_ns, truth.first_time_ns);
    EXPECT_EQ(r.last_time_ns, truth.last_time_ns);
    EXPECT_EQ(r.files, truth.nodes.size());
    ASSERT_EQ(r.intervals.size(), truth.intervals.size());
    for (std::size_t i = 0; i < r.intervals.size(); ++i) {
        EXPECT_EQ(r.intervals[i].name, truth.intervals[i].name);
        EXPECT_EQ(r.intervals[i].latency_ms.count, truth.intervals[i].count) << truth.intervals[i].name;
    }

    const auto& o = truth.options;
    const std::int64_t near_ns = std::llround(o.near_margin_ms * 1e6), beyond_ns = std::llround(o.beyond_margin_ms * 1e6);
    const auto links = count_links(a, near_ns ? near_ns * 98 / 100 - 1 : 0, near_ns, beyond_ns ? beyond_ns : INT64_MAX);
    EXPECT_EQ(links.size(), truth.links.size());
    for (const auto& l : truth.links) {
        const auto it = links.find(l.from + " -> " + l.to);
        ASSERT_NE(it, links.end()) << l.from << " -> " << l.to;
        EXPECT_EQ(it->second.edges, l.edges) << l.from << " -> " << l.to;
        EXPECT_EQ(it->second.longest_ns, l.longest_ns) << l.from << " -> " << l.to;
        EXPECT_EQ(it->second.beyond, l.beyond_margin) << l.from << " -> " << l.to;
        if (near_ns) {
            EXPECT_EQ(it->second.near, l.near_margin) << l.from << " -> " << l.to;
        }
    }
}

LongRunOptions small_run() {
    LongRunOptions o;
    o.samples = 60'000;
    o.seed = 7;
    return o;
}

TEST(LongRunGenerator, TruthIsWhatTheAnalysisFinds) {
    TempDir dir("truth");
    const LongRunTruth truth = write_long_run(dir.path, small_run());
    EXPECT_GE(truth.samples, 60'000u);
    EXPECT_LT(truth.samples, 60'000u + 19);  // whole messages of 19 samples
    EXPECT_EQ(truth.nodes.size(), 10u);
    EXPECT_EQ(read_file(dir.path / "truth.json"), truth.json());
    // The file says what the struct holds, its keys in the order written.
    const auto json = nlohmann::ordered_json::parse(truth.json());
    EXPECT_EQ(json.begin().key(), "samples");
    EXPECT_EQ(json["samples"], truth.samples);
    EXPECT_EQ(json["message_edges"], truth.message_edges);
    ASSERT_EQ(json["nodes"].size(), truth.nodes.size());
    EXPECT_EQ(json["nodes"][0]["node"], truth.nodes[0].name);
    EXPECT_EQ(json["nodes"][0]["clock_offset_ns"], truth.nodes[0].clock_offset_ns);
    ASSERT_EQ(json["intervals"].size(), truth.intervals.size());
    EXPECT_EQ(json["intervals"][0]["count"], truth.intervals[0].count);
    EXPECT_EQ(json["links"][0]["longest_ms"], static_cast<double>(truth.links[0].longest_ns) / 1e6);
    EXPECT_EQ(json["beyond_margin"]["injected"].size(), truth.beyond_margin.size());
    EXPECT_EQ(json["options"]["seed"], 7u);
    EXPECT_EQ(read_file(dir.path / "spec.toml"), long_run_spec(small_run()));
    expect_truth_is_the_analysis(dir.path, truth);
}

// Message ids and loop counters come back several times in a run this long,
// with clocks a few ms apart: every link still finds its true producer.
TEST(LongRunGenerator, ReusedHashesAndClockOffsetsLinkAsTheTruthSays) {
    TempDir dir("reuse");
    LongRunOptions o;
    o.nodes = 5;
    o.samples = 400'000;
    o.max_clock_offset_ms = 3;
    const LongRunTruth truth = write_long_run(dir.path, o);
    EXPECT_GT(truth.messages, 2 * truth.message_id_period);
    EXPECT_GT(truth.messages, 100 * truth.loop_counter_period);
    std::int64_t lowest = 0, highest = 0;
    for (const auto& n : truth.nodes) lowest = std::min(lowest, n.clock_offset_ns), highest = std::max(highest, n.clock_offset_ns);
    EXPECT_GT(highest - lowest, 2'000'000);  // the clocks do disagree by ms
    expect_truth_is_the_analysis(dir.path, truth);
}

TEST(LongRunGenerator, NearAndBeyondMarginWaitsAreWhereTheTruthSays) {
    TempDir dir("margins");
    LongRunOptions o = small_run();
    o.near_margin_ms = 50;  // above every ordinary edge, so the near ones are told apart
    o.near_margin_fraction = 0.02;
    o.beyond_margin_count = 5;
    o.beyond_margin_ms = 80;
    const LongRunTruth truth = write_long_run(dir.path, o);
    ASSERT_EQ(truth.beyond_margin.size(), 5u);
    std::uint64_t near = 0;
    for (const auto& l : truth.links) near += l.near_margin;
    EXPECT_GT(near, 20u);
    EXPECT_LT(truth.longest_ordinary_edge_ns, 80'000'000);
    expect_truth_is_the_analysis(dir.path, truth);

    const auto found = long_edges(analyse(dir.path), 80'000'000);
    ASSERT_EQ(found.size(), truth.beyond_margin.size());
    for (std::size_t i = 0; i < found.size(); ++i) {
        const Injection& in = truth.beyond_margin[i];
        EXPECT_EQ(found[i], std::make_tuple(in.from, in.to, in.sent_ns, in.latency_ns));
        EXPECT_GT(in.latency_ns, 80'000'000);
    }
}

TEST(LongRunGenerator, ARunGivenInSecondsLastsThatLong) {
    TempDir dir("seconds");
    LongRunOptions o;
    o.seconds = 0.4;
    o.rate_per_s = 100'000;
    o.bursts = false;
    const LongRunTruth truth = write_long_run(dir.path, o);
    const double window_s = static_cast<double>(truth.last_time_ns - truth.first_time_ns) / 1e9;
    EXPECT_GT(window_s, 0.4);
    EXPECT_LT(window_s, 0.45);
    EXPECT_EQ(truth.samples, truth.messages * 19);
    EXPECT_NEAR(static_cast<double>(truth.samples), 40'000, 2'000);  // the rate, without bursts
    expect_truth_is_the_analysis(dir.path, truth);
}

std::map<std::string, std::string> directory_bytes(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::directory_iterator(dir)) files[entry.path().filename().string()] = read_file(entry.path());
    return files;
}

TEST(LongRunGenerator, ASeedGivesTheSameBytesAndAnotherSeedOthers) {
    TempDir a("seed-a"), b("seed-b"), c("seed-c");
    LongRunOptions o = small_run();
    o.near_margin_ms = 50;
    o.beyond_margin_count = 2;
    o.beyond_margin_ms = 80;
    write_long_run(a.path, o);
    write_long_run(b.path, o);
    o.seed = 8;
    write_long_run(c.path, o);
    const auto first = directory_bytes(a.path), again = directory_bytes(b.path), other = directory_bytes(c.path);
    EXPECT_EQ(first.size(), 12u);  // ten logs, the spec, the truth
    EXPECT_TRUE(first == again);
    ASSERT_EQ(other.size(), first.size());
    for (const auto& [name, bytes] : first) {
        if (name == "spec.toml") continue;  // the same system whatever the seed
        EXPECT_NE(other.at(name), bytes) << name;
    }
}

TEST(LongRunGenerator, WritingAgainIntoItsOwnDirectoryReplacesTheRun) {
    TempDir dir("again");
    write_long_run(dir.path, small_run());
    const auto first = directory_bytes(dir.path);
    write_long_run(dir.path, small_run());
    EXPECT_TRUE(directory_bytes(dir.path) == first);
}

TEST(LongRunGenerator, RefusesOptionsItCannotKeepItsPromiseFor) {
    TempDir dir("refused");
    auto refused = [&](LongRunOptions o) { EXPECT_THROW(write_long_run(dir.path, o), std::invalid_argument); };
    LongRunOptions o = small_run();
    o.nodes = 4;
    refused(o);
    o = small_run();
    o.beyond_margin_count = 3;  // without a margin
    refused(o);
    o.beyond_margin_ms = 20;  // shorter than an ordinary edge may be
    refused(o);
    o.beyond_margin_ms = 80;
    o.near_margin_ms = 90;  // a near-margin wait would be beyond the margin
    refused(o);
    o = small_run();
    o.near_margin_ms = 0.5;  // shorter than the clocks' disagreement
    refused(o);
    o = small_run();
    o.beyond_margin_count = 10'000;  // more than one message in two
    o.beyond_margin_ms = 80;
    refused(o);
    o = small_run();
    o.rate_per_s = 0;
    refused(o);
    EXPECT_FALSE(fs::exists(dir.path));  // refused before anything was written

    // A log of another run would be analysed with this one.
    fs::create_directories(dir.path);
    std::ofstream(dir.path / "other.htlog") << "x";
    refused(small_run());
}

}  // namespace
}  // namespace hashtrace::datagen
