// hashtrace/clocksync/clock_quality.hpp - what the clock records of a run say:
// each node's sync error over the run, and a per-log offset + drift correction.
//
// Rule: a clock file (clock-<host>.htclock) applies to every log in its
// directory. A directory with more than one clock track (two files, or one
// file holding both ptp and pps records) is ambiguous and gets no correction.
//
// Error bound of a track over the run window: 0 for a PTP grandmaster (it is
// the reference); otherwise the largest |offset_ns| recorded (locked or
// measuring). After correction: the largest distance of a recorded offset
// from the fitted offset + drift line. Neither includes what no record can
// see, such as PTP path asymmetry.
#pragma once

#include "hashtrace/clocksync/clock_record.hpp"

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hashtrace::clocksync {

// offset(t) = offset_ns + drift_ppb * (t - t0) / 1e9 (local minus reference).
struct LinearCorrection {
    std::int64_t t0_ns = 0;
    double offset_ns = 0;
    double drift_ppb = 0;

    double offset_at(std::int64_t t_ns) const noexcept {
        return offset_ns + drift_ppb * static_cast<double>(t_ns - t0_ns) * 1e-9;
    }
    // The reference time of a local timestamp.
    std::int64_t corrected(std::int64_t t_ns) const noexcept { return t_ns - std::llround(offset_at(t_ns)); }
};

// Least-squares line through the records that carry an offset (locked or
// measuring); nullopt when none do. One record gives a constant offset.
std::optional<LinearCorrection> fit_correction(const std::vector<ClockRecord>& records);

struct SyncErrorReport {
    std::string host;
    std::filesystem::path file;
    ClockSource source = ClockSource::ptp;
    std::int64_t first_ns = 0, last_ns = 0;
    std::size_t records = 0, reference = 0, locked = 0, measuring = 0, unknown = 0;
    std::optional<double> rms_offset_ns;
    std::optional<std::int64_t> max_abs_offset_ns;
    bool is_reference = false;                        // every record with a known status is the reference
    std::optional<std::int64_t> error_bound_ns;       // nullopt: nothing measured, error unknown
    std::optional<LinearCorrection> correction;       // none for the reference or without offsets
    std::optional<std::int64_t> corrected_error_bound_ns;
    std::vector<std::pair<std::int64_t, std::int64_t>> unsynchronised;  // spans of records with unknown status
};

// Pure: the report of one track's records (all of one source), in time order.
SyncErrorReport summarize_track(const std::filesystem::path& file, const std::vector<ClockRecord>& records);

// Keeps the records inside [first_ns, last_ns] plus the nearest one on each
// side (the state in force when the run began and the one that ended it).
std::vector<ClockRecord> records_in_window(const std::vector<ClockRecord>& records, std::int64_t first_ns, std::int64_t last_ns);

// The clock-*.htclock files directly in `dir`, sorted.
std::vector<std::filesystem::path> find_clock_files(const std::filesystem::path& dir);

// One report per source in the file, over [first_ns, last_ns] (see
// records_in_window). Throws ClockFileError for a malformed file.
std::vector<SyncErrorReport> summarize_clock_file(const std::filesystem::path& file, std::int64_t first_ns, std::int64_t last_ns);

struct RunClocks {
    std::vector<SyncErrorReport> reports;
    std::vector<std::optional<std::size_t>> report_of_log;  // per log file given: the report that applies
    std::vector<std::string> problems;                      // ambiguous directories, unreadable clock files
};

// Reads the clock files in the directories of `log_files` and summarizes them
// over [first_ns, last_ns] (the run's window).
RunClocks load_run_clocks(const std::vector<std::filesystem::path>& log_files, std::int64_t first_ns, std::int64_t last_ns);

// One line for people: states, offsets, drift, error bound (after correction
// when `corrected`), unsynchronised spans.
std::string describe_report(const SyncErrorReport& report, bool corrected);

// "2.3 us", "450 ns", "1.20 ms": for reports.
std::string format_duration_ns(double ns);

}  // namespace hashtrace::clocksync
