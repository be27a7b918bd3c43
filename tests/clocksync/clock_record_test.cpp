#include "hashtrace/clocksync/clock_record.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hc = hashtrace::clocksync;

namespace {
std::filesystem::path fresh_dir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("hashtrace_clock_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void expect_error(const std::string& text, const std::string& fragment) {
    try {
        hc::parse_clock_records(text, "clock-a.htclock");
        ADD_FAILURE() << "no error for: " << text;
    } catch (const hc::ClockFileError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}
}  // namespace

TEST(ClockRecord, FormatThenParseKeepsEmptyFieldsEmpty) {
    hc::ClockRecord full{1'700'000'000'123'456'789, "lab-2", hc::ClockSource::ptp, "SLAVE", -812, 2431, -10210.5, {}};
    hc::ClockRecord sparse{1'700'000'001'000'000'000, "lab-2", hc::ClockSource::pps, "NO_SIGNAL", {}, {}, {}, {}};
    const std::string text = std::string(hc::kClockFileHeader) + "\n" + hc::format_clock_record(full) + hc::format_clock_record(sparse);
    EXPECT_EQ(hc::format_clock_record(sparse), "1700000001000000000,lab-2,pps,NO_SIGNAL,,,,\n");
    const auto records = hc::parse_clock_records(text, "t");
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0], full);
    EXPECT_EQ(records[1], sparse);
}

TEST(ClockRecord, RejectsMalformedLinesWithFileLineAndReason) {
    const std::string header = std::string(hc::kClockFileHeader) + "\n";
    expect_error("time,host\n", "clock-a.htclock:1: expected the header");
    expect_error(header + "12,a,ptp,SLAVE,1,2,3\n", "clock-a.htclock:2: expected 8 fields, found 7");
    expect_error(header + "12,a,ntp,SLAVE,1,2,3,\n", "clock-a.htclock:2: source 'ntp'");
    expect_error(header + "12,a,ptp,SLAVE,1x,2,3,\n", "clock-a.htclock:2: offset_ns '1x'");
    expect_error(header + "12,a,ptp,,1,2,3,\n", "clock-a.htclock:2: state is empty");
    expect_error(header + "12,a,ptp,SLAVE,1,2,nan,\n", "clock-a.htclock:2: freq_ppb 'nan' is not a finite number");
    expect_error(header + "12,a,ptp,SLAVE,1,2,-inf,\n", "clock-a.htclock:2: freq_ppb '-inf' is not a finite number");
    expect_error("# only a comment\n", "no header line");
}

TEST(ClockRecord, KeepsRecordsInFileOrderEvenWhenAStepSentTimeBack) {
    // A clock stepped back by 5 s between two records: both are kept, as written.
    const auto records = hc::parse_clock_records(std::string(hc::kClockFileHeader) +
                                                     "\n9000000000,a,ptp,SLAVE,1,2,3,\n5000000000,a,ptp,SLAVE,1,2,3,\n", "t");
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[1].time_ns, 5'000'000'000);
}

TEST(ClockRecord, SyncStatusFollowsStateAndMeasurement) {
    auto status = [](hc::ClockSource source, std::string state, std::optional<std::int64_t> offset) {
        return hc::sync_status({1, "h", source, std::move(state), offset, {}, {}, {}});
    };
    EXPECT_EQ(status(hc::ClockSource::ptp, "MASTER", {}), hc::SyncStatus::reference);
    EXPECT_EQ(status(hc::ClockSource::ptp, "SLAVE", 10), hc::SyncStatus::locked);
    EXPECT_EQ(status(hc::ClockSource::ptp, "SLAVE", {}), hc::SyncStatus::unknown);
    EXPECT_EQ(status(hc::ClockSource::ptp, "UNCALIBRATED", 10), hc::SyncStatus::measuring);
    EXPECT_EQ(status(hc::ClockSource::ptp, "LISTENING", {}), hc::SyncStatus::unknown);
    EXPECT_EQ(status(hc::ClockSource::ptp, "NO_DAEMON", {}), hc::SyncStatus::unknown);
    EXPECT_EQ(status(hc::ClockSource::pps, "LOCKED", 3), hc::SyncStatus::locked);
    EXPECT_EQ(status(hc::ClockSource::pps, "TRACKING", 3), hc::SyncStatus::measuring);
    EXPECT_EQ(status(hc::ClockSource::pps, "ACQUIRING", 3), hc::SyncStatus::measuring);
    EXPECT_EQ(status(hc::ClockSource::pps, "ACQUIRING", {}), hc::SyncStatus::unknown);
    EXPECT_EQ(status(hc::ClockSource::pps, "NO_SIGNAL", {}), hc::SyncStatus::unknown);
}

TEST(ClockRecordWriter, AppendsAcrossWritersAndRefusesForeignFiles) {
    const auto dir = fresh_dir("writer");
    const auto path = hc::clock_file_path(dir, "lab-1");
    EXPECT_EQ(path.filename(), "clock-lab-1.htclock");
    hc::ClockRecord r{10, "lab-1", hc::ClockSource::ptp, "SLAVE", 5, 100, 1.5, {}};
    { hc::ClockRecordWriter(path).write(r); }
    r.time_ns = 20;
    { hc::ClockRecordWriter(path).write(r); }  // a restarted monitor appends
    const auto records = hc::load_clock_records(path);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[1].time_ns, 20);

    hc::ClockRecordWriter writer(path);
    r.host = "bad,host";
    EXPECT_THROW(writer.write(r), hc::ClockFileError);

    const auto foreign = dir / "clock-other.htclock";
    std::ofstream(foreign) << "node_name,instance\n";
    EXPECT_THROW(hc::ClockRecordWriter{foreign}, hc::ClockFileError);
    std::filesystem::remove_all(dir);
}
