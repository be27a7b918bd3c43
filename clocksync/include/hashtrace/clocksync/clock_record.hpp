// hashtrace/clocksync/clock_record.hpp - clock-quality records: how well a
// node's clock agreed with the reference while a run was recorded.
//
// File: `clock-<host>.htclock` in a node's log directory. A clock file applies
// to every sample log in the same directory. (The extension is not `.csv` so
// tools that collect `*.csv` sample logs do not mistake it for one.)
//
//   # hashtrace clock-quality records v1
//   time_ns,host,source,state,offset_ns,path_delay_ns,freq_ppb,jitter_ns
//   1700000000123456789,lab-pc-2,ptp,SLAVE,-812,2431,-10210.5,
//
// time_ns        CLOCK_REALTIME of the local clock when the record was taken (UTC ns)
// host           the machine whose clock this is
// source         "ptp" (linuxptp) or "pps"
// state          ptp: the port state ptp4l reports (SLAVE, UNCALIBRATED, LISTENING,
//                MASTER, FAULTY, ...) or NO_DAEMON when ptp4l did not answer;
//                pps: ACQUIRING, TRACKING (measuring only), UNLOCKED, LOCKED, STEPPED, NO_SIGNAL
// offset_ns      local clock minus reference clock, ns; empty when not measured
// path_delay_ns  ptp: mean path delay, ns; empty for pps or when not measured
// freq_ppb       ptp: the system clock's frequency adjustment (adjtimex), ppb;
//                pps: the estimated drift of the local clock, ns/s (= ppb)
// jitter_ns      pps: rms of the edge phases around the fitted trend, ns; empty for ptp
//
// Empty fields mean "not known", never zero. Records are in the order written:
// after a clock step time_ns may go backwards, so readers sort by time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::clocksync {

enum class ClockSource : std::uint8_t { ptp, pps };

struct ClockRecord {
    std::int64_t time_ns = 0;
    std::string host;
    ClockSource source = ClockSource::ptp;
    std::string state;
    std::optional<std::int64_t> offset_ns;
    std::optional<std::int64_t> path_delay_ns;
    std::optional<double> freq_ppb;
    std::optional<std::int64_t> jitter_ns;

    friend bool operator==(const ClockRecord&, const ClockRecord&) = default;
};

// How a record's state counts for the analysis.
enum class SyncStatus : std::uint8_t {
    reference,  // this clock is the reference (PTP grandmaster): error 0 by definition
    locked,     // disciplined and locked to the reference; offset_ns is the residual error
    measuring,  // the offset is measured but the clock is not (yet) locked to it
    unknown,    // no usable measurement: not following a master, no daemon, no signal
};
SyncStatus sync_status(const ClockRecord& record) noexcept;

// Bad records: message "file:line: reason".
class ClockFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::string_view to_string(ClockSource source) noexcept;

inline constexpr std::string_view kClockFileHeader =
    "time_ns,host,source,state,offset_ns,path_delay_ns,freq_ppb,jitter_ns";
inline constexpr std::string_view kClockFileExtension = ".htclock";

std::string format_clock_record(const ClockRecord& record);  // one line, with '\n'
std::vector<ClockRecord> parse_clock_records(std::string_view text, const std::string& name);
std::vector<ClockRecord> load_clock_records(const std::filesystem::path& file);

// `<dir>/clock-<host>.htclock`
std::filesystem::path clock_file_path(const std::filesystem::path& log_dir, const std::string& host);

// Appends records to a clock file, one flushed line per record, so a crash
// loses at most the record being written. Creates the file (with the header)
// if needed; refuses a file whose header is not ours.
class ClockRecordWriter {
public:
    explicit ClockRecordWriter(std::filesystem::path file);
    ~ClockRecordWriter();
    ClockRecordWriter(const ClockRecordWriter&) = delete;
    ClockRecordWriter& operator=(const ClockRecordWriter&) = delete;

    void write(const ClockRecord& record);  // throws ClockFileError on I/O failure
    const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

}  // namespace hashtrace::clocksync
