// End to end: `hashtrace infer` and the spec-less `analyze` (linked as the
// inferred spec would, or with --all-pairs every pair), on logs in a temporary directory.
#include "systems.hpp"

#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace hashtrace::infer::testing {
namespace {

namespace fs = std::filesystem;

// The CLI with `arguments`: its exit status, stdout and stderr together.
hashtrace::test::CommandResult run(const std::string& arguments) {
    return hashtrace::test::run_command(std::string(HASHTRACE_BIN) + " " + arguments + " 2>&1");
}

using hashtrace::test::read_file;

class InferCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("hashtrace-infer-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir / "logs");
    }
    void TearDown() override { fs::remove_all(dir); }
    void write_logs(const SystemLogs& logs, const std::string& sub = "logs") {
        fs::create_directories(dir / sub);
        for (const auto& [name, text] : logs.files()) std::ofstream(dir / sub / name) << text;
    }
    std::string path(const std::string& name) const { return (dir / name).string(); }
    fs::path dir;
};

TEST_F(InferCli, WritesASpecThatAnalyzeReadsAndNeverOverwritesWithoutForce) {
    write_logs(overlapping_ids_and_reused_counter());
    const auto first = run("infer " + path("logs") + " -o " + path("spec.toml") + " --json " + path("infer.json"));
    ASSERT_EQ(first.status, 0) << first.out;
    EXPECT_NE(first.out.find("Camera/FrameCaptured -> Display/FrameShown  [any]"), std::string::npos) << first.out;
    EXPECT_NE(first.out.find("hash labels differ"), std::string::npos);
    const auto spec = graph::load_spec(path("spec.toml"));
    EXPECT_EQ(spec.pairs.size(), 3u);
    const auto j = nlohmann::json::parse(read_file(path("infer.json")));
    EXPECT_GT(j["links_a_spec_removes"].get<long>(), 700);

    std::ofstream(path("spec.toml"), std::ios::app) << "# my edit\n";
    const auto again = run("infer " + path("logs") + " -o " + path("spec.toml"));
    EXPECT_EQ(again.status, 2);
    EXPECT_NE(again.out.find("spec.toml exists: give --force"), std::string::npos) << again.out;
    EXPECT_NE(read_file(path("spec.toml")).find("# my edit"), std::string::npos);
    const auto forced = run("infer " + path("logs") + " -o " + path("spec.toml") + " --force");
    EXPECT_EQ(forced.status, 0) << forced.out;
    EXPECT_EQ(read_file(path("spec.toml")).find("# my edit"), std::string::npos);

    // analyze with it: the intervals name what they measure.
    const auto analyzed = run("analyze " + path("logs") + " --spec " + path("spec.toml") + " --json " + path("a.json"));
    ASSERT_EQ(analyzed.status, 0) << analyzed.out;
    const auto a = nlohmann::json::parse(read_file(path("a.json")));
    ASSERT_FALSE(a["intervals"].empty());
    bool found = false;
    for (const auto& i : a["intervals"])
        found = found || (i["from"] == "Worker/Tick" && i["to"] == "Worker/Work" && i["count"] == 800);
    EXPECT_TRUE(found) << a["intervals"].dump();
    EXPECT_EQ(analyzed.out.find("note: no --spec"), std::string::npos);
}

// The links the samples make under `spec` (every pair allowed when it is empty).
std::size_t links_under(const SystemLogs& logs, const char* spec) {
    const auto samples = logs.load();
    graph::LinkOptions one;
    one.threads = 1;
    return graph::link(samples, graph::parse_spec(spec, "spec.toml"), one).edges.size();
}

nlohmann::json intervals_named(const nlohmann::json& analysis, const std::string& from, const std::string& to) {
    for (const auto& i : analysis["intervals"])
        if (i["from"] == from && i["to"] == to) return i;
    return nullptr;
}

TEST_F(InferCli, AnalyzeWithoutASpecLinksAsTheInferredSpecWould) {
    const auto logs = passthrough_router();
    write_logs(logs);
    std::ofstream(path("hand.toml")) << kPassthroughRouterTruth;
    const auto hand = run("analyze " + path("logs") + " --spec " + path("hand.toml") + " --json " + path("hand.json"));
    ASSERT_EQ(hand.status, 0) << hand.out;
    const auto r = run("analyze " + path("logs") + " --json " + path("a.json") + " --html " + path("a.html"));
    ASSERT_EQ(r.status, 0) << r.out;
    const auto h = nlohmann::json::parse(read_file(path("hand.json")));
    const auto a = nlohmann::json::parse(read_file(path("a.json")));
    EXPECT_EQ(a["edges"], h["edges"]);
    EXPECT_EQ(a["message_edges"], h["message_edges"]);
    EXPECT_EQ(a["edges"].get<std::size_t>(), links_under(logs, kPassthroughRouterTruth));
    // One line says so, and the intervals are the links'.
    const std::string note = "note: no --spec: linked as the spec `hashtrace infer` writes would: ";
    const auto at = r.out.find(note);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("every pair of tracepoints may link"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--all-pairs lets every pair link\n", at), std::string::npos) << r.out;
    const auto router = intervals_named(a, "Router/Receive", "Router/Forward");
    ASSERT_FALSE(router.is_null()) << a["intervals"].dump();
    EXPECT_EQ(router["count"], intervals_named(h, "Router/Receive", "Router/Forward")["count"]);
    EXPECT_FALSE(intervals_named(a, "B/Received", "B/Queued").is_null());
    EXPECT_NE(read_file(path("a.html")).find("Router Receive to Forward"), std::string::npos);
}

TEST_F(InferCli, AnalyzeWithAllPairsLetsEveryPairLinkAsBefore) {
    const auto logs = passthrough_router(400);
    write_logs(logs);
    const auto r = run("analyze " + path("logs") + " --all-pairs --json " + path("a.json"));
    ASSERT_EQ(r.status, 0) << r.out;
    const auto a = nlohmann::json::parse(read_file(path("a.json")));
    const auto every_pair = links_under(logs, "");
    EXPECT_EQ(a["edges"].get<std::size_t>(), every_pair);
    EXPECT_GT(every_pair, links_under(logs, kPassthroughRouterTruth));
    EXPECT_TRUE(a["intervals"].empty());
    const auto at = r.out.find("note: no --spec, so every pair of tracepoints may link; ");
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_GT(std::stol(r.out.substr(at + 56)), 0);
    EXPECT_NE(r.out.find("hashtrace infer LOGS -o spec.toml"), std::string::npos);

    std::ofstream(path("hand.toml")) << kPassthroughRouterTruth;
    const auto both = run("analyze " + path("logs") + " --all-pairs --spec " + path("hand.toml"));
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.out.find("--all-pairs is for a run without --spec"), std::string::npos) << both.out;
}

