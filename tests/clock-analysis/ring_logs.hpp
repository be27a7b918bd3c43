// ring_logs.hpp - the hand-made CSV logs of a one-way ring of four instances
// (N0 -> N1 -> N2 -> N3 -> N0) with known clocks, for the estimate's ring
// tests (ring_clock_test.cpp, relink_test.cpp).
#pragma once

#include "clock_model.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace clock_model {

constexpr int kRingNodes = 4;
constexpr std::int64_t kRingPeriod = 5 * kMs;

struct RingShape {
    int hops = kRingNodes;  // fewer leaves the ring open (N3 does not send to N0)
    int wrap = 0;           // a hop's message counter modulo this, so its hashes come back; 0: never
};

// One file per instance in `dir`: 10 s of messages every 5 ms over each hop,
// transits of 30-300 us, hop h's hashes numbered from h * 100000.
inline void write_ring_logs(const std::filesystem::path& dir, const std::array<Clock, kRingNodes>& clocks, std::uint64_t seed,
                            RingShape shape = {}) {
    std::array<std::ofstream, kRingNodes> logs;
    for (int n = 0; n < kRingNodes; ++n) {
        logs[n].open(dir / ("N" + std::to_string(n) + "-1.csv"));
        logs[n] << kCsvHeader;
    }
    for (int hop = 0; hop < shape.hops; ++hop) {
        const int to = (hop + 1) % kRingNodes;
        const auto sent = messages(clocks[hop], clocks[to], kRingPeriod, 10 * kSecond, 30'000, 300'000, seed + hop, hop * kMs);
        for (std::size_t k = 0; k < sent.size(); ++k) {
            const int number = static_cast<int>(shape.wrap > 0 ? k % static_cast<std::size_t>(shape.wrap) : k);
            const std::string hash = csv_hash(hop * 100'000 + number);
            logs[hop] << "N" << hop << ",1,Send,none,msg," << csv_seconds(sent[k].send_ns) << ",," << hash << "\n";
            logs[to] << "N" << to << ",1,Receive,msg,none," << csv_seconds(sent[k].receive_ns) << "," << hash << ",\n";
        }
    }
}

}  // namespace clock_model
