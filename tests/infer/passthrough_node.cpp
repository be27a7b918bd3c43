// A node of the pass-through router system that tests/infer/real_system_test.cpp
// runs as real processes over UDP on loopback: the paper's router topology
// with a router that forwards each message with its hash unchanged.
//
//   passthrough_node router LOG_DIR PORT_FILE CLIENTS
//       binds 127.0.0.1 on a free port and writes it to PORT_FILE; waits for
//       a hello from each of CLIENTS clients, starts them, forwards every
//       message to the other clients, and ends them once all are done.
//   passthrough_node client LOG_DIR NAME INDEX ROUTER_PORT PERIOD_US MESSAGES
//       a periodic loop that, at each tick, processes what its inbox holds
//       and creates one message; a sender thread sends it; a receiver thread
//       receives and queues what the router forwards.
//
// Every tracepoint but Created and Processed passes the message id on
// unchanged: Sent, Router/Receive, Router/Forward, Received, Queued.
#include "udp_node.hpp"

#include <hashtrace/hashtrace.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace hashtrace::test;

int run_router(const std::string& log_dir, const std::string& port_file, std::uint32_t clients) {
    hashtrace::Session tracing(tracing_config("Router", log_dir));
    hashtrace::set_thread_name("router");
    const int fd = bound_socket_with_port_file(port_file);
    std::vector<sockaddr_in> client(clients);
    for (std::uint32_t hellos = 0; hellos < clients;) {
        sockaddr_in from{};
        const Datagram d = receive_from(fd, &from);
        if (d.kind == kHello && d.origin < clients) client[d.origin] = from, ++hellos;
    }
    for (const auto& c : client) send_to(fd, c, Datagram{kStart, 0, 0});
    for (std::uint32_t done = 0; done < clients;) {
        const Datagram d = receive_from(fd);
        if (d.kind == kDone) {
            ++done;
            continue;
        }
        if (d.kind != kMessage) continue;
        TRACEPOINT("Receive", hashtrace::inout("msg", d.id));
        for (std::uint32_t k = 0; k < clients; ++k) {
            if (k == d.origin) continue;
            TRACEPOINT("Forward", hashtrace::inout("msg", d.id));
            send_to(fd, client[k], d);
        }
    }
    for (const auto& c : client) send_to(fd, c, Datagram{kDone, 0, 0});
    ::close(fd);
    return 0;
}

int run_client(const std::string& log_dir, const std::string& name, std::uint32_t index, std::uint16_t router_port,
               std::int64_t period_us, std::uint64_t messages) {
    hashtrace::Session tracing(tracing_config(name, log_dir));
    const int fd = bound_socket(0);
    const sockaddr_in router = loopback(router_port);
    send_to(fd, router, Datagram{kHello, index, 0});
    while (receive_from(fd).kind != kStart) {
    }
    Inbox inbox, outbox;
    constexpr std::uint64_t kStop = ~std::uint64_t{0};
    std::thread receiver([&] {
        hashtrace::set_thread_name("receiver");
        for (Datagram d; (d = receive_from(fd)).kind != kDone;) {
            if (d.kind != kMessage) continue;
            TRACEPOINT("Received", hashtrace::inout("msg", d.id));
            TRACEPOINT("Queued", hashtrace::inout("msg", d.id));
            inbox.push(d.id);
        }
    });
    std::thread sender([&] {
        hashtrace::set_thread_name("sender");
        for (std::uint64_t id; (id = outbox.pop()) != kStop;) {
            TRACEPOINT("Sent", hashtrace::inout("msg", id));
            send_to(fd, router, Datagram{kMessage, index, id});
        }
        send_to(fd, router, Datagram{kDone, index, 0});
    });
    hashtrace::set_thread_name("loop");
    auto tick = std::chrono::steady_clock::now();
    for (std::uint64_t k = 0; k < messages; ++k) {
        for (const auto id : inbox.take_all()) TRACEPOINT("Processed", hashtrace::in("msg", id), hashtrace::none);
        const std::uint64_t id = (std::uint64_t{index + 1} << 32) | k;
        TRACEPOINT("Created", hashtrace::none, hashtrace::out("msg", id));
        outbox.push(id);
        tick += std::chrono::microseconds(period_us);
        std::this_thread::sleep_until(tick);
    }
    outbox.push(kStop);
    sender.join();
    receiver.join();
    for (const auto id : inbox.take_all()) TRACEPOINT("Processed", hashtrace::in("msg", id), hashtrace::none);
    ::close(fd);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<std::string> a(argv + 1, argv + argc);
        if (a.size() == 4 && a[0] == "router") return run_router(a[1], a[2], static_cast<std::uint32_t>(std::stoul(a[3])));
        if (a.size() == 7 && a[0] == "client")
            return run_client(a[1], a[2], static_cast<std::uint32_t>(std::stoul(a[3])), static_cast<std::uint16_t>(std::stoul(a[4])),
                              std::stoll(a[5]), std::stoull(a[6]));
        std::fprintf(stderr, "usage: passthrough_node router LOG_DIR PORT_FILE CLIENTS\n"
                             "       passthrough_node client LOG_DIR NAME INDEX ROUTER_PORT PERIOD_US MESSAGES\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "passthrough_node: %s\n", e.what());
        return 1;
    }
}
