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

#include <fstream>

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
