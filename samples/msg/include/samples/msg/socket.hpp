// samples/msg/socket.hpp - the few TCP operations the sample nodes need:
// listen, accept, connect (retrying while the peer starts up) and the hello
// handshake that tells each side who the other is.
#pragma once

#include "samples/msg/message.hpp"

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace hashtrace::samples::msg {

using Clock = std::chrono::steady_clock;

// A network operation failed; the message names the address and the reason.
class NetError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Owns a file descriptor.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) noexcept : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd();

    int get() const noexcept { return fd_; }
    int release() noexcept {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }
    explicit operator bool() const noexcept { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// "host:port" -> parts. Throws NetError for a malformed endpoint.
struct Endpoint {
    std::string host;
    std::uint16_t port = 0;
    std::string text() const { return host + ":" + std::to_string(port); }
};
Endpoint parse_endpoint(const std::string& text);

// A listening socket on address:port (port 0 picks a free one; see port()).
class Listener {
public:
    Listener(const std::string& address, std::uint16_t port);
    std::uint16_t port() const noexcept { return port_; }
    // Waits for one connection until the deadline. Throws NetError on timeout.
    Fd accept_until(Clock::time_point deadline);

private:
    Fd fd_;
    std::uint16_t port_ = 0;
    std::string address_;
};

// Connects, retrying until the deadline while nobody listens yet (the peers of
// a distributed system start in any order). Throws NetError at the deadline.
Fd connect_until(const Endpoint& to, Clock::time_point deadline);

// Sends our hello and waits for the peer's; returns the peer's id. The socket
// is blocking during the handshake and left non-blocking afterwards.
NodeId handshake(const Fd& socket, NodeId me, const std::string& peer_label, Clock::time_point deadline);

}  // namespace hashtrace::samples::msg
