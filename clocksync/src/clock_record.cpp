#include "hashtrace/clocksync/clock_record.hpp"

#include "hashtrace/fileio/read_file.hpp"
#include "hashtrace/text/text.hpp"

#include <cmath>
#include <type_traits>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace hashtrace::clocksync {
namespace {

constexpr std::string_view kTitle = "# hashtrace clock-quality records v1";
constexpr std::size_t kFieldCount = 8;

[[noreturn]] void fail(const std::string& name, std::size_t line, const std::string& reason) {
    throw ClockFileError(name + ":" + std::to_string(line) + ": " + reason);
}

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

template <typename Number>
std::optional<Number> parse_optional(std::string_view text, const char* column, const std::string& name,
                                     std::size_t line) {
    if (text.empty()) return std::nullopt;
    Number value{};
    if (!parse_number(text, value)) fail(name, line, std::string(column) + " '" + std::string(text) + "' is not a number");
    // "nan" and "inf" parse as doubles, and would pass through every fit and bound unnoticed.
    if constexpr (std::is_floating_point_v<Number>)
        if (!std::isfinite(value)) fail(name, line, std::string(column) + " '" + std::string(text) + "' is not a finite number");
    return value;
}

template <typename Number>
void append_optional(std::string& out, const std::optional<Number>& value) {
    out += ',';
    if (!value) return;
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, *value);
    out.append(buffer, end);
}

bool valid_text_field(std::string_view text) {
    return !text.empty() && text.find_first_of(",\n\r") == std::string_view::npos;
}

}  // namespace

std::string_view to_string(ClockSource source) noexcept { return source == ClockSource::ptp ? "ptp" : "pps"; }

SyncStatus sync_status(const ClockRecord& r) noexcept {
    const std::string_view state = r.state;
    if (r.source == ClockSource::ptp && (state == "MASTER" || state == "GRAND_MASTER")) return SyncStatus::reference;
    if (!r.offset_ns) return SyncStatus::unknown;
    if (state == "SLAVE" || state == "LOCKED") return SyncStatus::locked;
    if (state == "UNCALIBRATED" || state == "ACQUIRING" || state == "TRACKING" || state == "UNLOCKED" || state == "STEPPED")
        return SyncStatus::measuring;
    return SyncStatus::unknown;
}

std::string format_clock_record(const ClockRecord& r) {
    std::string out = std::to_string(r.time_ns);
    out += ',';
    out += r.host;
    out += ',';
    out += to_string(r.source);
    out += ',';
    out += r.state;
    append_optional(out, r.offset_ns);
    append_optional(out, r.path_delay_ns);
    append_optional(out, r.freq_ppb);
    append_optional(out, r.jitter_ns);
    out += '\n';
    return out;
}

std::vector<ClockRecord> parse_clock_records(std::string_view text, const std::string& name) {
    std::vector<ClockRecord> records;
    bool header_seen = false;
    text::for_each_record(text, [&](std::string_view line, std::size_t line_number) {
        if (!header_seen) {
            if (line != kClockFileHeader) fail(name, line_number, "expected the header '" + std::string(kClockFileHeader) + "'");
            header_seen = true;
            return;
        }
        std::string_view fields[kFieldCount];
        const std::size_t count = text::split(line, ',', fields);
        if (count > kFieldCount) fail(name, line_number, "more than 8 fields");
        if (count != kFieldCount) fail(name, line_number, "expected 8 fields, found " + std::to_string(count));

        ClockRecord r;
        if (!parse_number(fields[0], r.time_ns)) fail(name, line_number, "time_ns '" + std::string(fields[0]) + "' is not an integer");
        if (!valid_text_field(fields[1])) fail(name, line_number, "host is empty");
        r.host = fields[1];
        if (fields[2] == "ptp") r.source = ClockSource::ptp;
        else if (fields[2] == "pps") r.source = ClockSource::pps;
        else fail(name, line_number, "source '" + std::string(fields[2]) + "' is neither ptp nor pps");
        if (!valid_text_field(fields[3])) fail(name, line_number, "state is empty");
        r.state = fields[3];
        r.offset_ns = parse_optional<std::int64_t>(fields[4], "offset_ns", name, line_number);
        r.path_delay_ns = parse_optional<std::int64_t>(fields[5], "path_delay_ns", name, line_number);
        r.freq_ppb = parse_optional<double>(fields[6], "freq_ppb", name, line_number);
        r.jitter_ns = parse_optional<std::int64_t>(fields[7], "jitter_ns", name, line_number);
        records.push_back(std::move(r));
    });
    if (!header_seen) fail(name, text::lines(text).size(), "no header line: not a clock-quality file");
    return records;
}

std::vector<ClockRecord> load_clock_records(const std::filesystem::path& file) {
    const auto text = fileio::read_file(file);
    if (!text) throw ClockFileError(file.string() + ":0: cannot open clock-quality file");
    return parse_clock_records(*text, file.string());
}

std::filesystem::path clock_file_path(const std::filesystem::path& log_dir, const std::string& host) {
    return log_dir / ("clock-" + host + std::string(kClockFileExtension));
}

ClockRecordWriter::ClockRecordWriter(std::filesystem::path file) : path_(std::move(file)) {
    std::error_code ec;
    const bool existing = std::filesystem::exists(path_, ec) && std::filesystem::file_size(path_, ec) > 0;
    if (existing) load_clock_records(path_);  // refuse to append to something that is not ours
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw ClockFileError(path_.string() + ":0: cannot open for append: " + std::strerror(errno));
    if (!existing) {
        std::string header(kTitle);
        header += '\n';
        header += kClockFileHeader;
        header += '\n';
        const ssize_t written = ::write(fd_, header.data(), header.size());
        if (written != static_cast<ssize_t>(header.size())) {
            ::close(fd_);
            throw ClockFileError(path_.string() + ":0: cannot write the header: " + std::strerror(errno));
        }
    }
}

ClockRecordWriter::~ClockRecordWriter() { ::close(fd_); }

void ClockRecordWriter::write(const ClockRecord& record) {
    if (!valid_text_field(record.host) || !valid_text_field(record.state))
        throw ClockFileError(path_.string() + ":0: host and state must be non-empty and free of commas");
    const std::string line = format_clock_record(record);
    // One write() per record: O_APPEND makes each line land whole.
    if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        throw ClockFileError(path_.string() + ":0: cannot append a record: " + std::strerror(errno));
}

}  // namespace hashtrace::clocksync
