// udp_node.hpp - what the real-process test systems' nodes share
// (tests/infer: passthrough_node.cpp, fan_out_node.cpp; tests/combined:
// combined_node.cpp; tests/clock-analysis: ring_node.cpp): datagrams on
// loopback, a queue between threads, and a port file the test waits for.
#pragma once

#include <hashtrace/hashtrace.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace hashtrace::test {

enum Kind : std::uint32_t { kHello = 0, kStart = 1, kMessage = 2, kDone = 3 };

struct Datagram {
    std::uint32_t kind = kHello;
    std::uint32_t origin = 0;  // the client's index
    std::uint64_t id = 0;      // unique per message: origin in the high half
};

inline int bound_socket(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) throw std::runtime_error("bind() failed");
    return fd;
}

inline sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    return addr;
}

inline void send_to(int fd, const sockaddr_in& to, const Datagram& d) {
    if (::sendto(fd, &d, sizeof d, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) != sizeof d)
        throw std::runtime_error("sendto() failed");
}

inline Datagram receive_from(int fd, sockaddr_in* from = nullptr) {
    Datagram d;
    socklen_t length = sizeof(sockaddr_in);
    sockaddr_in ignored{};
    if (::recvfrom(fd, &d, sizeof d, 0, reinterpret_cast<sockaddr*>(from ? from : &ignored), &length) != sizeof d)
        throw std::runtime_error("recvfrom() failed");
    return d;
}

// A queue between two threads.
class Inbox {
public:
    void push(std::uint64_t id) {
        std::lock_guard lock(mutex_);
        ids_.push_back(id);
        ready_.notify_one();
    }
    std::deque<std::uint64_t> take_all() {
        std::lock_guard lock(mutex_);
        return std::exchange(ids_, {});
    }
    std::uint64_t pop() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !ids_.empty(); });
        const auto id = ids_.front();
        ids_.pop_front();
        return id;
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::uint64_t> ids_;
};

inline hashtrace::Config tracing_config(const std::string& node, const std::string& log_dir) {
    hashtrace::Config c;
    c.node_name = node;
    c.log_dir = log_dir;
    return c;
}

// Binds a socket to a free port on loopback and writes the port to
// `port_file`, whole and then renamed, so that a reader never sees half a number.
inline int bound_socket_with_port_file(const std::string& port_file) {
    const int fd = bound_socket(0);
    sockaddr_in self{};
    socklen_t length = sizeof self;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &length);
    std::ofstream(port_file + ".tmp") << ntohs(self.sin_port) << "\n";
    std::rename((port_file + ".tmp").c_str(), port_file.c_str());
    return fd;
}

}  // namespace hashtrace::test
