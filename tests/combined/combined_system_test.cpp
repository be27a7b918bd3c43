// The combined system as real processes over UDP on loopback
// (combined_node.cpp): a camera sends frames through a pass-through router
// to a detector that fans them out to two worker threads through one queue
// and sends the results on (the fan-in) to a tracker, which acknowledges
// each to the camera through the router again. The processes share this
// machine's clock; their logs are then warped as clocks that far off would
// have stamped them (`hashtrace convert --warp-*`): the detector 30 ms ahead,
// 200 ppm fast, stepping 2 ms further ahead mid-run; the tracker 20 ms
// behind and 150 ppm slow; the camera 15 ms ahead and 300 ppm fast. The
// router's clock is the reference, untouched.
//
// On the warped logs alone:
// - `infer` writes the spec a careful engineer would (the hand-written one
//   below): its links with precision and recall >= 99.9 %, and every
//   hand-written interval reproduced (same selectors, or same count and mean
//   within 1 %);
// - `clock estimate` places every clock, the truth inside every piece's
//   bounds, and finds the step as a second piece on the detector only;
// - `analyze --clock-correct edges` counts what the true-clock run counts.
#include "hashtrace/graph/load.hpp"
#include "hashtrace/infer/agreement.hpp"
#include "hashtrace/logio/reader.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

using hashtrace::test::run_command;
using hashtrace::test::shell_quote;
namespace fs = std::filesystem;

constexpr const char* kHandWritten = R"(
[[pair]]
from = "Camera/FrameSent"
to = "Router/Receive"
[[pair]]
from = "Tracker/AckSent"
to = "Router/Receive"
[[pair]]
from = "Router/Receive"
to = "Router/Forward"
scope = "instance"
[[pair]]
from = "Router/Forward"
to = "Detector/FrameReceived"
[[pair]]
from = "Router/Forward"
to = "Camera/AckReceived"
[[pair]]
from = "Detector/FrameReceived"
to = "Detector/FrameQueued"
scope = "thread"
[[pair]]
from = "Detector/FrameQueued"
to = "Detector/Worker*Started"
scope = "instance"
[[pair]]
from = "Detector/Worker1Started"
to = "Detector/Worker1Done"
scope = "thread"
[[pair]]
from = "Detector/Worker2Started"
to = "Detector/Worker2Done"
scope = "thread"
[[pair]]
from = "Detector/Worker*Done"
to = "Detector/ResultSent"
scope = "instance"
[[pair]]
from = "Detector/ResultSent"
to = "Tracker/ResultReceived"
[[pair]]
from = "Tracker/ResultReceived"
to = "Tracker/Tracked"
scope = "thread"
[[pair]]
from = "Tracker/Tracked"
to = "Tracker/AckSent"
scope = "thread"
[[interval]]
name = "camera to router"
from = "Camera/FrameSent"
to = "Router/Receive"
kind = "end_to_end"
[[interval]]
name = "router"
from = "Router/Receive"
to = "Router/Forward"
[[interval]]
name = "router to detector"
from = "Router/Forward"
to = "Detector/FrameReceived"
kind = "end_to_end"
[[interval]]
name = "queue wait, worker 1"
from = "Detector/FrameReceived"
to = "Detector/Worker1Started"
[[interval]]
name = "queue wait, worker 2"
from = "Detector/FrameReceived"
to = "Detector/Worker2Started"
[[interval]]
name = "worker 1"
from = "Detector/Worker1Started"
to = "Detector/Worker1Done"
[[interval]]
name = "worker 2"
from = "Detector/Worker2Started"
to = "Detector/Worker2Done"
[[interval]]
name = "detector"
from = "Detector/FrameReceived"
to = "Detector/ResultSent"
[[interval]]
name = "result to tracker"
from = "Detector/ResultSent"
to = "Tracker/ResultReceived"
kind = "end_to_end"
[[interval]]
name = "frame to track"
from = "Camera/FrameSent"
to = "Tracker/Tracked"
kind = "end_to_end"
[[interval]]
name = "frame to acknowledgement"
from = "Camera/FrameSent"
to = "Camera/AckReceived"
kind = "end_to_end"
)";

