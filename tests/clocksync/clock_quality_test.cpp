#include "hashtrace/clocksync/clock_quality.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace hc = hashtrace::clocksync;
namespace fs = std::filesystem;

namespace {
constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kSecond = 1'000'000'000;

hc::ClockRecord rec(std::int64_t k, std::string state, std::optional<std::int64_t> offset,
                    hc::ClockSource source = hc::ClockSource::ptp) {
    return {kT0 + k * kSecond, "lab", source, std::move(state), offset, {}, {}, {}};
}

fs::path fresh_dir(const std::string& name) {
    auto dir = fs::temp_directory_path() / ("hashtrace_cq_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void write_clock_file(const fs::path& file, const std::vector<hc::ClockRecord>& records) {
    hc::ClockRecordWriter writer(file);
    for (const auto& r : records) writer.write(r);
}
}  // namespace

TEST(FitCorrection, RecoversOffsetAndDriftAndIgnoresUnusableRecords) {
    std::vector<hc::ClockRecord> records{rec(0, "LISTENING", {}), rec(1, "NO_DAEMON", {})};
    for (int k = 2; k < 12; ++k) records.push_back(rec(k, "UNCALIBRATED", 1'000 + 500 * k));
    records.push_back(rec(12, "FAULTY", 99'999'999));  // an offset in a state that is not measuring: ignored
    const auto fit = hc::fit_correction(records);
    ASSERT_TRUE(fit);
    EXPECT_NEAR(fit->offset_at(kT0), 1'000, 1e-6);
    EXPECT_NEAR(fit->drift_ppb, 500, 1e-9);
    // A local stamp 2 s in is 2000 ns ahead of the reference.
    EXPECT_EQ(fit->corrected(kT0 + 2 * kSecond), kT0 + 2 * kSecond - 2'000);

    EXPECT_FALSE(hc::fit_correction({rec(0, "MASTER", {}), rec(1, "LISTENING", {})}).has_value());
    const auto single = hc::fit_correction({rec(3, "SLAVE", -40)});
    ASSERT_TRUE(single);
    EXPECT_EQ(single->corrected(kT0), kT0 + 40);  // one record: a constant offset
}

TEST(SummarizeTrack, CountsStatesBoundsAndUnsynchronisedSpans) {
    std::vector<hc::ClockRecord> records{rec(0, "LISTENING", {}), rec(1, "LISTENING", {})};
    for (int k = 2; k < 6; ++k) records.push_back(rec(k, "SLAVE", k % 2 ? 300 : -100));
    records.push_back(rec(6, "NO_DAEMON", {}));
    records.push_back(rec(7, "SLAVE", 100));
    const auto r = hc::summarize_track("clock-lab.htclock", records);
    EXPECT_EQ(r.records, 8u);
    EXPECT_EQ(r.locked, 5u);
    EXPECT_EQ(r.unknown, 3u);
    EXPECT_FALSE(r.is_reference);
    EXPECT_EQ(r.max_abs_offset_ns, 300);
    EXPECT_EQ(r.error_bound_ns, 300);
    EXPECT_NEAR(*r.rms_offset_ns, std::sqrt((2 * 300.0 * 300 + 3 * 100.0 * 100) / 5), 1e-9);
    ASSERT_TRUE(r.corrected_error_bound_ns);
    EXPECT_LE(*r.corrected_error_bound_ns, 300);
    ASSERT_EQ(r.unsynchronised.size(), 2u);
    EXPECT_EQ(r.unsynchronised[0], std::make_pair(kT0, kT0 + 2 * kSecond));
    EXPECT_EQ(r.unsynchronised[1], std::make_pair(kT0 + 6 * kSecond, kT0 + 7 * kSecond));
}

TEST(SummarizeTrack, GrandmasterIsTheReferenceAndNothingMeasuredIsUnknown) {
    const auto gm = hc::summarize_track("gm", {rec(0, "LISTENING", {}), rec(1, "MASTER", {}), rec(2, "MASTER", {})});
    EXPECT_TRUE(gm.is_reference);
    EXPECT_EQ(gm.error_bound_ns, 0);
    EXPECT_FALSE(gm.correction.has_value());

    const auto lost = hc::summarize_track("x", {rec(0, "LISTENING", {}), rec(1, "NO_DAEMON", {})});
    EXPECT_FALSE(lost.is_reference);
    EXPECT_FALSE(lost.error_bound_ns.has_value());
}

TEST(SummarizeTrack, CorrectionShrinksTheBoundOfAFreeRunningClock) {
    std::vector<hc::ClockRecord> records;
    for (int k = 0; k < 60; ++k) records.push_back(rec(k, "UNCALIBRATED", 2'000'000 + 10'000 * k + (k % 2 ? 500 : -500)));
    const auto r = hc::summarize_track("fo", records);
    EXPECT_EQ(r.error_bound_ns, 2'000'000 + 10'000 * 59 + 500);
    EXPECT_LE(*r.corrected_error_bound_ns, 600);  // the alternating +-500 ns is all that is left
    EXPECT_NEAR(r.correction->drift_ppb, 10'000, 5);
}

TEST(RecordsInWindow, KeepsTheNeighboursOfTheWindow) {
    std::vector<hc::ClockRecord> records;
    for (int k = 0; k < 10; ++k) records.push_back(rec(k, "SLAVE", k));
    const auto kept = hc::records_in_window(records, kT0 + 3 * kSecond + 1, kT0 + 5 * kSecond + 1);
    ASSERT_EQ(kept.size(), 4u);  // 3 (in force at the start), 4, 5, 6 (the next after the end)
    EXPECT_EQ(kept.front().offset_ns, 3);
    EXPECT_EQ(kept.back().offset_ns, 6);
    EXPECT_EQ(hc::records_in_window(records, kT0 - kSecond, kT0 + 20 * kSecond).size(), 10u);
}

TEST(LoadRunClocks, AppliesEachDirectorysClockFileToItsLogs) {
    const auto root = fresh_dir("run");
    for (const char* d : {"a", "b", "c", "d"}) fs::create_directories(root / d);
    write_clock_file(hc::clock_file_path(root / "a", "a"), {rec(0, "SLAVE", 10), rec(1, "SLAVE", 20)});
    // c: a ptp and a pps file: ambiguous. d: a damaged clock file.
    write_clock_file(hc::clock_file_path(root / "c", "c1"), {rec(0, "SLAVE", 10)});
    write_clock_file(hc::clock_file_path(root / "c", "c2"), {rec(0, "LOCKED", 10, hc::ClockSource::pps)});
    std::ofstream(root / "d" / "clock-d.htclock") << hc::kClockFileHeader << "\n12,d,ptp,SLAVE,oops,,,\n";
    const std::vector<fs::path> logs{root / "a" / "n1.csv", root / "a" / "n2.csv", root / "b" / "n3.csv",
                                     root / "c" / "n4.csv", root / "d" / "n5.csv"};
    const auto run = hc::load_run_clocks(logs, kT0, kT0 + 10 * kSecond);
    ASSERT_EQ(run.report_of_log.size(), 5u);
    ASSERT_TRUE(run.report_of_log[0]);
    EXPECT_EQ(run.report_of_log[0], run.report_of_log[1]);
    EXPECT_EQ(run.reports[*run.report_of_log[0]].host, "lab");
    EXPECT_EQ(run.reports[*run.report_of_log[0]].error_bound_ns, 20);
    EXPECT_FALSE(run.report_of_log[2]);  // no clock file
    EXPECT_FALSE(run.report_of_log[3]);  // ambiguous
    EXPECT_FALSE(run.report_of_log[4]);  // unreadable
    ASSERT_EQ(run.problems.size(), 2u);
    EXPECT_NE(run.problems[0].find("ambiguous"), std::string::npos) << run.problems[0];
    EXPECT_NE(run.problems[1].find("clock-d.htclock:2: offset_ns 'oops'"), std::string::npos) << run.problems[1];
    fs::remove_all(root);
}

TEST(LoadRunClocks, SortsRecordsAClockStepSentBack) {
    const auto root = fresh_dir("stepped");
    // Written in this order: the clock was stepped back 5 s after the second record.
    write_clock_file(hc::clock_file_path(root, "s"), {rec(6, "UNCALIBRATED", 5'000'000'000), rec(7, "UNCALIBRATED", 5'000'000'000),
                                                      rec(3, "SLAVE", 10), rec(4, "SLAVE", 20)});
    const auto run = hc::load_run_clocks({root / "n.csv"}, kT0, kT0 + 10 * kSecond);
    ASSERT_TRUE(run.report_of_log[0]);
    const auto& r = run.reports[*run.report_of_log[0]];
    EXPECT_EQ(r.first_ns, kT0 + 3 * kSecond);
    EXPECT_EQ(r.last_ns, kT0 + 7 * kSecond);
    EXPECT_EQ(r.records, 4u);
    fs::remove_all(root);
}

TEST(FormatDuration, PicksAReadableUnit) {
    EXPECT_EQ(hc::format_duration_ns(450), "450 ns");
    EXPECT_EQ(hc::format_duration_ns(2'300), "2.3 us");
    EXPECT_EQ(hc::format_duration_ns(-1'200'000), "-1.20 ms");
}
