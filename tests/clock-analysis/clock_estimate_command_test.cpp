// `hashtrace clock estimate`, `analyze --clock-correct edges` and the warp
// testing aid of `convert`, through the real command line, on hand-made logs
// of two instances whose clocks are known: "Ref" keeps true time, "Fast" is
// 5 ms ahead and runs 100 ppm fast. Each sits in its own directory with
// clock-quality records; Fast's records claim 4 ms (a faulty PTP follower).
#include "clock_model.hpp"
#include "hashtrace/clocksync/clock_record.hpp"
#include "hashtrace/clocksync/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hc = hashtrace::clocksync;
namespace fs = std::filesystem;
using namespace clock_model;

namespace {

class ClockEstimateCommand : public ::testing::Test {
protected:
    const Clock ref_{}, fast_{5.0 * kMs, 100};

    void SetUp() override {
        root_ = fs::temp_directory_path() / ("hashtrace_ce_" + std::to_string(::getpid()));
        fs::remove_all(root_);
        fs::create_directories(root_ / "ref");
        fs::create_directories(root_ / "fast");
        std::ofstream ref(root_ / "ref" / "Ref-1.csv"), fast(root_ / "fast" / "Fast-1.csv");
        ref << kCsvHeader;
        fast << kCsvHeader;
        const auto to_fast = messages(ref_, fast_, 10 * kMs, 10 * kSecond, 50'000, 300'000, 1);
        const auto to_ref = messages(fast_, ref_, 10 * kMs, 10 * kSecond, 50'000, 300'000, 2, 5 * kMs);
        int id = 0;
        for (const auto& m : to_fast) {
            ref << "Ref,1,Send,none,msg," << csv_seconds(m.send_ns) << ",," << csv_hash(id) << "\n";
            fast << "Fast,1,Receive,msg,none," << csv_seconds(m.receive_ns) << "," << csv_hash(id++) << ",\n";
        }
        for (const auto& m : to_ref) {
            fast << "Fast,1,Send,none,msg," << csv_seconds(m.send_ns) << ",," << csv_hash(id) << "\n";
            ref << "Ref,1,Receive,msg,none," << csv_seconds(m.receive_ns) << "," << csv_hash(id++) << ",\n";
        }
        hc::ClockRecordWriter gm(hc::clock_file_path(root_ / "ref", "gm")), fo(hc::clock_file_path(root_ / "fast", "fo"));
        for (int k = -1; k < 12; ++k) {
            const std::int64_t t = kT0 + k * kSecond;
            gm.write({t, "gm", hc::ClockSource::ptp, "MASTER", {}, {}, {}, {}});
            fo.write({t, "fo", hc::ClockSource::ptp, "UNCALIBRATED", 4 * kMs, 2'400, {}, {}});
        }
    }
    void TearDown() override { fs::remove_all(root_); }

    hc::CommandResult run(std::vector<std::string> args) {
        args.insert(args.begin(), HASHTRACE_EXE);
        return hc::run_command(args, std::chrono::seconds(60));
    }
    nlohmann::json read_json(const fs::path& p) {
        std::ifstream in(p);
        return nlohmann::json::parse(in);
    }

    fs::path root_;
};

}  // namespace

TEST_F(ClockEstimateCommand, GivesTheKnownClockInsideItsBoundsInTextAndJson) {
    const auto r = run({"clock", "estimate", root_.string(), "--json", (root_ / "e.json").string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Fast/1"), std::string::npos) << r.output;
    const auto j = read_json(root_ / "e.json");
    // Each sends as often: the reference is the first with the most messages.
    const std::string reference = j["reference"];
    ASSERT_TRUE(reference == "Ref/1" || reference == "Fast/1") << reference;
    const auto& estimates = j["clock_estimates"];
    ASSERT_EQ(estimates.size(), 2u);
    for (const auto& e : estimates) {
        EXPECT_EQ(e["reference"], reference);
        ASSERT_EQ(e["pieces"].size(), 1u);
        EXPECT_EQ(e["pieces"][0]["offset_ns"], e["offset_ns"]);
        if (e["node"].get<std::string>() + "/1" == reference) {
            EXPECT_EQ(e["offset_ns"].get<std::int64_t>(), 0);
            continue;
        }
        // The truth at the reference's first sample, whichever is the reference.
        const std::int64_t origin = j["origin_ns"];
        const bool fast_is_other = reference == "Ref/1";
        const double truth = fast_is_other ? fast_.offset_from(ref_, origin) : ref_.offset_from(fast_, origin - 5 * kMs);
        EXPECT_LE(e["offset_lo_ns"].get<double>(), truth + 1);
        EXPECT_GE(e["offset_hi_ns"].get<double>(), truth - 1);
        EXPECT_NEAR(e["offset_ns"].get<double>(), truth, 60'000);
        EXPECT_NEAR(e["drift_ppm"].get<double>(), fast_is_other ? 100 : -100, 1);
        EXPECT_EQ(e["messages_used"].get<int>(), 2000);
    }
}

TEST_F(ClockEstimateCommand, AnUnknownReferenceIsAUsageError) {
    const auto r = run({"clock", "estimate", root_.string(), "--reference", "Nobody", "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--reference"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Nobody"), std::string::npos) << r.output;
}

TEST_F(ClockEstimateCommand, OneWayMessagesAreNotPlacedAndSaySo) {
    // Only Ref -> Fast: keep the lines of the first 1000 messages each side.
    for (const char* name : {"ref/Ref-1.csv", "fast/Fast-1.csv"}) {
        std::ifstream in(root_ / name);
        std::string all, line;
        for (int k = 0; std::getline(in, line) && k <= 1000; ++k) all += line + "\n";
        in.close();
        std::ofstream(root_ / name) << all;
    }
    const auto r = run({"clock", "estimate", root_.string(), "--reference", "Ref", "--json", (root_ / "e.json").string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 1) << r.output;  // nothing but the reference placed: no answer
    EXPECT_NE(r.output.find("Fast/1 cannot be placed"), std::string::npos) << r.output;
    const auto j = read_json(root_ / "e.json");
    const auto& fast = j["clock_estimates"][0]["node"] == "Fast" ? j["clock_estimates"][0] : j["clock_estimates"][1];
    EXPECT_TRUE(fast["offset_ns"].is_null());
    EXPECT_TRUE(fast["offset_lo_ns"].is_null());
    ASSERT_FALSE(fast["offset_hi_ns"].is_null());
    EXPECT_GE(fast["offset_hi_ns"].get<double>(), fast_.offset_from(ref_, kT0));
}

// A third instance, "Lone", receives Ref's messages 2 ms after they are sent
// and sends nothing: placed from one side only. The answer for the others
// stands (exit 0), Lone is named with its one-sided bound; --strict fails.
TEST_F(ClockEstimateCommand, APartialAnswerIsAnAnswerUnlessStrict) {
    fs::create_directories(root_ / "lone");
    std::ifstream ref(root_ / "ref" / "Ref-1.csv");
    std::ofstream lone(root_ / "lone" / "Lone-1.csv");
    lone << kCsvHeader;
    std::string line;
    int received = 0;
    while (std::getline(ref, line)) {
        if (line.rfind("Ref,1,Send,", 0) != 0) continue;
        std::vector<std::string> f;
        for (std::size_t a = 0, b; (b = line.find(',', a)) != std::string::npos || a <= line.size(); a = b + 1) {
            f.push_back(line.substr(a, b == std::string::npos ? std::string::npos : b - a));
            if (b == std::string::npos) break;
        }
        const double t = std::stod(f[5]) + 0.002;
        char time[32];
        std::snprintf(time, sizeof time, "%.9f", t);
        lone << "Lone,1,Receive,msg,none," << time << "," << f[7] << ",\n";
        ++received;
    }
    lone.close();
    ASSERT_GT(received, 100);
    const auto r = run({"clock", "estimate", root_.string(), "--reference", "Ref", "--json", (root_ / "e.json").string(), "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Lone/1 cannot be placed"), std::string::npos) << r.output;
    const auto j = read_json(root_ / "e.json");
    int placed = 0;
    for (const auto& e : j["clock_estimates"]) placed += !e["offset_ns"].is_null();
    EXPECT_EQ(placed, 2);  // Ref and Fast
    const auto strict = run({"clock", "estimate", root_.string(), "--reference", "Ref", "--strict", "--quiet"});
    EXPECT_EQ(strict.exit_code, 1) << strict.output;
}

TEST_F(ClockEstimateCommand, AnalyzeCorrectsByTheEdgesAndFlagsTheRecordsThatDisagree) {
    const auto json = root_ / "a.json";
    const auto r = run({"analyze", root_.string(), "--clock-correct", "edges", "--reference", "Ref", "--json", json.string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = read_json(json);
    // Transits were drawn from 50-300 us: corrected, the waits are that (uncorrected +-5 ms).
    EXPECT_NEAR(j["metrics"]["M11"]["mean_ms"].get<double>(), 0.175, 0.03);
    EXPECT_GE(j["metrics"]["M11"]["min_ms"].get<double>(), 0.0);
    const auto& edges = j["clock_edges"];
    EXPECT_EQ(edges["reference"], "Ref/1");
    ASSERT_EQ(edges["latencies"].size(), 2u);
    for (const auto& l : edges["latencies"]) {
        ASSERT_FALSE(l["clock_error_bound_ns"].is_null());
        EXPECT_LT(l["clock_error_bound_ns"].get<double>(), 300'000);
    }
    // The records say 4 ms where the messages allow only ~5 ms: a fault over the run.
    ASSERT_EQ(edges["faults"].size(), 1u);
    EXPECT_EQ(edges["faults"][0]["node"], "Fast");
    EXPECT_LE(edges["faults"][0]["from_ns"].get<std::int64_t>(), kT0 + kSecond);
    EXPECT_GE(edges["faults"][0]["to_ns"].get<std::int64_t>(), kT0 + 9 * kSecond);
    EXPECT_GT(edges["faults"][0]["worst_outside_ns"].get<double>(), 500'000);
    bool warned = false;
    for (const auto& w : j["warnings"]) warned = warned || w.get<std::string>().find("clock fault") != std::string::npos;
    EXPECT_TRUE(warned);
    // Records that agree with the messages are no fault.
    {
        hc::ClockRecordWriter fo(hc::clock_file_path(root_ / "fast", "fo2"));
        fs::remove(hc::clock_file_path(root_ / "fast", "fo"));
        for (int k = -1; k < 12; ++k) {
            const std::int64_t t = kT0 + k * kSecond;
            fo.write({t, "fo", hc::ClockSource::ptp, "UNCALIBRATED", std::llround(fast_.offset_from(ref_, t)), 2'400, {}, {}});
        }
    }
    ASSERT_EQ(run({"analyze", root_.string(), "--clock-correct", "edges", "--reference", "Ref", "--json", json.string(), "--quiet"}).exit_code, 0);
    EXPECT_TRUE(read_json(json)["clock_edges"]["faults"].empty());
}

TEST_F(ClockEstimateCommand, WarpStampsALogAsAnOffClockWould) {
    const auto in = root_ / "ref" / "Ref-1.csv", out = root_ / "warped.csv";
    const auto r = run({"convert", in.string(), out.string(), "--warp-offset-ms", "50", "--warp-drift-ppm", "200", "--warp-step-ms", "1",
                        "--warp-step-at-s", "5"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream a(in), b(out);
    std::string la, lb;
    std::getline(a, la);
    std::getline(b, lb);
    const auto time_of = [](const std::string& line) {
        std::size_t p = 0;
        for (int k = 0; k < 5; ++k) p = line.find(',', p) + 1;
        const std::string field = line.substr(p, line.find(',', p) - p);
        const auto dot = field.find('.');
        return std::stoll(field.substr(0, dot)) * kSecond + std::stoll(field.substr(dot + 1));
    };
    std::int64_t t0 = 0;
    int n = 0;
    while (std::getline(a, la) && std::getline(b, lb)) {
        const std::int64_t t = time_of(la), w = time_of(lb);
        if (!n++) t0 = t;  // the first sample of this log is its earliest
        const double expected = 50e6 + 200e-6 * static_cast<double>(t - t0) + (t - t0 >= 5 * kSecond ? 1e6 : 0);
        ASSERT_NEAR(static_cast<double>(w - t), expected, 1) << "line " << n;
    }
    EXPECT_EQ(n, 2000);
    EXPECT_NE(r.output.find("t0 = " + std::to_string(t0)), std::string::npos) << r.output;
    EXPECT_EQ(run({"convert", in.string(), out.string(), "--warp-step-ms", "1"}).exit_code, 2);
    EXPECT_EQ(run({"convert", in.string(), out.string(), "--warp-drift-ppm", "inf"}).exit_code, 2);
}
