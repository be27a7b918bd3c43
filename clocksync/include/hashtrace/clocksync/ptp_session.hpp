// hashtrace/clocksync/ptp_session.hpp - starting linuxptp and watching it.
#pragma once

#include "hashtrace/clocksync/clock_record.hpp"
#include "hashtrace/clocksync/ptp_setup.hpp"
#include "hashtrace/clocksync/subprocess.hpp"

#include <chrono>
#include <functional>
#include <memory>

namespace hashtrace::clocksync {

// The daemons `hashtrace clock ptp` started; destroying it stops them.
struct PtpDaemons {
    std::unique_ptr<Daemon> ptp4l;
    std::unique_ptr<Daemon> phc2sys;  // hardware timestamping only
    std::filesystem::path config_file;
    std::filesystem::path log_file;
};

// Writes the ptp4l config to `config_file` and starts ptp4l (and phc2sys),
// their output appended to `log_file`. Refuses (SubprocessError) when a ptp4l
// already answers on the management socket: attach to it instead.
PtpDaemons start_ptp(const PtpSetup& setup, const std::filesystem::path& config_file,
                     const std::filesystem::path& log_file);

// One poll: pmc over the management socket, plus the system clock's
// frequency adjustment, as a clock-quality record stamped now.
ClockRecord poll_ptp(const PtpSetup& setup, const std::string& host);

struct PtpMonitorOptions {
    std::string host;
    std::chrono::milliseconds interval{1000};
    std::function<bool()> keep_running = [] { return true; };
};

// Polls every interval until keep_running() is false; each record goes to sink.
void monitor_ptp(const PtpSetup& setup, const PtpMonitorOptions& options,
                 const std::function<void(const ClockRecord&)>& sink);

}  // namespace hashtrace::clocksync
