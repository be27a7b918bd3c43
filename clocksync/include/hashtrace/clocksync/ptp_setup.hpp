// hashtrace/clocksync/ptp_setup.hpp - the linuxptp configuration `hashtrace
// clock ptp` writes, as pure functions of what the user asked for.
//
// Software timestamping: ptp4l disciplines CLOCK_REALTIME directly.
// Hardware timestamping: ptp4l disciplines the NIC's PTP hardware clock and
// phc2sys carries the time between it and CLOCK_REALTIME (`-a -rr`: follows
// ptp4l's port states, so on a grandmaster the system clock feeds the PHC and
// on a follower the PHC feeds the system clock).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hashtrace::clocksync {

enum class PtpRole : std::uint8_t { grandmaster, follower };
enum class Timestamping : std::uint8_t { software, hardware };
enum class PtpTransport : std::uint8_t { udp_ipv4, layer2 };

struct PtpSetup {
    std::string interface;
    PtpRole role = PtpRole::follower;
    Timestamping timestamping = Timestamping::software;
    PtpTransport transport = PtpTransport::udp_ipv4;
    int domain = 0;
    int log_sync_interval = 0;  // 2^n s between Sync messages
    // Measure only: the follower never adjusts its clock (linuxptp then keeps
    // the port UNCALIBRATED: its servo never reports a lock without adjusting).
    bool free_running = false;
    std::filesystem::path uds_path = "/var/run/ptp4l";
};

PtpRole parse_ptp_role(const std::string& text);          // "grandmaster" | "follower"; throws std::invalid_argument
Timestamping parse_timestamping(const std::string& text);  // "software" | "hardware"
PtpTransport parse_transport(const std::string& text);     // "udp" | "l2"

// Throws std::invalid_argument naming the problem (empty interface, bad domain, ...).
void validate(const PtpSetup& setup);

std::string render_ptp4l_config(const PtpSetup& setup);
std::vector<std::string> ptp4l_command(const std::filesystem::path& config_file);
// Empty for software timestamping: nothing to carry between clocks.
std::vector<std::string> phc2sys_command(const PtpSetup& setup);
std::vector<std::string> pmc_command(const PtpSetup& setup);

}  // namespace hashtrace::clocksync
