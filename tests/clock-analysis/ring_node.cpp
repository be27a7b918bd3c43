// A node of a one-way ring of real processes over UDP on loopback, for
// ring_process_test.cpp: N0 sends a token every PERIOD_US; each other node
// receives it from the one before and passes it to the one after; N0
// receives it back. Messages go one way only on every hop, so each clock is
// placed from the ring's cycle alone.
//
//   ring_node LOG_DIR INDEX NODES PORT_DIR MESSAGES PERIOD_US
//       binds 127.0.0.1 on a free port and writes it to PORT_DIR/INDEX.port,
//       waits for the next node's port file (node 0: for every node's), then
//       runs; node 0 ends the ring with a done datagram once its tokens are
//       sent, and every node passes it on and stops.
#include "udp_node.hpp"

#include <hashtrace/hashtrace.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

using namespace hashtrace::test;
namespace fs = std::filesystem;

std::uint16_t wait_for_port(const fs::path& file) {
    for (int tries = 0; tries < 3000; ++tries) {
        std::ifstream in(file);
        unsigned port = 0;
        if (in >> port && port > 0) return static_cast<std::uint16_t>(port);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw std::runtime_error("no port in " + file.string());
}

void originate(int fd, const sockaddr_in& next, std::uint64_t messages, std::int64_t period_us) {
    std::thread back([fd] {
        hashtrace::set_thread_name("receiver");
        for (Datagram d; (d = receive_from(fd)).kind != kDone;)
            if (d.kind == kMessage) TRACEPOINT("Receive", hashtrace::in("msg", d.origin, d.id), hashtrace::none);
    });
    auto tick = std::chrono::steady_clock::now();
    for (std::uint64_t k = 0; k < messages; ++k) {
        TRACEPOINT("Send", hashtrace::none, hashtrace::out("msg", std::uint32_t{0}, k));
        send_to(fd, next, Datagram{kMessage, 0, k});
        std::this_thread::sleep_until(tick += std::chrono::microseconds(period_us));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the last tokens come round
    send_to(fd, next, Datagram{kDone, 0, 0});
    back.join();
}

void pass_on(int fd, const sockaddr_in& next, std::uint32_t index) {
    for (Datagram d; (d = receive_from(fd)).kind != kDone;) {
        if (d.kind != kMessage) continue;
        TRACEPOINT("Receive", hashtrace::in("msg", d.origin, d.id), hashtrace::none);
        TRACEPOINT("Send", hashtrace::none, hashtrace::out("msg", index, d.id));
        send_to(fd, next, Datagram{kMessage, index, d.id});
    }
    send_to(fd, next, Datagram{kDone, index, 0});
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 7) {
        std::fprintf(stderr, "usage: ring_node LOG_DIR INDEX NODES PORT_DIR MESSAGES PERIOD_US\n");
        return 2;
    }
    const std::string log_dir = argv[1];
    const auto index = static_cast<std::uint32_t>(std::stoul(argv[2])), nodes = static_cast<std::uint32_t>(std::stoul(argv[3]));
    const fs::path ports = argv[4];
    const std::uint64_t messages = std::stoull(argv[5]);
    const std::int64_t period_us = std::stoll(argv[6]);
    hashtrace::Session tracing(tracing_config("N" + std::to_string(index), log_dir));
    const int fd = bound_socket_with_port_file((ports / (std::to_string(index) + ".port")).string());
    const sockaddr_in next = loopback(wait_for_port(ports / (std::to_string((index + 1) % nodes) + ".port")));
    if (index == 0) {
        for (std::uint32_t n = 1; n < nodes; ++n) wait_for_port(ports / (std::to_string(n) + ".port"));
        originate(fd, next, messages, period_us);
    } else {
        pass_on(fd, next, index);
    }
    ::close(fd);
    return 0;
}
