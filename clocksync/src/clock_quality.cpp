#include "hashtrace/clocksync/clock_quality.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace hashtrace::clocksync {
namespace {

bool has_usable_offset(const ClockRecord& r) {
    const SyncStatus s = sync_status(r);
    return r.offset_ns && (s == SyncStatus::locked || s == SyncStatus::measuring);
}

}  // namespace

std::vector<std::filesystem::path> find_clock_files(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name.starts_with("clock-") && entry.path().extension() == kClockFileExtension)
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

namespace {

std::string percent(std::size_t part, std::size_t whole) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.0f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buffer;
}

}  // namespace

std::optional<LinearCorrection> fit_correction(const std::vector<ClockRecord>& records) {
    std::vector<const ClockRecord*> usable;
    for (const auto& r : records)
        if (has_usable_offset(r)) usable.push_back(&r);
    if (usable.empty()) return std::nullopt;
    LinearCorrection fit;
    fit.t0_ns = usable.front()->time_ns;
    double sum_x = 0, sum_y = 0;
    for (const auto* r : usable) {
        sum_x += static_cast<double>(r->time_ns - fit.t0_ns) * 1e-9;
        sum_y += static_cast<double>(*r->offset_ns);
    }
    const double n = static_cast<double>(usable.size());
    const double mean_x = sum_x / n, mean_y = sum_y / n;
    double sxx = 0, sxy = 0;
    for (const auto* r : usable) {
        const double dx = static_cast<double>(r->time_ns - fit.t0_ns) * 1e-9 - mean_x;
        sxx += dx * dx;
        sxy += dx * (static_cast<double>(*r->offset_ns) - mean_y);
    }
    fit.drift_ppb = sxx > 0 ? sxy / sxx : 0.0;
    fit.offset_ns = mean_y - fit.drift_ppb * mean_x;
    return fit;
}

std::vector<ClockRecord> records_in_window(const std::vector<ClockRecord>& records, std::int64_t first_ns, std::int64_t last_ns) {
    const auto begin = std::lower_bound(records.begin(), records.end(), first_ns,
                                        [](const ClockRecord& r, std::int64_t t) { return r.time_ns < t; });
    const auto end = std::upper_bound(records.begin(), records.end(), last_ns,
                                      [](std::int64_t t, const ClockRecord& r) { return t < r.time_ns; });
    return {begin == records.begin() ? begin : begin - 1, end == records.end() ? end : end + 1};
}

SyncErrorReport summarize_track(const std::filesystem::path& file, const std::vector<ClockRecord>& records) {
    SyncErrorReport report;
    report.file = file;
    report.records = records.size();
    if (records.empty()) return report;
    report.host = records.front().host;
    report.source = records.front().source;
    report.first_ns = records.front().time_ns;
    report.last_ns = records.back().time_ns;

    double sum_sq = 0;
    std::size_t with_offset = 0;
    std::int64_t max_abs = 0;
    // A plain flag + time (not std::optional): GCC 12 misreports optional<int64_t> here.
    bool in_unknown = false;
    std::int64_t unknown_since = 0;
    for (const auto& r : records) {
        switch (sync_status(r)) {
            case SyncStatus::reference: ++report.reference; break;
            case SyncStatus::locked: ++report.locked; break;
            case SyncStatus::measuring: ++report.measuring; break;
            case SyncStatus::unknown: ++report.unknown; break;
        }
        if (sync_status(r) == SyncStatus::unknown) {
            if (!in_unknown) unknown_since = r.time_ns;
            in_unknown = true;
        } else if (in_unknown) {
            report.unsynchronised.emplace_back(unknown_since, r.time_ns);
            in_unknown = false;
        }
        if (has_usable_offset(r)) {
            sum_sq += static_cast<double>(*r.offset_ns) * static_cast<double>(*r.offset_ns);
            max_abs = std::max<std::int64_t>(max_abs, std::llabs(*r.offset_ns));
            ++with_offset;
        }
    }
    if (in_unknown) report.unsynchronised.emplace_back(unknown_since, records.back().time_ns);

    report.is_reference = report.reference > 0 && report.locked == 0 && report.measuring == 0;
    if (report.is_reference) {
        report.error_bound_ns = 0;
        report.corrected_error_bound_ns = 0;
        return report;
    }
    if (with_offset == 0) return report;
    report.rms_offset_ns = std::sqrt(sum_sq / static_cast<double>(with_offset));
    report.max_abs_offset_ns = max_abs;
    report.error_bound_ns = max_abs;
    report.correction = fit_correction(records);
    double max_residual = 0;
    for (const auto& r : records)
        if (has_usable_offset(r))
            max_residual = std::max(max_residual, std::abs(static_cast<double>(*r.offset_ns) - report.correction->offset_at(r.time_ns)));
    report.corrected_error_bound_ns = std::llround(std::ceil(max_residual));
    return report;
}

