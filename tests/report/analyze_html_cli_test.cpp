// `hashtrace analyze --html` end to end: the real executable writes the page.
#include "demo_run.hpp"
#include "run_command.hpp"
#include "systems.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

namespace hashtrace::report {
namespace {

using ::testing::HasSubstr;

class AnalyzeHtml : public ::testing::Test {
protected:
    void SetUp() override {
        std::filesystem::create_directory(dir / "logs");
        for (const auto& [name, text] : test::demo_logs()) std::ofstream(dir / "logs" / name) << text;
        std::ofstream(dir / "spec.toml") << test::kDemoSpec;
    }
    test::CommandResult analyze(const std::string& arguments) {
        return test::run_command(std::string(HASHTRACE_TEST_CLI) + " analyze " + path("logs") + " --spec " +
                                 path("spec.toml") + " --quiet " + arguments + " 2>&1");
    }
    std::string path(const std::string& name) const { return test::shell_quote((dir / name).string()); }

    // The page's data model.
    nlohmann::json data_of(const std::string& page) const {
        const std::string open = "id=\"report-data\">";
        const auto begin = page.find(open) + open.size();
        return nlohmann::json::parse(page.substr(begin, page.find("</script>", begin) - begin));
    }

    test::TempDir dir;
};

TEST_F(AnalyzeHtml, WritesTheReportOfTheRunItAnalysed) {
    const auto run = analyze("--html " + path("report.html") + " --html-title 'demo run' --top-k 3 --idle-ms 30");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto d = data_of(test::read_file(dir / "report.html"));
    EXPECT_EQ(d.at("title"), "demo run");
    EXPECT_EQ(d.at("health").at("samples"), 781);
    EXPECT_EQ(d.at("intervals").size(), 2u);
    EXPECT_EQ(d.at("slowest").size(), 3u);
    EXPECT_EQ(d.at("idle_gaps").at("gaps").size(), 2u);
    EXPECT_EQ(d.at("idle_gaps").at("threshold_ms"), 30);
    // The critical path of each interval, as `hashtrace critical-path` finds it.
    const auto cli = test::run_command(std::string(HASHTRACE_TEST_CLI) + " critical-path " + path("logs") + " --spec " +
                                       path("spec.toml") + " --quiet --json " + path("cp.json") + " 2>&1");
    ASSERT_EQ(cli.status, 0) << cli.out;
    const auto expected = nlohmann::json::parse(test::read_file(dir / "cp.json")).at("critical_path");
    const auto& paths = d.at("critical_paths");
    ASSERT_EQ(paths.size(), 2u);
    for (std::size_t i = 0; i < paths.size(); ++i) {
        EXPECT_EQ(paths[i].at("interval"), expected[i].at("interval"));
        EXPECT_EQ(paths[i].at("count"), expected[i].at("count"));
        EXPECT_EQ(paths[i].at("segments").size(), expected[i].at("segments").size());
        for (std::size_t k = 0; k < paths[i].at("segments").size(); ++k)
            for (const char* key : {"from", "to", "kind"}) EXPECT_EQ(paths[i].at("segments")[k].at(key), expected[i].at("segments")[k].at(key));
    }
    EXPECT_TRUE(d.at("system").is_null()) << "a run with a spec has no inferred system";
}

TEST_F(AnalyzeHtml, WithoutASpecTheReportDrawsTheSystemInferFinds) {
    std::filesystem::create_directory(dir / "router");
    for (const auto& [name, text] : infer::testing::router_pipeline(300).files()) std::ofstream(dir / "router" / name) << text;
    const auto run = test::run_command(std::string(HASHTRACE_TEST_CLI) + " analyze " + path("router") + " --quiet --html " +
                                       path("report.html") + " 2>&1");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto inferred = test::run_command(std::string(HASHTRACE_TEST_CLI) + " infer " + path("router") + " --quiet -o " +
                                            path("spec.toml") + " --force --json " + path("infer.json") + " 2>&1");
    ASSERT_EQ(inferred.status, 0) << inferred.out;
    const auto infer = nlohmann::json::parse(test::read_file(dir / "infer.json"));
    const auto system = data_of(test::read_file(dir / "report.html")).at("system");
    ASSERT_TRUE(system.is_object());
    // Linked as the inferred spec would, with an interval per link: each has its critical paths.
    EXPECT_FALSE(data_of(test::read_file(dir / "report.html")).at("critical_paths").empty());
    EXPECT_FALSE(data_of(test::read_file(dir / "report.html")).at("intervals").empty());

    // Every tracepoint, in a box of its node, with infer's sample count; sources and sinks as infer names them.
    std::map<std::string, std::uint64_t> samples;
    std::set<std::string> sources, sinks;
    for (const auto& node : system.at("nodes"))
        for (const auto& tp : node.at("tracepoints")) {
            EXPECT_EQ(tp.at("selector"), node.at("name").get<std::string>() + "/" + tp.at("name").get<std::string>());
            samples[tp.at("selector")] = tp.at("samples");
            if (tp.at("source")) sources.insert(tp.at("selector"));
            if (tp.at("sink")) sinks.insert(tp.at("selector"));
        }
    EXPECT_EQ(system.at("nodes").size(), 4u);
    std::map<std::string, std::uint64_t> infer_samples;
    for (const auto& tp : infer.at("tracepoints")) infer_samples[tp.at("selector")] = tp.at("samples");
    EXPECT_EQ(samples, infer_samples);
    EXPECT_EQ(sources, infer.at("sources").get<std::set<std::string>>());
    EXPECT_EQ(sinks, infer.at("sinks").get<std::set<std::string>>());

    // Every pair infer found but the shortcuts, with its rate and median latency; the rejected ones suspect.
    std::map<std::pair<std::string, std::string>, nlohmann::json> edges;
    for (const auto& e : system.at("edges")) edges[{e.at("from"), e.at("to")}] = e;
    std::size_t drawn = 0, suspect = 0;
    for (const auto& p : infer.at("pairs")) {
        const auto it = edges.find({p.at("from"), p.at("to")});
        if (p.at("verdict") == "shortcut") {
            EXPECT_EQ(it, edges.end()) << p.dump();
            continue;
        }
        ASSERT_NE(it, edges.end()) << p.dump();
        ++drawn;
        EXPECT_EQ(it->second.at("verdict"), p.at("verdict"));
        EXPECT_EQ(it->second.at("suspect"), p.at("verdict") != "kept");
        suspect += p.at("verdict") != "kept";
        EXPECT_DOUBLE_EQ(it->second.at("rate_per_s").get<double>(), p.at("rate_per_s").get<double>());
        EXPECT_DOUBLE_EQ(it->second.at("p50_ms").get<double>(), p.at("p50_ms").get<double>());
        if (p.at("verdict") == "kept") {
            EXPECT_EQ(it->second.at("scope"), p.at("scope"));
        }
    }
    EXPECT_EQ(edges.size(), drawn);
    EXPECT_GT(suspect, 0u);
    EXPECT_EQ(system.at("suspect"), suspect);
    EXPECT_EQ(system.at("links_a_spec_removes"), infer.at("links_a_spec_removes"));
}

TEST_F(AnalyzeHtml, AWindowOpensTheSpaceTimeDiagramThere) {
    const auto run = analyze("--html " + path("report.html") + " --html-window 0.5:0.6");
    ASSERT_EQ(run.status, 0) << run.out;
    const auto window = data_of(test::read_file(dir / "report.html")).at("space_time").at("open_window");
    EXPECT_DOUBLE_EQ(window[0].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(window[1].get<double>(), 0.6);
}

TEST_F(AnalyzeHtml, RejectsCompanionOptionsWithoutHtmlAndBadWindows) {
    auto run = analyze("--top-k 3");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("need --html FILE"));
    run = analyze("--html " + path("r.html") + " --html-window 2:1");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("FROM < TO"));
    run = analyze("--html " + path("r.html") + " --html-window soon");
    EXPECT_EQ(run.status, 2);
    EXPECT_THAT(run.out, HasSubstr("'soon'"));
    EXPECT_FALSE(std::filesystem::exists(dir / "r.html"));
}

TEST_F(AnalyzeHtml, NamesAFileItCannotWrite) {
    const auto run = analyze("--html " + path("no/such/dir/report.html"));
    EXPECT_EQ(run.status, 1);
    EXPECT_THAT(run.out, HasSubstr("no/such/dir/report.html"));
}

}  // namespace
}  // namespace hashtrace::report
