#include "hashtrace/clocksync/ptp_setup.hpp"

#include <stdexcept>

namespace hashtrace::clocksync {

PtpRole parse_ptp_role(const std::string& text) {
    if (text == "grandmaster") return PtpRole::grandmaster;
    if (text == "follower") return PtpRole::follower;
    throw std::invalid_argument("role '" + text + "' is neither grandmaster nor follower");
}

Timestamping parse_timestamping(const std::string& text) {
    if (text == "software") return Timestamping::software;
    if (text == "hardware") return Timestamping::hardware;
    throw std::invalid_argument("timestamping '" + text + "' is neither software nor hardware");
}

PtpTransport parse_transport(const std::string& text) {
    if (text == "udp") return PtpTransport::udp_ipv4;
    if (text == "l2") return PtpTransport::layer2;
    throw std::invalid_argument("transport '" + text + "' is neither udp nor l2");
}

void validate(const PtpSetup& s) {
    if (s.interface.empty()) throw std::invalid_argument("no network interface given");
    if (s.interface.find_first_of(" \t\n[]") != std::string::npos)
        throw std::invalid_argument("interface name '" + s.interface + "' has characters ptp4l cannot take");
    if (s.domain < 0 || s.domain > 127) throw std::invalid_argument("PTP domain must be 0..127");
    if (s.log_sync_interval < -7 || s.log_sync_interval > 4)
        throw std::invalid_argument("log sync interval must be -7..4 (2^n seconds)");
    if (s.free_running && s.role == PtpRole::grandmaster)
        throw std::invalid_argument("--free-running only makes sense on a follower");
    if (s.uds_path.empty()) throw std::invalid_argument("no management socket path");
}

std::string render_ptp4l_config(const PtpSetup& s) {
    validate(s);
    std::string c;
    c += "# Written by `hashtrace clock ptp`: ";
    c += s.role == PtpRole::grandmaster ? "grandmaster" : "follower";
    c += s.timestamping == Timestamping::hardware ? ", hardware" : ", software";
    c += " timestamping. See docs/clock-sync.md.\n[global]\n";
    c += "domainNumber " + std::to_string(s.domain) + "\n";
    c += "time_stamping " + std::string(s.timestamping == Timestamping::hardware ? "hardware" : "software") + "\n";
    c += "network_transport " + std::string(s.transport == PtpTransport::layer2 ? "L2" : "UDPv4") + "\n";
    c += "delay_mechanism E2E\n";
    c += "logSyncInterval " + std::to_string(s.log_sync_interval) + "\n";
    c += "uds_address " + s.uds_path.string() + "\n";
    if (s.role == PtpRole::grandmaster) {
        // Lower priority1 wins the best-master election against default (128) clocks.
        c += "priority1 127\n";
    } else {
        c += "slaveOnly 1\n";
        if (s.free_running) c += "free_running 1\n";
    }
    c += "[" + s.interface + "]\n";
    return c;
}

std::vector<std::string> ptp4l_command(const std::filesystem::path& config_file) {
    // -m: log to stdout (we keep it in the daemon's log file); -q: not to syslog as well.
    return {"ptp4l", "-f", config_file.string(), "-m", "-q"};
}

std::vector<std::string> phc2sys_command(const PtpSetup& s) {
    if (s.timestamping == Timestamping::software) return {};
    return {"phc2sys", "-a", "-rr", "-n", std::to_string(s.domain), "-z", s.uds_path.string(), "-m", "-q"};
}

std::vector<std::string> pmc_command(const PtpSetup& s) {
    return {"pmc", "-u", "-b", "0", "-d", std::to_string(s.domain), "-s", s.uds_path.string(),
            "GET CURRENT_DATA_SET", "GET PORT_DATA_SET", "GET TIME_STATUS_NP"};
}

}  // namespace hashtrace::clocksync
