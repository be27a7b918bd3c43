// The test systems as real programs exchanging messages over UDP on
// loopback, traced with the SDK's TRACEPOINT macros: the pass-through router
// and three clients (passthrough_node.cpp), and the camera, the detector with
// two workers behind one queue, and the tracker (fan_out_node.cpp). From
// their logs alone, `infer` must write a spec that links what the
// hand-written one links and measures its intervals alike, and `analyze`
// without a spec must link as many edges as with the hand-written one (with
// --all-pairs, as many as every pair allowed makes).
#include "systems.hpp"

#include "hashtrace/infer/agreement.hpp"
#include "hashtrace/infer/infer.hpp"
#include "hashtrace/logio/reader.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace hashtrace::infer::testing {
namespace {

using hashtrace::test::run_command;
using hashtrace::test::shell_quote;

// The router, then three clients (A every 1 ms, B every 2 ms, C every 2.5 ms, 1.5 s each).
std::string passthrough_router_script() {
    const std::string node = shell_quote(PASSTHROUGH_NODE);
    return node + " router logs port 3 & r=$!; p=$(wait_port port); " + node + " client logs A 0 $p 1000 1500 & a=$!; " + node +
           " client logs B 1 $p 2000 750 & b=$!; " + node + " client logs C 2 $p 2500 600 & c=$!; wait $a && wait $b && wait $c && wait $r";
}

// The tracker, the detector (work 1.5-2 ms a frame), then the camera (a frame every 1 ms, 1.5 s).
std::string fan_out_script() {
    const std::string node = shell_quote(FAN_OUT_NODE);
    return node + " tracker logs tracker.port & t=$!; tp=$(wait_port tracker.port); " + node +
           " detector logs detector.port $tp 1500 & d=$!; dp=$(wait_port detector.port); " + node +
           " camera logs $dp 1000 1500 && wait $d && wait $t";
}

// One system run once for the tests of its suite, its logs in a temporary
// folder (`System` gives each suite a folder of its own).
template <int System>
class RealRun : public ::testing::Test {
protected:
    static void start(const std::string& script) {
        dir_ = new hashtrace::test::TempDir;
        const auto r = hashtrace::test::run_node_script(dir_->path(), script);
        ASSERT_EQ(r.status, 0) << r.out;
    }
    static void TearDownTestSuite() { delete dir_; }
    static std::string logs() { return (dir_->path() / "logs").string(); }
    static std::string path(const std::string& name) { return (dir_->path() / name).string(); }
    static inline hashtrace::test::TempDir* dir_ = nullptr;
};

class PassThroughRouter : public RealRun<0> {
protected:
    static void SetUpTestSuite() { start(passthrough_router_script()); }
};

class FanOutToTwoWorkers : public RealRun<1> {
protected:
    static void SetUpTestSuite() { start(fan_out_script()); }
};

graph::SampleSet load(const std::string& logs) { return graph::load_samples(logio::find_logs({logs})); }

// infer's spec (every interval along the routes) against the hand-written one.
Inference expect_inferred_spec_agrees(const graph::SampleSet& samples, const char* truth) {
    auto inferred = infer_structure(samples, graph::link(samples, graph::AnalysisSpec{}), {.all_intervals = true, .relink = {}});
    const auto r = compare_specs(samples, graph::parse_spec(truth, "hand.toml"), graph::parse_spec(inferred.spec_text, "inferred.toml"));
    EXPECT_GT(r.reference_links, 5'000u);
    EXPECT_GE(r.precision(), 0.999) << inferred.spec_text;
    EXPECT_GE(r.recall(), 0.999) << inferred.spec_text;
    for (const auto& i : r.intervals) {
        EXPECT_GT(i.reference_count, 0u) << i.name;
        EXPECT_TRUE(i.same()) << i.name << ": " << i.reference_count << " " << i.reference_mean_ms << " vs " << i.other_count << " "
                              << i.other_mean_ms;
    }
    return inferred;
}

// `analyze` without a spec links as many edges as with the hand-written one;
// with --all-pairs, as many as every pair allowed makes.
void expect_specless_analyze_links_as_the_truth(const std::string& logs, const char* truth, const std::string& dir) {
    std::ofstream(dir + "/hand.toml") << truth;
    const std::string cli = shell_quote(HASHTRACE_BIN) + " analyze " + shell_quote(logs) + " --quiet --json ";
    ASSERT_EQ(run_command(cli + shell_quote(dir + "/hand.json") + " --spec " + shell_quote(dir + "/hand.toml")).status, 0);
    const auto specless = run_command(cli + shell_quote(dir + "/specless.json") + " 2>&1");
    ASSERT_EQ(specless.status, 0) << specless.out;
    EXPECT_NE(specless.out.find("note: no --spec: linked as the spec `hashtrace infer` writes would"), std::string::npos) << specless.out;
    ASSERT_EQ(run_command(cli + shell_quote(dir + "/all.json") + " --all-pairs 2>/dev/null").status, 0);
    const auto read = [&](const char* name) { return nlohmann::json::parse(hashtrace::test::read_file(dir + "/" + name)); };
    const auto hand = read("hand.json"), inferred = read("specless.json"), all = read("all.json");
    EXPECT_EQ(inferred["edges"], hand["edges"]);
    EXPECT_EQ(inferred["message_edges"], hand["message_edges"]);
    const auto samples = load(logs);
    EXPECT_EQ(all["edges"].get<std::size_t>(), graph::link(samples, graph::AnalysisSpec{}).edges.size());
    EXPECT_GT(all["edges"].get<std::size_t>(), hand["edges"].get<std::size_t>());
}

TEST_F(PassThroughRouter, TheInferredSpecLinksAndMeasuresAsTheHandWrittenOne) {
    ASSERT_FALSE(HasFatalFailure());
    const auto samples = load(logs());
    ASSERT_EQ(samples.node_names.size(), 4u);
    const auto inferred = expect_inferred_spec_agrees(samples, kPassthroughRouterTruth);
    // Between clients, only through the router: no kept pair skips it.
    for (const auto& p : inferred.evidence.pairs) {
        if (p.verdict != Verdict::kept) continue;
        const auto& a = inferred.evidence.classes[p.from];
        const auto& b = inferred.evidence.classes[p.to];
        EXPECT_TRUE(a.node == b.node || a.node == "Router" || b.node == "Router")
            << "a shortcut past the router: " << a.selector() << " -> " << b.selector();
    }
}

TEST_F(PassThroughRouter, AnalyzeWithoutASpecLinksAsManyAsTheHandWrittenSpec) {
    ASSERT_FALSE(HasFatalFailure());
    expect_specless_analyze_links_as_the_truth(logs(), kPassthroughRouterTruth, path("."));
}

// The router forwards each message to both other clients, a send each. The
// clients' logs warped as clocks that far off would stamp them (`hashtrace
// convert`): A 25 ms ahead and 150 ppm fast, B 30 ms behind and 100 ppm slow
// stepping 2 ms ahead 0.7 s in, C 120 ppm fast alone (apart by less than a
// transit at first). Without a spec, `clock estimate` places every clock
// from the messages' journeys, the truth inside its bounds (a message
// forwarded twice is dated by its first forward: the second may come after
// the first client's receive); and `infer` writes from the warped logs the
// spec it writes from the true ones.
struct ClientWarp {
    const char* node;
    double offset_ms, drift_ppm, step_ms, step_at_s;
};
constexpr ClientWarp kClientWarps[] = {{"A", 25, 150, 0, 0}, {"B", -30, -100, 2, 0.7}, {"C", 0, 120, 0, 0}};

void warp_client_logs(const std::string& logs, const std::string& warped, std::map<std::string, long long>& t0) {
    std::filesystem::create_directories(warped);
    for (const auto& e : std::filesystem::directory_iterator(logs)) {
        const std::string name = e.path().filename().string(), node = name.substr(0, name.find('-'));
        const std::string out = (std::filesystem::path(warped) / name).string();
        const auto w = std::find_if(std::begin(kClientWarps), std::end(kClientWarps), [&](const ClientWarp& c) { return node == c.node; });
        if (w == std::end(kClientWarps)) {
            std::filesystem::copy_file(e.path(), out);
            continue;
        }
        std::string cmd = shell_quote(HASHTRACE_BIN) + " convert " + shell_quote(e.path().string()) + " " + shell_quote(out) +
                          " --warp-offset-ms " + std::to_string(w->offset_ms) + " --warp-drift-ppm " + std::to_string(w->drift_ppm);
        if (w->step_ms != 0) cmd += " --warp-step-ms " + std::to_string(w->step_ms) + " --warp-step-at-s " + std::to_string(w->step_at_s);
        const auto r = run_command(cmd + " 2>&1");
        ASSERT_EQ(r.status, 0) << r.out;
        t0[node] = std::stoll(r.out.substr(r.out.find("t0 = ") + 5));
    }
}

TEST_F(PassThroughRouter, FromWarpedLogsTheClocksArePlacedAndTheSpecIsTheTrueClocksOne) {
    ASSERT_FALSE(HasFatalFailure());
    std::map<std::string, long long> t0;
    warp_client_logs(logs(), path("warped"), t0);
    ASSERT_EQ(t0.size(), 3u);
    const auto r = run_command(shell_quote(HASHTRACE_BIN) + " clock estimate " + shell_quote(path("warped")) +
                               " --reference Router --quiet --json " + shell_quote(path("estimate.json")) + " 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto j = nlohmann::json::parse(hashtrace::test::read_file(path("estimate.json")));
    for (const auto& e : j["clock_estimates"]) {
        const auto w = std::find_if(std::begin(kClientWarps), std::end(kClientWarps), [&](const ClientWarp& c) { return e["node"] == c.node; });
        if (w == std::end(kClientWarps)) continue;
        ASSERT_FALSE(e["offset_ns"].is_null()) << r.out;
        ASSERT_EQ(e["pieces"].size(), w->step_ms != 0 ? 2u : 1u) << r.out;
        for (std::size_t p = 0; p < e["pieces"].size(); ++p) {
            const auto& piece = e["pieces"][p];
            const double from = piece["from_ns"].get<double>();
            const double truth = w->offset_ms * 1e6 + w->drift_ppm * 1e-6 * (from - static_cast<double>(t0.at(w->node))) + (p > 0 ? w->step_ms * 1e6 : 0);
            EXPECT_LE(piece["offset_lo_ns"].get<double>(), truth) << w->node << " piece " << p << "\n" << r.out;
            EXPECT_GE(piece["offset_hi_ns"].get<double>(), truth) << w->node << " piece " << p << "\n" << r.out;
        }
        // 1.5 s of messages whose bounds are ~15 us wide pin a rate to ~10 ppm
        // (the combined system's 4 s, to 2).
        EXPECT_NEAR(e["drift_ppm"].get<double>(), w->drift_ppm, 10.0) << r.out;
    }
    // The rules of the spec, not its comments (their medians come from each run's times).
    const auto infer = [&](const std::string& dir, const std::string& out) {
        const auto i = run_command(shell_quote(HASHTRACE_BIN) + " infer " + shell_quote(dir) + " --all-intervals --quiet --force -o " +
                                   shell_quote(path(out)) + " 2>&1");
        EXPECT_EQ(i.status, 0) << i.out;
        const auto spec = graph::parse_spec(hashtrace::test::read_file(path(out)), out);
        std::vector<std::string> rules;
        for (const auto& p : spec.pairs) rules.push_back(p.from.text() + " -> " + p.to.text() + " " + std::string(graph::to_string(p.scope)));
        for (const auto& i : spec.intervals)
            rules.push_back(i.name + ": " + i.from.text() + " -> " + i.to.text() + " " + std::string(graph::to_string(i.kind)));
        return rules;
    };
    const auto from_true_clocks = infer(logs(), "true.toml");
    EXPECT_GT(from_true_clocks.size(), 20u);
    EXPECT_EQ(infer(path("warped"), "warped.toml"), from_true_clocks);
}

TEST_F(FanOutToTwoWorkers, BothWorkersAndTheirQueueWaitsAreIntervals) {
    ASSERT_FALSE(HasFatalFailure());
    const auto samples = load(logs());
    ASSERT_EQ(samples.node_names.size(), 3u);
    const auto inferred = expect_inferred_spec_agrees(samples, kFanOutTruth);
    // The queue fans out to the two workers, whose results the sender joins.
    auto selectors = [&](const std::vector<ClassId>& ids) {
        std::vector<std::string> out;
        for (const auto c : ids) out.push_back(inferred.evidence.classes[c].selector());
        return out;
    };
    EXPECT_EQ(selectors(inferred.chains.fan_out), std::vector<std::string>{"Detector/FrameQueued"});
    EXPECT_EQ(selectors(inferred.chains.fan_in), std::vector<std::string>{"Detector/ResultSent"});
}

TEST_F(FanOutToTwoWorkers, AnalyzeWithoutASpecLinksAsManyAsTheHandWrittenSpec) {
    ASSERT_FALSE(HasFatalFailure());
    expect_specless_analyze_links_as_the_truth(logs(), kFanOutTruth, path("."));
}

}  // namespace
}  // namespace hashtrace::infer::testing
