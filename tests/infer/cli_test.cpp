// End to end: `hashtrace infer` and the spec-less `analyze` hint, on logs in
// a temporary directory.
#include "systems.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace hashtrace::infer::testing {
namespace {

namespace fs = std::filesystem;

struct Run {
    int status;
    std::string output;  // stdout and stderr
};

Run run(const std::string& arguments) {
    const std::string command = std::string(HASHTRACE_BIN) + " " + arguments + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

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
    ASSERT_EQ(first.status, 0) << first.output;
    EXPECT_NE(first.output.find("Camera/FrameCaptured -> Display/FrameShown  [any]"), std::string::npos) << first.output;
    EXPECT_NE(first.output.find("hash labels differ"), std::string::npos);
    const auto spec = graph::load_spec(path("spec.toml"));
    EXPECT_EQ(spec.pairs.size(), 3u);
    const auto j = nlohmann::json::parse(slurp(path("infer.json")));
    EXPECT_GT(j["links_a_spec_removes"].get<long>(), 700);

    std::ofstream(path("spec.toml"), std::ios::app) << "# my edit\n";
    const auto again = run("infer " + path("logs") + " -o " + path("spec.toml"));
    EXPECT_EQ(again.status, 2);
    EXPECT_NE(again.output.find("spec.toml exists: give --force"), std::string::npos) << again.output;
    EXPECT_NE(slurp(path("spec.toml")).find("# my edit"), std::string::npos);
    const auto forced = run("infer " + path("logs") + " -o " + path("spec.toml") + " --force");
    EXPECT_EQ(forced.status, 0) << forced.output;
    EXPECT_EQ(slurp(path("spec.toml")).find("# my edit"), std::string::npos);

    // analyze with it: the intervals name what they measure.
    const auto analyzed = run("analyze " + path("logs") + " --spec " + path("spec.toml") + " --json " + path("a.json"));
    ASSERT_EQ(analyzed.status, 0) << analyzed.output;
    const auto a = nlohmann::json::parse(slurp(path("a.json")));
    ASSERT_FALSE(a["intervals"].empty());
    bool found = false;
    for (const auto& i : a["intervals"])
        found = found || (i["from"] == "Worker/Tick" && i["to"] == "Worker/Work" && i["count"] == 800);
    EXPECT_TRUE(found) << a["intervals"].dump();
    EXPECT_EQ(analyzed.output.find("note: no --spec"), std::string::npos);
}

TEST_F(InferCli, AnalyzeWithoutASpecSaysHowManyLinksASpecWouldUndo) {
    write_logs(overlapping_ids_and_reused_counter());
    const auto r = run("analyze " + path("logs"));
    ASSERT_EQ(r.status, 0) << r.output;
    const auto at = r.output.find("note: no --spec, so every pair of tracepoints may link; ");
    ASSERT_NE(at, std::string::npos) << r.output;
    const long undone = std::stol(r.output.substr(at + 56));
    EXPECT_GT(undone, 700);
    EXPECT_NE(r.output.find("hashtrace infer LOGS -o spec.toml"), std::string::npos);
}

TEST_F(InferCli, DrawsTheSystem) {
    write_logs(router_pipeline(200));
    const auto r = run("infer " + path("logs") + " -o " + path("spec.toml") + " --dot " + path("system.dot"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(slurp(path("system.dot")).find("subgraph cluster_"), std::string::npos);
    if (std::system("command -v dot >/dev/null 2>&1") == 0) {
        EXPECT_NE(slurp(path("system.svg")).find("<svg"), std::string::npos) << r.output;
    } else {
        EXPECT_NE(r.output.find("no SVG: Graphviz's `dot` is not installed"), std::string::npos) << r.output;
    }
}

TEST_F(InferCli, LogsWithoutStructureGetAClearMessage) {
    SystemLogs unlinked;
    unlinked.add({"P", "1", "Make", "", "id"}, kStart, "", value(1));
    unlinked.add({"Q", "1", "Use", "id", ""}, kStart + kMs, value(2), "");
    write_logs(unlinked, "unlinked");
    const auto none = run("infer " + path("unlinked"));
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.output.find("no structure to infer: 2 samples of 2 tracepoints on 2 nodes (2 instances), and no input hash equals"),
              std::string::npos)
        << none.output;

    SystemLogs sources;
    for (int i = 0; i < 5; ++i) sources.add({"P", "1", "Make", "", "id"}, kStart + i * kMs, "", value(i));
    write_logs(sources, "sources");
    const auto only_sources = run("infer " + path("sources"));
    EXPECT_EQ(only_sources.status, 1);
    EXPECT_NE(only_sources.output.find("no sample has an input hash: every tracepoint only starts values (sources)"), std::string::npos)
        << only_sources.output;

    SystemLogs one_node;
    for (int i = 0; i < 50; ++i) {
        one_node.add({"P", "1", "Make", "", "id"}, kStart + i * kMs, "", value(i));
        one_node.add({"P", "1", "Use", "id", ""}, kStart + i * kMs + 100'000, value(i), "");
    }
    write_logs(one_node, "one");
    const auto single = run("infer " + path("one"));
    EXPECT_EQ(single.status, 0) << single.output;
    EXPECT_NE(single.output.find("note: all samples come from one node (P)"), std::string::npos) << single.output;

    const auto usage = run("infer " + path("one") + " --spec x.toml");
    EXPECT_EQ(usage.status, 2);
    EXPECT_NE(usage.output.find("infer reads no --spec"), std::string::npos);
}

}  // namespace
}  // namespace hashtrace::infer::testing
