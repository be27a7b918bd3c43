// live_throughput - how many samples a second the collector takes in and
// links, from 16 nodes (8 producer/consumer pairs), on this thread alone:
// the streams' bytes fed in 64 KiB pieces round-robin as the sockets' readers
// would, settled every 1/5 s of sample time as the command's ticker would.
//
//   live_throughput [SECONDS_OF_SAMPLES] [SAMPLES_PER_S_PER_NODE] [intervals]
//
// With `intervals`, the spec also names each pair's interval, so every
// update also walks their critical paths (the page's top segment).
#include "hashtrace/live/collector.hpp"

#include "node_logs.hpp"

#include <chrono>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    using namespace hashtrace;
    using namespace hashtrace::live::testing;
    const double seconds = argc > 1 ? std::stod(argv[1]) : 10;
    const double rate = argc > 2 ? std::stod(argv[2]) : 125'000;
    const auto period = static_cast<std::int64_t>(1e9 / rate);
    const auto messages = static_cast<std::uint64_t>(seconds * rate);
    const bool intervals = argc > 3 && std::string(argv[3]) == "intervals";
    std::string spec_text;
    std::vector<std::string> logs;
    for (int p = 0; p < 8; ++p) {
        const std::string a = "P" + std::to_string(p), b = "C" + std::to_string(p);
        spec_text += "[[pair]]\nfrom = \"" + a + "/Send\"\nto = \"" + b + "/Receive\"\n";
        if (intervals) spec_text += "[[interval]]\nname = \"" + a + " to " + b + "\"\nfrom = \"" + a + "/Send\"\nto = \"" + b + "/Receive\"\n";
        const Pair pair = linked_pair(a, b, 1'700'000'000'000'000'000, period, 2'000'000, messages, std::uint64_t(p) << 40,
                                      static_cast<std::size_t>(rate / 100));  // a block per 10 ms
        logs.push_back(pair.producer);
        logs.push_back(pair.consumer);
    }
    live::Collector c(graph::parse_spec(spec_text, "bench.toml"), {});
    std::vector<std::size_t> ids;
    for (std::size_t k = 0; k < logs.size(); ++k) ids.push_back(*c.open("node" + std::to_string(k)));
    const std::size_t piece = 64 * 1024, per_settle = static_cast<std::size_t>(logs[0].size() / (seconds * 5)) + 1;
    const auto start = std::chrono::steady_clock::now();
    std::size_t since_settle = 0;
    for (std::size_t at = 0; at < logs[0].size() + piece; at += piece) {
        for (std::size_t k = 0; k < logs.size(); ++k)
            if (at < logs[k].size()) c.receive(ids[k], std::string_view(logs[k]).substr(at, piece));
        if ((since_settle += piece) >= per_settle) {
            c.settle();
            since_settle = 0;
        }
    }
    c.finish();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto state = c.state();
    std::uint64_t links = 0;
    for (const auto& l : state["links"]) links += l["count"].get<std::uint64_t>();
    const double samples = 16.0 * double(messages);
    std::printf("16 nodes, %.0f samples in %.2f s: %.2f M samples/s linked on one thread; %llu links (expected %llu), late %llu\n",
                samples, elapsed, samples / elapsed / 1e6, static_cast<unsigned long long>(links),
                static_cast<unsigned long long>(8 * messages), state["late_samples"].get<unsigned long long>());
    return links == 8 * messages ? 0 : 1;
}
