#include "hashtrace/clocksync/pmc.hpp"
#include "hashtrace/text/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace hashtrace::clocksync {
namespace {

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

std::optional<double> parse_double(std::string_view text) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

bool following(std::string_view state) { return state == "SLAVE" || state == "UNCALIBRATED"; }

}  // namespace

PmcSnapshot parse_pmc_output(std::string_view text) {
    PmcSnapshot snapshot;
    std::string_view dataset;
    for (const std::string_view raw : text::lines(text)) {
        const std::string_view line = trim(raw);
        if (const auto marker = line.find("RESPONSE MANAGEMENT "); marker != std::string_view::npos) {
            snapshot.answered = true;
            dataset = trim(line.substr(marker + 20));
            continue;
        }
        if (line.starts_with("sending:")) {
            dataset = {};
            continue;
        }
        const std::size_t space = line.find_first_of(" \t");
        if (dataset.empty() || space == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, space);
        const std::string_view value = trim(line.substr(space));
        if (dataset == "CURRENT_DATA_SET" && key == "offsetFromMaster") snapshot.offset_from_master_ns = parse_double(value);
        else if (dataset == "CURRENT_DATA_SET" && key == "meanPathDelay") snapshot.mean_path_delay_ns = parse_double(value);
        else if (dataset == "PORT_DATA_SET" && key == "portState") snapshot.port_states.emplace_back(value);
        else if (dataset == "TIME_STATUS_NP" && key == "gmPresent") snapshot.gm_present = value == "true";
        else if (dataset == "TIME_STATUS_NP" && key == "gmIdentity") snapshot.gm_identity = value;
    }
    return snapshot;
}

std::string clock_state(const PmcSnapshot& s) {
    if (!s.answered) return "NO_DAEMON";
    for (const char* preferred : {"SLAVE", "UNCALIBRATED", "MASTER"})
        if (std::find(s.port_states.begin(), s.port_states.end(), preferred) != s.port_states.end()) return preferred;
    return s.port_states.empty() ? "UNKNOWN" : s.port_states.front();
}

ClockRecord ptp_record(const PmcSnapshot& s, std::int64_t time_ns, const std::string& host,
                       std::optional<double> system_frequency_ppb) {
    ClockRecord r;
    r.time_ns = time_ns;
    r.host = host;
    r.source = ClockSource::ptp;
    r.state = clock_state(s);
    r.freq_ppb = system_frequency_ppb;
    const bool measured = s.offset_from_master_ns && s.mean_path_delay_ns &&
                          !(*s.offset_from_master_ns == 0.0 && *s.mean_path_delay_ns == 0.0);
    if (following(r.state) && measured) {
        r.offset_ns = std::llround(*s.offset_from_master_ns);
        r.path_delay_ns = std::llround(*s.mean_path_delay_ns);
    }
    return r;
}

}  // namespace hashtrace::clocksync
