// Clock records in the analysis, end to end through the graph loader: two
// nodes in two directories, one the PTP reference, one free-running 2 ms
// ahead and drifting 10 us/s.
#include "clock_model.hpp"
#include "hashtrace/clock_analysis/clock_analysis.hpp"
#include "hashtrace/clocksync/subprocess.hpp"
#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <fstream>
#include <regex>

namespace hc = hashtrace::clocksync;
namespace hg = hashtrace::graph;
namespace hca = hashtrace::clock_analysis;
namespace hm = hashtrace::metrics;
namespace fs = std::filesystem;

namespace {
using clock_model::kT0;
using clock_model::kSecond;

// Reference clock offset of the follower at local time t: 2 ms + 10 us/s.
double follower_offset(std::int64_t t) { return 2'000'000 + 10'000 * static_cast<double>(t - kT0) / 1e9; }

class ClockAnalysisTest : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("hashtrace_ca_" + std::to_string(::getpid()));
        fs::remove_all(root_);
        fs::create_directories(root_ / "gm");
        fs::create_directories(root_ / "fo");
        std::ofstream sender(root_ / "gm" / "Sender-1.csv"), receiver(root_ / "fo" / "Receiver-1.csv");
        sender << clock_model::kCsvHeader;
        receiver << clock_model::kCsvHeader;
        // Each message: sent at reference time T, received 500 us later; the
        // receiver's clock stamps it follower_offset later still.
        for (int i = 0; i < 20; ++i) {
            const std::int64_t sent = kT0 + i * kSecond / 2;
            const std::int64_t received_true = sent + 500'000;
            const std::int64_t received_local = received_true + std::llround(follower_offset(received_true));
            sender << "Sender,1,Send,none,messageid," << clock_model::csv_seconds(sent) << ",," << clock_model::csv_hash(i) << "\n";
            receiver << "Receiver,1,Receive,messageid,none," << clock_model::csv_seconds(received_local) << "," << clock_model::csv_hash(i) << ",\n";
        }
        hc::ClockRecordWriter gm(hc::clock_file_path(root_ / "gm", "gm")), fo(hc::clock_file_path(root_ / "fo", "fo"));
        for (int k = -2; k < 14; ++k) {
            const std::int64_t t = kT0 + k * kSecond;
            gm.write({t, "gm", hc::ClockSource::ptp, "MASTER", {}, {}, {}, {}});
            fo.write({t, "fo", hc::ClockSource::ptp, "UNCALIBRATED", std::llround(follower_offset(t)), 2'400, {}, {}});
        }
    }
    void TearDown() override { fs::remove_all(root_); }

    hg::SampleSet load() { return hg::load_samples({root_ / "gm" / "Sender-1.csv", root_ / "fo" / "Receiver-1.csv"}); }

    fs::path root_;
};
}  // namespace

TEST_F(ClockAnalysisTest, CorrectionRestoresTheTrueLatency) {
    auto samples = load();
    const auto analysis = hca::load_clock_analysis(samples);
    ASSERT_EQ(analysis.clocks.reports.size(), 2u);
    hg::correct_times(samples, hca::time_correction(analysis));
    const auto graph = hg::link(samples, hg::AnalysisSpec{}, hg::LinkOptions{});
    ASSERT_EQ(graph.edges.size(), 20u);
    for (const auto& e : graph.edges) {
        const auto latency = samples.time_ns[e.to] - samples.time_ns[e.from];
        // The records give the offset as a function of local time, this model of
        // true time: they differ by drift x offset = 10 ppm x 2.5 ms = 25 ns.
        EXPECT_NEAR(static_cast<double>(latency), 500'000, 30) << "edge " << e.from << "->" << e.to;
    }
}

TEST_F(ClockAnalysisTest, ReportsSyncErrorPerNodeAndWarnsOnUntrustworthyLatency) {
    const auto samples = load();
    const auto analysis = hca::load_clock_analysis(samples);
    hm::AnalysisResult result;
    // Uncorrected, the receiver looks 2.5 ms away, its clock error bound is
    // over 2 ms: fine. A 1 ms latency would not be.
    result.node_latency = {{"Sender", "Receiver", 20, 2.5, 2.6}, {"Receiver", "Sender", 3, 1.0, 1.0}};
    hca::add_clock_report(analysis, samples, false, result);
    ASSERT_EQ(result.extra.size(), 1u);
    const auto json = nlohmann::json::parse(result.extra[0].json);
    EXPECT_FALSE(json["corrected"].get<bool>());
    ASSERT_EQ(json["clocks"].size(), 2u);
    const auto& fo = json["clocks"][0]["host"] == "fo" ? json["clocks"][0] : json["clocks"][1];
    const auto& gm = json["clocks"][0]["host"] == "gm" ? json["clocks"][0] : json["clocks"][1];
    EXPECT_TRUE(gm["reference"].get<bool>());
    EXPECT_EQ(gm["error_bound_ns"].get<std::int64_t>(), 0);
    EXPECT_GT(fo["error_bound_ns"].get<std::int64_t>(), 2'000'000);
    EXPECT_LT(fo["corrected_error_bound_ns"].get<std::int64_t>(), 10);
    EXPECT_NEAR(fo["correction"]["drift_ppb"].get<double>(), 10'000, 1);
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_NE(result.warnings[0].find("Receiver -> Sender"), std::string::npos) << result.warnings[0];

    // Corrected, the bound is the residual (nanoseconds): no warning.
    hm::AnalysisResult corrected;
    corrected.node_latency = result.node_latency;
    hca::add_clock_report(analysis, samples, true, corrected);
    EXPECT_TRUE(corrected.warnings.empty()) << corrected.warnings[0];
    ASSERT_EQ(corrected.extra[0].text_lines.size(), 2u);
}

// The section is ordered JSON: its keys in the order written (docs/clock-sync.md),
// its nanoseconds to three decimals as the text shows them.
TEST_F(ClockAnalysisTest, SyncSectionKeepsItsKeyOrderAndThreeDecimals) {
    const auto samples = load();
    hm::AnalysisResult result;
    hca::add_clock_report(hca::load_clock_analysis(samples), samples, false, result);
    ASSERT_EQ(result.extra.size(), 1u);
    const std::string& text = result.extra[0].json;
    const auto json = nlohmann::ordered_json::parse(text);
    const auto keys = [](const nlohmann::ordered_json& object) {
        std::vector<std::string> out;
        for (const auto& item : object.items()) out.push_back(item.key());
        return out;
    };
    EXPECT_EQ(keys(json), (std::vector<std::string>{"corrected", "clocks", "nodes"}));
    const auto& fo = json["clocks"][0]["host"] == "fo" ? json["clocks"][0] : json["clocks"][1];
    EXPECT_EQ(keys(fo), (std::vector<std::string>{"host", "file", "source", "records", "reference", "locked", "measuring", "unknown",
                                                  "offset_rms_ns", "offset_max_abs_ns", "error_bound_ns", "corrected_error_bound_ns",
                                                  "correction", "unsynchronised"}));
    EXPECT_EQ(keys(fo["correction"]), (std::vector<std::string>{"t0_ns", "offset_ns", "drift_ppb"}));
    EXPECT_EQ(keys(json["nodes"][0]), (std::vector<std::string>{"node", "error_bound_ns"}));
    // Every fractional number written has at most three decimals.
    static const std::regex fraction(R"([:,\[]-?\d+\.(\d+))");
    std::size_t fractions = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), fraction), end; it != end; ++it, ++fractions)
        EXPECT_LE((*it)[1].length(), 3) << it->str();
    EXPECT_GT(fractions, 0u);
}

