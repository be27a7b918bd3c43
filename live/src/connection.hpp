// connection.hpp - what the collector keeps of one node connection (its
// parts in collector.cpp and state_json.cpp both read it).
#pragma once

#include "hashtrace/live/collector.hpp"

namespace hashtrace::live {

struct Collector::Connection {
    std::size_t id = 0;
    std::string peer;
    logio::BlockStream stream;
    std::string node, instance;  // from its file header
    bool open = true, accepted = false;
    // For the watermark: its newest sample, and whether its reader left
    // bytes unread at its last call (a backlog, after a stall).
    std::int64_t newest_ns = INT64_MIN;
    bool backlog = false;
    std::ofstream save;  // --save: its bytes, header and whole blocks
    Connection(std::size_t i, const std::string& p) : id(i), peer(p), stream(p) {}
};

}  // namespace hashtrace::live