// A clock's warp (hashtrace convert): t' = t + offset + drift (t - t0) + [t >= t0 + step_at] step.
struct Warp {
    double offset_ms = 0, drift_ppm = 0, step_ms = 0, step_at_s = 0;
    long long t0 = 0;  // the log's first sample, as convert prints it
    // The clock minus the reference's (the true clock) at true time t; after
    // the step when `stepped`, whatever t.
    double offset_ns(double t, bool stepped) const {
        return offset_ms * 1e6 + drift_ppm * 1e-6 * (t - static_cast<double>(t0)) + (stepped ? step_ms * 1e6 : 0);
    }
};

const std::map<std::string, Warp> kWarps = {
    {"Detector", {30, 200, 2, 2.0}}, {"Tracker", {-20, -150, 0, 0}}, {"Camera", {15, 300, 0, 0}}, {"Router", {}}};

class CombinedSystem : public ::testing::Test {
public:
    static std::string path(const std::string& name) { return (dir_->path() / name).string(); }
    static const Warp& warp(const std::string& node) { return warps_.at(node); }

protected:
    static void SetUpTestSuite() {
        dir_ = new hashtrace::test::TempDir;
        run_system();
        if (::testing::Test::HasFatalFailure()) return;
        warp_logs();
        std::ofstream(path("hand.toml")) << kHandWritten;
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }

    // The router, the tracker, the detector (work 1.5-2 ms a frame), then the
    // camera (a frame every 1 ms, 4 s).
    static void run_system() {
        const std::string node = shell_quote(COMBINED_NODE);
        const std::string body = node + " router logs router.port & r=$!; rp=$(wait_port router.port); " + node +
                                 " tracker logs tracker.port $rp & t=$!; tp=$(wait_port tracker.port); " + node +
                                 " detector logs $rp $tp 1500 & d=$!; " + node +
                                 " camera logs $rp 1000 4000 && wait $d && wait $t && wait $r";
        const auto r = hashtrace::test::run_node_script(dir_->path(), body);
        ASSERT_EQ(r.status, 0) << r.out;
    }

    // Every log into warped/, each node's as its clock (kWarps) would have stamped it.
    static void warp_logs() {
        fs::create_directories(path("warped"));
        for (const auto& e : fs::directory_iterator(path("logs"))) {
            const std::string name = e.path().filename().string();
            const std::string node = name.substr(0, name.find('-'));
            ASSERT_TRUE(kWarps.count(node)) << name;
            Warp& w = warps_[node];
            w = kWarps.at(node);
            const fs::path out = fs::path(path("warped")) / name;
            if (w.offset_ms == 0 && w.drift_ppm == 0) {
                fs::copy_file(e.path(), out);
                continue;
            }
            std::string cmd = shell_quote(HASHTRACE_EXE) + " convert " + shell_quote(e.path().string()) + " " + shell_quote(out.string()) +
                              " --warp-offset-ms " + std::to_string(w.offset_ms) + " --warp-drift-ppm " + std::to_string(w.drift_ppm);
            if (w.step_ms != 0) cmd += " --warp-step-ms " + std::to_string(w.step_ms) + " --warp-step-at-s " + std::to_string(w.step_at_s);
            const auto r = run_command(cmd + " 2>&1");
            ASSERT_EQ(r.status, 0) << r.out;
            const auto at = r.out.find("t0 = ");
            ASSERT_NE(at, std::string::npos) << r.out;
            w.t0 = std::stoll(r.out.substr(at + 5));
        }
        ASSERT_EQ(warps_.size(), 4u);
    }

    static nlohmann::json read_json(const std::string& name) { return nlohmann::json::parse(hashtrace::test::read_file(path(name))); }
    static std::string cli() { return shell_quote(HASHTRACE_EXE); }
    static nlohmann::json analyze(const std::string& logs, const std::string& json, const std::string& extra) {
        const auto r = run_command(cli() + " analyze " + shell_quote(path(logs)) + " --spec " + shell_quote(path("hand.toml")) + " --quiet --json " +
                                   shell_quote(path(json)) + " " + extra + " 2>&1");
        EXPECT_EQ(r.status, 0) << r.out;
        return read_json(json);
    }

    static inline hashtrace::test::TempDir* dir_ = nullptr;
    static inline std::map<std::string, Warp> warps_;
};