TEST_F(ClockAnalysisTest, NodeWithoutClockRecordsIsReportedUnknown) {
    fs::remove(hc::clock_file_path(root_ / "fo", "fo"));
    const auto samples = load();
    const auto analysis = hca::load_clock_analysis(samples);
    hm::AnalysisResult result;
    hca::add_clock_report(analysis, samples, false, result);
    ASSERT_EQ(result.warnings.size(), 1u);
    EXPECT_NE(result.warnings[0].find("node Receiver"), std::string::npos) << result.warnings[0];
    const auto nodes = hca::node_clocks(analysis, samples, false);
    EXPECT_FALSE(nodes.at("Receiver").bound_ns.has_value());
    EXPECT_EQ(nodes.at("Sender").bound_ns, 0);
}

// Through the real command line: `hashtrace analyze` finds the clock files
// next to the logs, reports them, and --clock-correct restores the latency.
TEST_F(ClockAnalysisTest, AnalyzeCommandReportsAndCorrects) {
    const auto analyze = [&](bool correct) {
        std::vector<std::string> argv{HASHTRACE_EXE, "analyze", root_.string(), "--quiet", "--json", (root_ / "out.json").string()};
        if (correct) argv.push_back("--clock-correct");
        const auto run = hc::run_command(argv, std::chrono::seconds(60));
        EXPECT_EQ(run.exit_code, 0) << run.output;
        EXPECT_NE(run.output.find("Clock synchronisation"), std::string::npos) << run.output;
        std::ifstream in(root_ / "out.json");
        return nlohmann::json::parse(in);
    };
    const auto raw = analyze(false);
    ASSERT_EQ(raw["node_latency_matrix"].size(), 1u);
    EXPECT_NEAR(raw["node_latency_matrix"][0]["mean_ms"].get<double>(), 2.548, 0.01);  // 0.5 ms + the receiver's clock error
    EXPECT_FALSE(raw["clock_sync"]["corrected"].get<bool>());
    EXPECT_EQ(raw["clock_sync"]["clocks"].size(), 2u);

    const auto corrected = analyze(true);
    EXPECT_NEAR(corrected["node_latency_matrix"][0]["mean_ms"].get<double>(), 0.5, 0.001);
    EXPECT_TRUE(corrected["clock_sync"]["corrected"].get<bool>());
}

TEST(LatencyWarnings, SameClockNeverWarnsAndUnknownIsLeftToTheNodeWarning) {
    std::map<std::string, hca::NodeClock> nodes{{"A", {100'000, {0}}}, {"B", {100'000, {0}}}, {"C", {50'000, {1}}}, {"D", {{}, {}}}};
    const std::vector<hm::NodeLatency> latencies{{"A", "B", 1, 0.01, 0.01}, {"A", "C", 1, 0.12, 0.2}, {"C", "A", 1, 0.2, 0.2}, {"A", "D", 1, 0.001, 0.001}};
    const auto warnings = hca::latency_warnings(latencies, nodes);
    ASSERT_EQ(warnings.size(), 1u);  // A->C: 120 us <= 150 us
    EXPECT_NE(warnings[0].find("A -> C"), std::string::npos) << warnings[0];
}
