// hashtrace/clocksync/pmc.hpp - reading ptp4l's state from `pmc` output.
//
// `pmc -u ... 'GET CURRENT_DATA_SET' 'GET PORT_DATA_SET' 'GET TIME_STATUS_NP'`
// prints, for each response, a "RESPONSE MANAGEMENT <DATASET>" line followed
// by indented "key value" lines. No response at all means ptp4l is not
// listening on that socket.
#pragma once

#include "hashtrace/clocksync/clock_record.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::clocksync {

struct PmcSnapshot {
    bool answered = false;                    // any response at all
    std::vector<std::string> port_states;     // one per port, in response order
    std::optional<double> offset_from_master_ns;
    std::optional<double> mean_path_delay_ns;
    std::optional<bool> gm_present;
    std::string gm_identity;
};

PmcSnapshot parse_pmc_output(std::string_view text);

// The port state that describes the clock: a following port (SLAVE, then
// UNCALIBRATED) wins, then MASTER, then the first port's; NO_DAEMON without answer.
std::string clock_state(const PmcSnapshot& snapshot);

// A clock-quality record from one poll. The offset and path delay are kept
// only while a port follows a master and has measured (ptp4l reports exact
// zeros before its first delay measurement).
ClockRecord ptp_record(const PmcSnapshot& snapshot, std::int64_t time_ns, const std::string& host,
                       std::optional<double> system_frequency_ppb);

}  // namespace hashtrace::clocksync
