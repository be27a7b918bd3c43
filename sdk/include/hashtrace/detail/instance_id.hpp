// hashtrace/detail/instance_id.hpp - the node instance (the paper's Table 3:
// "hash of PID and MAC"), plus the start time so a PID reused by a later run
// still yields a new instance.
#pragma once

#include "hashtrace/canonical.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace hashtrace::detail {

// The first non-zero MAC address of a network interface, or "" if none.
inline std::string first_mac_address() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/sys/class/net", ec)) {
        std::ifstream f(entry.path() / "address");
        std::string mac;
        if (f >> mac && !mac.empty() && mac != "00:00:00:00:00:00") return mac;
    }
    return {};
}

// 16 lowercase hex digits.
inline std::string make_instance_id(std::int64_t start_time_ns) {
    const Hash128 h = hash_of(HashFunction::xxh3_128, static_cast<std::int64_t>(::getpid()), first_mac_address(),
                              start_time_ns);
    const auto hex = to_hex(h);
    return std::string(hex.data(), 16);
}

inline std::string host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
    return buf;
}

}  // namespace hashtrace::detail
