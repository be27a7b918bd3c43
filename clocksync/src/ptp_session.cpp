#include "hashtrace/clocksync/ptp_session.hpp"

#include "hashtrace/clocksync/adjustable_clock.hpp"
#include "hashtrace/clocksync/pmc.hpp"
#include "realtime_now.hpp"

#include <fstream>
#include <system_error>
#include <thread>

namespace hashtrace::clocksync {
namespace {

PmcSnapshot query(const PtpSetup& setup) {
    // pmc gives up on its own after ~100 ms without an answer; the timeout
    // only guards against a wedged pmc.
    const CommandResult result = run_command(pmc_command(setup), std::chrono::seconds(5));
    return parse_pmc_output(result.output);
}

}  // namespace

PtpDaemons start_ptp(const PtpSetup& setup, const std::filesystem::path& config_file,
                     const std::filesystem::path& log_file) {
    validate(setup);
    if (query(setup).answered)
        throw SubprocessError("a ptp4l already answers on " + setup.uds_path.string() +
                              ": attach to it (--attach) or give another --uds path");
    {
        std::ofstream out(config_file);
        out << render_ptp4l_config(setup);
        if (!out) throw SubprocessError("cannot write " + config_file.string());
    }
    PtpDaemons daemons;
    daemons.config_file = config_file;
    daemons.log_file = log_file;
    daemons.ptp4l = std::make_unique<Daemon>(ptp4l_command(config_file), log_file);
    if (const auto phc2sys = phc2sys_command(setup); !phc2sys.empty())
        daemons.phc2sys = std::make_unique<Daemon>(phc2sys, log_file);
    return daemons;
}

ClockRecord poll_ptp(const PtpSetup& setup, const std::string& host) {
    const PmcSnapshot snapshot = query(setup);
    const std::int64_t now = realtime_now_ns();
    std::optional<double> frequency;
    try {
        frequency = SystemClock().frequency_ppb();
    } catch (const std::system_error&) {
        // Reading needs no privilege; if even that fails the field stays empty (unknown).
    }
    return ptp_record(snapshot, now, host, frequency);
}

void monitor_ptp(const PtpSetup& setup, const PtpMonitorOptions& options,
                 const std::function<void(const ClockRecord&)>& sink) {
    auto next = std::chrono::steady_clock::now();
    while (options.keep_running()) {
        sink(poll_ptp(setup, options.host));
        next += options.interval;
        // Sleep in short slices so a stop request is honoured promptly.
        while (options.keep_running() && std::chrono::steady_clock::now() < next)
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                next - std::chrono::steady_clock::now(), std::chrono::milliseconds(100)));
    }
}

}  // namespace hashtrace::clocksync
