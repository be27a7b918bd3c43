// hashtrace/config.hpp - how a node is configured: in code, from the
// environment, or both (the environment wins, so a lab can redirect logs or
// switch formats without rebuilding).
//
//   HASHTRACE_NODE            node name (the paper's node_name)
//   HASHTRACE_LOG_DIR         directory for the log file (created if missing)
//   HASHTRACE_FORMAT          binary | csv
//   HASHTRACE_QUEUE_CAPACITY  samples each thread can have queued before the full policy applies
//   HASHTRACE_WHEN_FULL       drop | block
//   HASHTRACE_FLUSH_MS        longest time a sample waits in memory before it is written
//   HASHTRACE_ENABLED         0 starts the session with recording off
//   HASHTRACE_TSC             0 stamps with clock_gettime even where the TSC could be used
//                             (read once per process; see detail/clock.hpp)
//   HASHTRACE_STREAM          HOST:PORT of a collector the writer also streams its blocks to
#pragma once

#include "hashtrace/log_format.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace hashtrace {

enum class FullPolicy {
    drop,   // the sample is dropped and counted per tracepoint; the count is logged
    block,  // the tracepoint waits (yielding) until the writer makes room
};

struct Config {
    std::string node_name = "node";
    std::string log_dir = ".";
    LogFormat format = LogFormat::binary;
    // Samples each recording thread can have waiting for the writer: its own
    // pre-allocated ring (128 bytes a sample), so memory is bounded by
    // threads x capacity and no thread's burst takes another's room.
    std::size_t queue_capacity = 1u << 14;  // 16 Ki samples: 2 MiB per thread
    FullPolicy when_full = FullPolicy::drop;
    std::chrono::milliseconds flush_interval{100};
    bool install_signal_handlers = true;
    bool enabled = true;
    // "HOST:PORT" of a collector (`hashtrace live`) that receives a copy of
    // the log's blocks over TCP; empty: no stream. The copy never blocks the
    // program nor costs the disk log a sample: what the collector cannot take
    // is dropped from the stream and counted (Stats::stream_dropped).
    std::string stream_to;

    // `defaults` overridden by any HASHTRACE_* variable that is set.
    // Throws std::invalid_argument naming the variable for a bad value.
    static Config from_env(Config defaults);
    static Config from_env() { return from_env(Config()); }
};

// Splits "HOST:PORT" (host a name, an IPv4 address or a bracketed IPv6 one;
// port 1..65535). Throws std::invalid_argument saying what is wrong.
inline std::pair<std::string, std::uint16_t> parse_stream_address(const std::string& s) {
    const std::size_t colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
        throw std::invalid_argument("'" + s + "': expected HOST:PORT");
    std::string host = s.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    const std::string port = s.substr(colon + 1);
    if (host.empty() || port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
        std::stoul(port) == 0 || std::stoul(port) > 65535)
        throw std::invalid_argument("'" + s + "': expected HOST:PORT with a port 1..65535");
    return {host, static_cast<std::uint16_t>(std::stoul(port))};
}

struct Stats {
    std::uint64_t written = 0;  // samples saved: in flushes that reached the log file
    std::uint64_t dropped = 0;  // samples a full queue dropped (all are logged as drop records)
    std::uint64_t bytes = 0;    // bytes written to the log
    std::uint64_t lost = 0;     // samples the writer could not save (a full disk), logged as loss records once it can write
    std::uint64_t stream_dropped = 0;  // samples the stream to the collector dropped (slow or absent collector), logged
};

inline Config Config::from_env(Config c) {
    auto get = [](const char* name) -> const char* {
        const char* v = std::getenv(name);
        return (v && *v) ? v : nullptr;
    };
    auto bad = [](const char* name, const char* value, const char* expected) {
        throw std::invalid_argument(std::string(name) + "='" + value + "': expected " + expected);
    };
    auto number = [&](const char* name, const char* v) -> unsigned long long {
        char* end = nullptr;
        unsigned long long n = std::strtoull(v, &end, 10);
        if (!end || *end != '\0' || *v == '-') bad(name, v, "a non-negative integer");
        return n;
    };
    if (const char* v = get("HASHTRACE_NODE")) c.node_name = v;
    if (const char* v = get("HASHTRACE_LOG_DIR")) c.log_dir = v;
    if (const char* v = get("HASHTRACE_FORMAT")) {
        std::string s(v);
        if (s == "binary") c.format = LogFormat::binary;
        else if (s == "csv") c.format = LogFormat::csv;
        else bad("HASHTRACE_FORMAT", v, "binary or csv");
    }
    if (const char* v = get("HASHTRACE_QUEUE_CAPACITY")) {
        c.queue_capacity = number("HASHTRACE_QUEUE_CAPACITY", v);
        if (c.queue_capacity == 0) bad("HASHTRACE_QUEUE_CAPACITY", v, "at least 1");
    }
    if (const char* v = get("HASHTRACE_WHEN_FULL")) {
        std::string s(v);
        if (s == "drop") c.when_full = FullPolicy::drop;
        else if (s == "block") c.when_full = FullPolicy::block;
        else bad("HASHTRACE_WHEN_FULL", v, "drop or block");
    }
    if (const char* v = get("HASHTRACE_FLUSH_MS")) {
        c.flush_interval = std::chrono::milliseconds(number("HASHTRACE_FLUSH_MS", v));
    }
    if (const char* v = get("HASHTRACE_ENABLED")) {
        std::string s(v);
        if (s == "0" || s == "false") c.enabled = false;
        else if (s == "1" || s == "true") c.enabled = true;
        else bad("HASHTRACE_ENABLED", v, "0 or 1");
    }
    if (const char* v = get("HASHTRACE_STREAM")) {
        try {
            parse_stream_address(v);
        } catch (const std::invalid_argument&) {
            bad("HASHTRACE_STREAM", v, "HOST:PORT with a port 1..65535");
        }
        c.stream_to = v;
    }
    return c;
}

}  // namespace hashtrace
