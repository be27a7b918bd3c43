// node_logs.hpp - the bytes a node streams, made for the tests: a version-3
// log written by the SDK's own LogFile, with a block cut (flush) where asked.
#pragma once

#include "hashtrace/detail/log_file.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace hashtrace::live::testing {

struct TestSample {
    std::int64_t time_ns = 0;
    std::optional<std::uint64_t> in, out;  // a message number, hashed as its 16 bytes
};

inline Hash128 hash_of(std::uint64_t message) {
    Hash128 h;
    for (int k = 0; k < 8; ++k) h.bytes[k] = static_cast<std::uint8_t>(message >> (8 * k));
    h.bytes[15] = 0x5a;  // never all zero
    return h;
}

inline std::string read_bytes(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One tracepoint `tracepoint` of node `node`; a block every `per_block`
// samples; at the end a drop record of `dropped` samples (none: 0).
inline std::string node_log(const std::string& node, const std::string& tracepoint, const std::vector<TestSample>& samples,
                            std::size_t per_block, std::uint64_t dropped = 0) {
    const auto file = std::filesystem::temp_directory_path() / ("live-test-" + node + "-" + std::to_string(::getpid()) + ".htlog");
    {
        detail::LogFile log(file.string(), LogFormat::binary, {{"node", node}, {"instance", "1"}});
        log.tracepoint(0, {{}, {}, tracepoint, "message", "message", HashFunction::md5, false}, samples.empty() ? 0 : samples[0].time_ns);
        for (std::size_t k = 0; k < samples.size(); ++k) {
            const TestSample& s = samples[k];
            const Hash128 in = s.in ? hash_of(*s.in) : Hash128{}, out = s.out ? hash_of(*s.out) : Hash128{};
            log.sample({s.time_ns, s.in ? &in : nullptr, s.out ? &out : nullptr, 0, false, 0, false, 0});
            if ((k + 1) % per_block == 0) log.flush();
        }
        if (dropped > 0) log.drop(0, samples.empty() ? 0 : samples.back().time_ns, dropped);
        log.close(true);
    }
    std::string bytes = read_bytes(file);
    std::filesystem::remove(file);
    return bytes;
}

// A producer sending message m at start + m * period, and its consumer
// receiving it `latency` later: the two nodes' logs.
struct Pair {
    std::string producer, consumer;
};
inline Pair linked_pair(const std::string& from, const std::string& to, std::int64_t start_ns, std::int64_t period_ns, std::int64_t latency_ns,
                        std::uint64_t messages, std::uint64_t first_message, std::size_t per_block) {
    std::vector<TestSample> sent, received;
    for (std::uint64_t m = 0; m < messages; ++m) {
        const std::int64_t t = start_ns + static_cast<std::int64_t>(m) * period_ns;
        sent.push_back({t, std::nullopt, first_message + m});
        received.push_back({t + latency_ns, first_message + m, std::nullopt});
    }
    return {node_log(from, "Send", sent, per_block), node_log(to, "Receive", received, per_block)};
}

}  // namespace hashtrace::live::testing