hashtrace::graph::SampleSet load(const std::string& logs) {
    return hashtrace::graph::load_samples(hashtrace::logio::find_logs({logs}));
}

// `infer --all-intervals` on `logs` (with `extra` options) writes a spec;
// how far it links as the hand-written one, on the true-clock logs.
struct Inferred {
    hashtrace::infer::SpecAgreement agreement;
    std::string text, out;
};
Inferred infer_spec(const std::string& logs, const std::string& extra) {
    const std::string file = CombinedSystem::path(logs + "-inferred.toml");
    const auto r = run_command(shell_quote(HASHTRACE_EXE) + " infer " + shell_quote(CombinedSystem::path(logs)) +
                               " --all-intervals --quiet --force -o " + shell_quote(file) + " " + extra + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    const auto samples = load(CombinedSystem::path("logs"));
    EXPECT_EQ(samples.node_names.size(), 4u);
    Inferred i{{}, hashtrace::test::read_file(file), r.out};
    i.agreement = hashtrace::infer::compare_specs(samples, hashtrace::graph::parse_spec(kHandWritten, "hand.toml"),
                                                  hashtrace::graph::parse_spec(i.text, file), hashtrace::graph::LinkOptions{});
    return i;
}

// Links with precision and recall >= 99.9 %, every hand-written interval reproduced.
void expect_hand_written(const Inferred& inferred) {
    const auto& a = inferred.agreement;
    EXPECT_GT(a.reference_links, 10'000u);
    EXPECT_GE(a.precision(), 0.999) << inferred.text;
    EXPECT_GE(a.recall(), 0.999) << inferred.text;
    std::printf("links: hand-written %llu, inferred %llu, common %llu: precision %.6f, recall %.6f\n",
                static_cast<unsigned long long>(a.reference_links), static_cast<unsigned long long>(a.other_links),
                static_cast<unsigned long long>(a.common_links), a.precision(), a.recall());
    for (const auto& i : a.intervals) {
        EXPECT_GT(i.reference_count, 500u) << i.name;
        const bool close = i.found && i.reference_count == i.other_count &&
                           std::fabs(i.other_mean_ms - i.reference_mean_ms) <= 0.01 * std::fabs(i.reference_mean_ms);
        EXPECT_TRUE(close) << i.name << ": " << i.reference_count << " " << i.reference_mean_ms << " vs " << i.other_count << " "
                           << i.other_mean_ms << "\n" << inferred.text;
        std::printf("  %-26s %6zu  mean %.4f ms  inferred: %6zu  mean %.4f ms\n", i.name.c_str(), i.reference_count, i.reference_mean_ms,
                    i.other_count, i.other_mean_ms);
    }
}

// From the true-clock logs, `infer --all-intervals` writes the spec a careful engineer would.
TEST_F(CombinedSystem, InferWritesTheHandWrittenSpec) {
    ASSERT_FALSE(HasFatalFailure());
    expect_hand_written(infer_spec("logs", ""));
}

// From the warped logs as well: by their clocks 40 % of the messages are
// received before they are sent, so infer estimates the clocks from the
// messages' journeys and corrects the samples first. Without that it does
// not write the hand-written spec (the warps are large enough to matter).
TEST_F(CombinedSystem, InferWritesTheHandWrittenSpecFromTheWarpedLogs) {
    ASSERT_FALSE(HasFatalFailure());
    const auto inferred = infer_spec("warped", "");
    EXPECT_NE(inferred.out.find("are received before they are sent: the clocks are estimated"), std::string::npos) << inferred.out;
    expect_hand_written(inferred);
    const auto uncorrected = infer_spec("warped", "--clock-correct none");
    EXPECT_LT(std::min(uncorrected.agreement.precision(), uncorrected.agreement.recall()), 0.999) << uncorrected.text;
    std::printf("uncorrected: precision %.6f, recall %.6f\n", uncorrected.agreement.precision(), uncorrected.agreement.recall());
}

// Every clock placed against the router's (with `extra` options), the truth
// inside every piece's bounds; the detector's step found as a second piece,
// on it alone.
void expect_clocks_placed(const std::string& extra) {
    const std::string json = CombinedSystem::path("estimate.json");
    const auto r = run_command(shell_quote(HASHTRACE_EXE) + " clock estimate " + shell_quote(CombinedSystem::path("warped")) + " " + extra +
                               " --reference Router --quiet --json " + shell_quote(json) + " 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto j = nlohmann::json::parse(hashtrace::test::read_file(json));
    ASSERT_EQ(j["clock_estimates"].size(), 4u) << j.dump();
    const double origin = j["origin_ns"].get<double>();
    for (const auto& e : j["clock_estimates"]) {
        const std::string node = e["node"];
        const Warp& w = CombinedSystem::warp(node);
        ASSERT_FALSE(e["offset_ns"].is_null()) << e.dump();
        ASSERT_EQ(e["pieces"].size(), w.step_ms != 0 ? 2u : 1u) << e.dump();
        for (std::size_t p = 0; p < e["pieces"].size(); ++p) {
            const auto& piece = e["pieces"][p];
            const double from = piece["from_ns"].get<double>(), truth = w.offset_ns(from, p > 0);
            ASSERT_FALSE(piece["offset_lo_ns"].is_null() || piece["offset_hi_ns"].is_null()) << e.dump();
            EXPECT_LE(piece["offset_lo_ns"].get<double>(), truth) << node << " piece " << p << ": " << e.dump();
            EXPECT_GE(piece["offset_hi_ns"].get<double>(), truth) << node << " piece " << p << ": " << e.dump();
            std::printf("%-9s piece from %+.3f s: offset error %+.2f us, bounds %.1f us wide, drift error %+.3f ppm\n", node.c_str(),
                        (from - origin) * 1e-9, (piece["offset_ns"].get<double>() - truth) * 1e-3,
                        (piece["offset_hi_ns"].get<double>() - piece["offset_lo_ns"].get<double>()) * 1e-3,
                        piece["drift_ppm"].get<double>() - w.drift_ppm);
        }
        // 4 s of messages pin a rate to 2 ppm; a stepped clock's 2 s pieces,
        // with the messages' jitter of a loaded machine, to less (2.64 ppm
        // seen beside two busy loops; the bounds held).
        EXPECT_NEAR(e["drift_ppm"].get<double>(), w.drift_ppm, w.step_ms != 0 ? 5.0 : 2.0) << e.dump();
        if (w.step_ms != 0) {  // near where it happened: a stall of the messages around it widens the span a step may lie in
            const double step_at = static_cast<double>(w.t0) + w.step_at_s * 1e9, found = e["pieces"][1]["from_ns"].get<double>();
            EXPECT_NEAR(found, step_at, 300e6) << e.dump();
            std::printf("%s: the step found %+.1f ms from where it happened\n", node.c_str(), (found - step_at) * 1e-6);
        }
    }
}

TEST_F(CombinedSystem, ClockEstimatePlacesEveryClockAndFindsTheStepOnTheDetectorAlone) {
    ASSERT_FALSE(HasFatalFailure());
    expect_clocks_placed("--spec " + shell_quote(CombinedSystem::path("hand.toml")));
}

// Without a spec the same, from the message pairs the hashes' journeys show:
// the five hand-written pairs that cross instances, through the router both ways.
TEST_F(CombinedSystem, ClockEstimateWithoutASpecPlacesEveryClockFromTheMessagesJourneys) {
    ASSERT_FALSE(HasFatalFailure());
    expect_clocks_placed("");
    const auto r = run_command(shell_quote(HASHTRACE_EXE) + " clock estimate " + shell_quote(CombinedSystem::path("warped")) +
                               " --quiet 2>&1 >/dev/null");
    EXPECT_NE(r.out.find("from the 5 message pairs the hashes' journeys show"), std::string::npos) << r.out;
    for (const char* pair : {"Camera/FrameSent -> Router/Receive", "Router/Forward -> Detector/FrameReceived",
                             "Detector/ResultSent -> Tracker/ResultReceived", "Tracker/AckSent -> Router/Receive",
                             "Router/Forward -> Camera/AckReceived"})
        EXPECT_NE(r.out.find(pair), std::string::npos) << pair << "\n" << r.out;
}

// The corrected analysis of the warped logs counts what the true-clock run
// counts: every link and every interval's instances. Without the correction
// it does not (the warps are large enough to matter).
TEST_F(CombinedSystem, TheCorrectedAnalysisCountsWhatTheTrueClockRunCounts) {
    ASSERT_FALSE(HasFatalFailure());
    const auto truth = analyze("logs", "truth.json", "");
    const auto corrected = analyze("warped", "corrected.json", "--clock-correct edges --reference Router");
    const auto uncorrected = analyze("warped", "uncorrected.json", "");
    EXPECT_EQ(corrected["edges"], truth["edges"]);
    EXPECT_EQ(corrected["message_edges"], truth["message_edges"]);
    EXPECT_EQ(corrected["unlinked_inputs"], truth["unlinked_inputs"]);
    EXPECT_LT(uncorrected["message_edges"].get<std::int64_t>(), truth["message_edges"].get<std::int64_t>());
    ASSERT_EQ(corrected["intervals"].size(), truth["intervals"].size());
    for (std::size_t i = 0; i < truth["intervals"].size(); ++i) {
        const auto &t = truth["intervals"][i], &c = corrected["intervals"][i];
        EXPECT_EQ(c["name"], t["name"]);
        EXPECT_EQ(c["count"], t["count"]) << t["name"];
        EXPECT_GT(t["count"].get<std::int64_t>(), 500) << t["name"];
        std::printf("  %-26s true clocks: %6lld  mean %.4f ms   corrected: %6lld  mean %.4f ms\n", t["name"].get<std::string>().c_str(),
                    static_cast<long long>(t["count"].get<std::int64_t>()), t["mean_ms"].get<double>(),
                    static_cast<long long>(c["count"].get<std::int64_t>()), c["mean_ms"].get<double>());
    }
    const auto& edges = corrected["clock_edges"];
    std::printf("corrected run: tolerance %lld ns, %lld links admitted inside the bounds\n",
                static_cast<long long>(edges["link_tolerance_ns"].get<std::int64_t>()),
                static_cast<long long>(edges["links_admitted_within_bounds"].get<std::int64_t>()));
}

// Without a spec, `analyze --clock-correct edges` on the warped logs links
// as `analyze` on the true-clock logs does: the clocks from the messages'
// journeys, the structure inferred with the tolerance given (within the
// bounds' width a pass-through hop's reverse would link too), then linked
// within the bounds. Without the correction it warns that the clocks disagree.
TEST_F(CombinedSystem, WithoutASpecTheCorrectedAnalysisLinksAsTheTrueClockRun) {
    ASSERT_FALSE(HasFatalFailure());
    const auto specless = [](const std::string& logs, const std::string& json, const std::string& extra) {
        const auto r = run_command(cli() + " analyze " + shell_quote(path(logs)) + " --quiet --json " + shell_quote(path(json)) + " " + extra + " 2>&1");
        EXPECT_EQ(r.status, 0) << r.out;
        return std::pair{read_json(json), r.out};
    };
    const auto [truth, truth_out] = specless("logs", "specless-truth.json", "");
    const auto [corrected, corrected_out] = specless("warped", "specless-corrected.json", "--clock-correct edges --reference Router");
    const auto [uncorrected, uncorrected_out] = specless("warped", "specless-uncorrected.json", "");
    EXPECT_EQ(truth_out.find("received before they are sent"), std::string::npos) << truth_out;
    EXPECT_NE(uncorrected_out.find("received before they are sent: the structure inferred from them is wrong"), std::string::npos)
        << uncorrected_out;
    EXPECT_LT(uncorrected["message_edges"].get<std::int64_t>(), truth["message_edges"].get<std::int64_t>());
    for (const char* key : {"edges", "message_edges", "unlinked_inputs"}) EXPECT_EQ(corrected[key], truth[key]) << key;
    ASSERT_EQ(corrected["intervals"].size(), truth["intervals"].size());
    for (std::size_t i = 0; i < truth["intervals"].size(); ++i) {
        EXPECT_EQ(corrected["intervals"][i]["name"], truth["intervals"][i]["name"]);
        EXPECT_EQ(corrected["intervals"][i]["count"], truth["intervals"][i]["count"]) << truth["intervals"][i]["name"];
    }
}

}  // namespace
