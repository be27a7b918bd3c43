// `hashtrace clock ptp`: set up linuxptp as grandmaster or follower (or attach
// to a running ptp4l) and record clock quality into the log directory.
#include "command.hpp"
#include "output.hpp"
#include "run_control.hpp"

#include "hashtrace/clocksync/ptp_session.hpp"

#include <cstdio>
#include <fstream>

namespace {

namespace hc = hashtrace::clocksync;

constexpr const char* kUsage =
    "usage: hashtrace clock ptp --role grandmaster|follower --interface IF [options]\n"
    "       hashtrace clock ptp --attach [--uds PATH] [options]\n"
    "  Writes the ptp4l (and, for hardware timestamping, phc2sys) configuration, starts\n"
    "  the daemons (or attaches to a running ptp4l), and polls it with pmc, appending a\n"
    "  clock-quality record per poll to <log-dir>/clock-<host>.htclock.\n"
    "  --timestamping software|hardware  (default software)\n"
    "  --transport udp|l2                (default udp)\n"
    "  --domain N                        PTP domain (default 0)\n"
    "  --sync-interval N                 log2 seconds between Sync messages (default 0)\n"
    "  --free-running                    follower measures only, never adjusts its clock\n"
    "  --uds PATH                        ptp4l management socket (default /var/run/ptp4l)\n"
    "  --config-only                     print the ptp4l configuration and commands, then exit\n"
    "  --log-dir DIR                     default $HASHTRACE_LOG_DIR or .\n"
    "  --host NAME                       default the host name\n"
    "  --interval-ms N                   poll period (default 1000)\n"
    "  --duration S                      stop after S seconds (default: at Ctrl-C)\n";

std::string join(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) out += (out.empty() ? "" : " ") + (a.find(' ') == std::string::npos ? a : "'" + a + "'");
    return out;
}

hc::PtpSetup setup_from(hashtrace::cli::Args& args, bool attach) {
    hc::PtpSetup setup;
    try {
        if (const auto role = args.option("--role")) setup.role = hc::parse_ptp_role(*role);
        else if (!attach) throw hashtrace::cli::UsageError("--role grandmaster|follower is required");
        setup.interface = args.option_or("--interface", "");
        if (setup.interface.empty() && !attach) throw hashtrace::cli::UsageError("--interface is required");
        setup.timestamping = hc::parse_timestamping(args.option_or("--timestamping", "software"));
        setup.transport = hc::parse_transport(args.option_or("--transport", "udp"));
    } catch (const std::invalid_argument& e) {
        throw hashtrace::cli::UsageError(e.what());
    }
    setup.domain = static_cast<int>(args.integer("--domain", 0));
    setup.log_sync_interval = static_cast<int>(args.integer("--sync-interval", 0));
    setup.free_running = args.flag("--free-running");
    setup.uds_path = args.option_or("--uds", "/var/run/ptp4l");
    return setup;
}

// The last few lines of a daemon's log: why it stopped, usually.
std::string log_tail(const std::filesystem::path& file, std::size_t lines) {
    std::ifstream in(file);
    std::vector<std::string> last;
    for (std::string line; std::getline(in, line);) {
        last.push_back(line);
        if (last.size() > lines) last.erase(last.begin());
    }
    std::string out;
    for (const auto& l : last) out += "  " + l + "\n";
    return out;
}

void print_record(const hc::ClockRecord& r) {
    const auto show = [](const auto& v) { return v ? std::to_string(*v) : std::string("-"); };
    std::printf("%lld %-13s offset_ns %8s path_delay_ns %8s freq_ppb %s\n", static_cast<long long>(r.time_ns),
                r.state.c_str(), show(r.offset_ns).c_str(), show(r.path_delay_ns).c_str(), show(r.freq_ppb).c_str());
    hashtrace::cli::flush_stdout();
}

int run_clock_ptp(hashtrace::cli::Args& args) {
    const bool attach = args.flag("--attach");
    const bool config_only = args.flag("--config-only");
    const hc::PtpSetup setup = setup_from(args, attach);
    const auto interval = std::chrono::milliseconds(args.integer("--interval-ms", 1000));
    const double duration = args.number("--duration", 0);
    const auto log_dir = hashtrace::clocksync::cli::log_dir_option(args);
    const std::string host = hashtrace::clocksync::cli::host_option(args);
    args.finish();
    if (interval.count() <= 0) throw hashtrace::cli::UsageError("--interval-ms must be positive");

    if (!attach) {
        try {
            hc::validate(setup);
        } catch (const std::invalid_argument& e) {
            throw hashtrace::cli::UsageError(e.what());
        }
    }
    if (config_only) {
        std::printf("%s\n# ptp4l:   %s\n", hc::render_ptp4l_config(setup).c_str(),
                    join(hc::ptp4l_command("ptp4l-" + setup.interface + ".conf")).c_str());
        if (const auto phc2sys = hc::phc2sys_command(setup); !phc2sys.empty()) std::printf("# phc2sys: %s\n", join(phc2sys).c_str());
        return 0;
    }

    hc::PtpDaemons daemons;
    if (!attach) {
        daemons = hc::start_ptp(setup, log_dir / ("ptp4l-" + host + ".conf"), log_dir / ("ptp4l-" + host + ".log"));
        std::fprintf(stderr, "started %s (pid %d), log %s\n", join(hc::ptp4l_command(daemons.config_file)).c_str(),
                     static_cast<int>(daemons.ptp4l->pid()), daemons.log_file.c_str());
    }
    hc::ClockRecordWriter writer(hc::clock_file_path(log_dir, host));
    std::fprintf(stderr, "recording clock quality to %s\n", writer.path().c_str());

    const auto keep_running = hashtrace::clocksync::cli::run_until_stopped(duration);
    std::string last_state;
    bool daemon_died = false;
    hc::monitor_ptp(setup, {host, interval, [&] { return keep_running() && !daemon_died; }}, [&](const hc::ClockRecord& r) {
        writer.write(r);
        print_record(r);
        if (r.state != last_state && (r.state == "NO_DAEMON" || r.state == "FAULTY" || r.state == "LISTENING"))
            std::fprintf(stderr, "warning: clock not synchronised: ptp4l state %s\n", r.state.c_str());
        last_state = r.state;
        if (daemons.ptp4l && !daemons.ptp4l->running()) {
            std::fprintf(stderr, "error: ptp4l exited (status %d); the end of %s:\n%s", daemons.ptp4l->exit_status(),
                         daemons.log_file.c_str(), log_tail(daemons.log_file, 3).c_str());
            daemon_died = true;
        }
    });
    return daemon_died ? 1 : 0;
}

}  // namespace

HASHTRACE_COMMAND("clock ptp", "synchronise clocks with linuxptp (grandmaster/follower) and record clock quality", run_clock_ptp,
                  kUsage);