std::vector<SyncErrorReport> summarize_clock_file(const std::filesystem::path& file, std::int64_t first_ns, std::int64_t last_ns) {
    std::vector<ClockRecord> records = load_clock_records(file);
    // A step of the clock can send time_ns back; the window and spans need time order.
    std::stable_sort(records.begin(), records.end(),
                     [](const ClockRecord& a, const ClockRecord& b) { return a.time_ns < b.time_ns; });
    std::vector<SyncErrorReport> reports;
    for (ClockSource source : {ClockSource::ptp, ClockSource::pps}) {
        std::vector<ClockRecord> of_source;
        for (const auto& r : records)
            if (r.source == source) of_source.push_back(r);
        if (!of_source.empty()) reports.push_back(summarize_track(file, records_in_window(of_source, first_ns, last_ns)));
    }
    return reports;
}

RunClocks load_run_clocks(const std::vector<std::filesystem::path>& log_files, std::int64_t first_ns, std::int64_t last_ns) {
    RunClocks run;
    run.report_of_log.resize(log_files.size());
    std::map<std::filesystem::path, std::optional<std::size_t>> report_of_dir;
    for (std::size_t i = 0; i < log_files.size(); ++i) {
        const auto dir = log_files[i].parent_path().empty() ? std::filesystem::path(".") : log_files[i].parent_path();
        auto found = report_of_dir.find(dir);
        if (found == report_of_dir.end()) {
            std::vector<std::size_t> tracks;
            for (const auto& file : find_clock_files(dir)) {
                try {
                    for (auto& report : summarize_clock_file(file, first_ns, last_ns)) {
                        run.reports.push_back(std::move(report));
                        tracks.push_back(run.reports.size() - 1);
                    }
                } catch (const ClockFileError& e) {
                    run.problems.push_back(e.what());
                }
            }
            std::optional<std::size_t> applies;
            if (tracks.size() == 1) applies = tracks.front();
            if (tracks.size() > 1)
                run.problems.push_back(dir.string() + ": " + std::to_string(tracks.size()) +
                                       " clock tracks (files or sources) in one directory: which clock stamped its logs "
                                       "is ambiguous, so none is applied; keep one per node directory");
            found = report_of_dir.emplace(dir, applies).first;
        }
        run.report_of_log[i] = found->second;
    }
    return run;
}

std::string format_duration_ns(double ns) {
    char buffer[64];
    const double a = std::abs(ns);
    if (a < 1e3) std::snprintf(buffer, sizeof buffer, "%.0f ns", ns);
    else if (a < 1e6) std::snprintf(buffer, sizeof buffer, "%.1f us", ns / 1e3);
    else if (a < 1e9) std::snprintf(buffer, sizeof buffer, "%.2f ms", ns / 1e6);
    else std::snprintf(buffer, sizeof buffer, "%.3f s", ns / 1e9);
    return buffer;
}

std::string describe_report(const SyncErrorReport& r, bool corrected) {
    std::string line = r.host + " (" + std::string(to_string(r.source)) + ", " + r.file.filename().string() + "): " +
                       std::to_string(r.records) + " records";
    if (r.is_reference) return line + ", reference clock (PTP grandmaster): error 0";
    line += "; locked " + percent(r.locked, r.records) + ", measuring " + percent(r.measuring, r.records) +
            ", unknown " + percent(r.unknown, r.records);
    if (!r.error_bound_ns) return line + "; no offset measured: clock error UNKNOWN";
    line += "; offset rms " + format_duration_ns(*r.rms_offset_ns) + ", max " + format_duration_ns(static_cast<double>(*r.max_abs_offset_ns));
    if (r.correction) line += "; drift " + format_duration_ns(r.correction->drift_ppb) + "/s";
    line += corrected ? "; error bound after correction " + format_duration_ns(static_cast<double>(*r.corrected_error_bound_ns))
                      : "; error bound " + format_duration_ns(static_cast<double>(*r.error_bound_ns));
    if (!r.unsynchronised.empty())
        line += "; NOT synchronised for " + std::to_string(r.unsynchronised.size()) + " span(s), first " +
                format_duration_ns(static_cast<double>(r.unsynchronised.front().second - r.unsynchronised.front().first)) + " long";
    return line;
}

}  // namespace hashtrace::clocksync
