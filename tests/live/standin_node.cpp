// standin_node - a node that streams as the SDK's streaming will (until it
// does): the bytes of a real version-3 log, written by the SDK's LogFile,
// sent over TCP block by block as their time comes (docs/live.md).
//
//   standin_node PORT NODE TRACEPOINT in|out START_NS PERIOD_US OFFSET_US SECONDS [GROW_US_PER_S]
//
// Sample k is at START_NS + k * PERIOD_US + OFFSET_US and carries message k
// as its input (in) or output (out) hash: two such nodes started with the
// same START_NS are a link of latency (OFFSET_in - OFFSET_out). With
// GROW_US_PER_S, the offset grows by that much each second of the run (a
// link whose latency grows while it runs).
#include "hashtrace/logio/block_stream.hpp"

#include "node_logs.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace {

using namespace hashtrace;
using namespace hashtrace::live::testing;

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int connect_to(int port) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("cannot connect to port " + std::to_string(port));
    return s;
}

void send_all(int socket, const std::string& bytes) {
    for (std::size_t at = 0; at < bytes.size();) {
        const ssize_t n = ::send(socket, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
        if (n <= 0) throw std::runtime_error("the collector closed the connection");
        at += static_cast<std::size_t>(n);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 9 && argc != 10) {
        std::fprintf(stderr, "usage: standin_node PORT NODE TRACEPOINT in|out START_NS PERIOD_US OFFSET_US SECONDS [GROW_US_PER_S]\n");
        return 2;
    }
    try {
        const int port = std::stoi(argv[1]);
        const bool input = std::string(argv[4]) == "in";
        const std::int64_t start = std::stoll(argv[5]), period = std::stoll(argv[6]) * 1000, offset = std::stoll(argv[7]) * 1000;
        const auto count = static_cast<std::uint64_t>(std::stod(argv[8]) * 1e9 / double(period));
        const double grow = argc == 10 ? std::stod(argv[9]) * 1e-6 : 0;  // of offset per second of the run
        std::vector<TestSample> samples;
        for (std::uint64_t k = 0; k < count; ++k) {
            const std::int64_t since = static_cast<std::int64_t>(k) * period;
            const std::int64_t t = start + since + offset + static_cast<std::int64_t>(grow * double(since));
            samples.push_back(input ? TestSample{t, k, std::nullopt} : TestSample{t, std::nullopt, k});
        }
        // A block per 10 ms of samples, as a writer thread flushing every 10 ms would.
        const std::string log = node_log(argv[2], argv[3], samples, static_cast<std::size_t>(std::max<std::int64_t>(10'000'000 / period, 1)));
        logio::BlockStream cut(argv[2]);
        const auto blocks = cut.feed(log);
        const int socket = connect_to(port);
        send_all(socket, cut.header_bytes());
        for (const auto& b : blocks) {
            const std::int64_t due = b.samples > 0 ? b.max_ns : 0;
            if (due > now_ns()) std::this_thread::sleep_for(std::chrono::nanoseconds(due - now_ns()));
            send_all(socket, b.bytes);
        }
        ::close(socket);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "standin_node: %s\n", e.what());
        return 1;
    }
}