TEST_F(InferCli, AnalyzeWithoutASpecOnLogsWithNoStructureLinksEveryPairAndSaysWhy) {
    SystemLogs unlinked;
    unlinked.add({"P", "1", "Make", "", "id"}, kStart, "", value(1));
    unlinked.add({"Q", "1", "Use", "id", ""}, kStart + kMs, value(2), "");
    write_logs(unlinked);
    const auto r = run("analyze " + path("logs"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("note: no --spec, and no structure to infer: 2 samples"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("note: no --spec, so every pair of tracepoints may link"), std::string::npos) << r.out;
}

TEST_F(InferCli, AShardedRunWithoutASpecIsLinkedAsItsFirstShardsInferredSpecWould) {
    const auto logs = fan_out_to_two_workers();
    write_logs(logs);
    std::ofstream(path("hand.toml")) << kFanOutTruth;
    const auto hand = run("analyze " + path("logs") + " --spec " + path("hand.toml") + " --json " + path("hand.json"));
    ASSERT_EQ(hand.status, 0) << hand.out;
    const auto r = run("analyze " + path("logs") + " --shard-samples 4000 --margin-ms 50 --json " + path("a.json"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("inferred from the run's first shard alone (--shard-samples 4000)"), std::string::npos) << r.out;
    const auto h = nlohmann::json::parse(read_file(path("hand.json")));
    const auto a = nlohmann::json::parse(read_file(path("a.json")));
    EXPECT_EQ(a["edges"], h["edges"]);
    const auto worker2 = intervals_named(a, "Detector/Worker2Started", "Detector/Worker2Done");
    ASSERT_FALSE(worker2.is_null()) << a["intervals"].dump();
    EXPECT_EQ(worker2["count"], intervals_named(h, "Detector/Worker2Started", "Detector/Worker2Done")["count"]);
}

TEST_F(InferCli, DrawsTheSystem) {
    write_logs(router_pipeline(200));
    const auto r = run("infer " + path("logs") + " -o " + path("spec.toml") + " --dot " + path("system.dot"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(read_file(path("system.dot")).find("subgraph cluster_"), std::string::npos);
    if (std::system("command -v dot >/dev/null 2>&1") == 0) {
        EXPECT_NE(read_file(path("system.svg")).find("<svg"), std::string::npos) << r.out;
    } else {
        EXPECT_NE(r.out.find("no SVG: Graphviz's `dot` is not installed"), std::string::npos) << r.out;
    }
}

TEST_F(InferCli, LogsWithoutStructureGetAClearMessage) {
    SystemLogs unlinked;
    unlinked.add({"P", "1", "Make", "", "id"}, kStart, "", value(1));
    unlinked.add({"Q", "1", "Use", "id", ""}, kStart + kMs, value(2), "");
    write_logs(unlinked, "unlinked");
    const auto none = run("infer " + path("unlinked"));
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.out.find("no structure to infer: 2 samples of 2 tracepoints on 2 nodes (2 instances), and no input hash equals"),
              std::string::npos)
        << none.out;

    SystemLogs sources;
    for (int i = 0; i < 5; ++i) sources.add({"P", "1", "Make", "", "id"}, kStart + i * kMs, "", value(i));
    write_logs(sources, "sources");
    const auto only_sources = run("infer " + path("sources"));
    EXPECT_EQ(only_sources.status, 1);
    EXPECT_NE(only_sources.out.find("no sample has an input hash: every tracepoint only starts values (sources)"), std::string::npos)
        << only_sources.out;

    SystemLogs one_node;
    for (int i = 0; i < 50; ++i) {
        one_node.add({"P", "1", "Make", "", "id"}, kStart + i * kMs, "", value(i));
        one_node.add({"P", "1", "Use", "id", ""}, kStart + i * kMs + 100'000, value(i), "");
    }
    write_logs(one_node, "one");
    const auto single = run("infer " + path("one"));
    EXPECT_EQ(single.status, 0) << single.out;
    EXPECT_NE(single.out.find("note: all samples come from one node (P)"), std::string::npos) << single.out;

    const auto usage = run("infer " + path("one") + " --spec x.toml");
    EXPECT_EQ(usage.status, 2);
    EXPECT_NE(usage.out.find("infer reads no --spec"), std::string::npos);
}

}  // namespace
}  // namespace hashtrace::infer::testing
