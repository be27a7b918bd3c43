// connection.hpp - what the collector keeps of one node connection (its
// parts in collector.cpp and state_json.cpp both read it).
#pragma once

#include "hashtrace/live/collector.hpp"

#include <chrono>

namespace hashtrace::live {

// The clock of the stall and catching-up rules: wall time as it passes here, never set back.
inline std::int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Collector::Connection {
    std::size_t id = 0;
    std::string peer;
    logio::BlockStream stream;
    std::string node, instance;  // from its file header
    bool open = true, accepted = false;
    // For the watermark: its newest sample, and until when (steady clock)
    // it counts as catching up on a backlog (after a stall, or while its
    // reader finds more bytes waiting); INT64_MIN: it is not.
    std::int64_t newest_ns = INT64_MIN;
    std::int64_t catching_up_until_ns = INT64_MIN;
    std::ofstream save;  // --save: its bytes, header and whole blocks
    Connection(std::size_t i, const std::string& p) : id(i), peer(p), stream(p) {}
};

}  // namespace hashtrace::live
