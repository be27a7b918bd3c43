#include "samples/msg/socket.hpp"

#include "samples/msg/frame_reader.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace hashtrace::samples::msg {

Fd& Fd::operator=(Fd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

Fd::~Fd() {
    if (fd_ >= 0) ::close(fd_);
}

namespace {

std::string errno_text() { return std::strerror(errno); }

int remaining_ms(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left < 0 ? 0 : static_cast<int>(left);
}

sockaddr_in resolve(const Endpoint& e) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(e.port);
    if (::inet_pton(AF_INET, e.host.c_str(), &addr.sin_addr) == 1) return addr;
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (int rc = ::getaddrinfo(e.host.c_str(), nullptr, &hints, &found); rc != 0 || !found) {
        throw NetError(e.text() + ": cannot resolve host: " + ::gai_strerror(rc));
    }
    addr.sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
    ::freeaddrinfo(found);
    return addr;
}

void set_nodelay(int fd) {
    // Small scene-graph updates must leave at once, not wait for Nagle to batch them.
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void set_nonblocking(int fd, bool on) {
    int flags = ::fcntl(fd, F_GETFL);
    ::fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

}  // namespace

Endpoint parse_endpoint(const std::string& text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
        throw NetError("'" + text + "': expected host:port");
    }
    Endpoint e;
    e.host = text.substr(0, colon);
    const std::string port = text.substr(colon + 1);
    char* end = nullptr;
    const unsigned long value = std::strtoul(port.c_str(), &end, 10);
    if (*end != '\0' || value == 0 || value > 65535) {
        throw NetError("'" + text + "': port must be 1-65535");
    }
    e.port = static_cast<std::uint16_t>(value);
    return e;
}

Listener::Listener(const std::string& address, std::uint16_t port) : address_(address) {
    Endpoint e{address, port};
    sockaddr_in addr = resolve(e);
    fd_ = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd_) throw NetError(e.text() + ": socket: " + errno_text());
    int one = 1;
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        throw NetError(e.text() + ": bind: " + errno_text());
    }
    if (::listen(fd_.get(), 16) != 0) throw NetError(e.text() + ": listen: " + errno_text());
    socklen_t len = sizeof addr;
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
}

Fd Listener::accept_until(Clock::time_point deadline) {
    pollfd p{fd_.get(), POLLIN, 0};
    while (true) {
        int rc = ::poll(&p, 1, remaining_ms(deadline));
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) throw NetError(address_ + ":" + std::to_string(port_) + ": poll: " + errno_text());
        if (rc == 0) {
            throw NetError(address_ + ":" + std::to_string(port_) + ": timed out waiting for a peer to connect");
        }
        Fd conn(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!conn) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            throw NetError(address_ + ":" + std::to_string(port_) + ": accept: " + errno_text());
        }
        set_nodelay(conn.get());
        return conn;
    }
}

Fd connect_until(const Endpoint& to, Clock::time_point deadline) {
    const sockaddr_in addr = resolve(to);
    std::string last_error;
    do {
        Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (!fd) throw NetError(to.text() + ": socket: " + errno_text());
        if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
            set_nodelay(fd.get());
            return fd;
        }
        last_error = errno_text();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (Clock::now() < deadline);
    throw NetError(to.text() + ": could not connect before the deadline (last error: " + last_error + ")");
}

NodeId handshake(const Fd& socket, NodeId me, const std::string& peer_label, Clock::time_point deadline) {
    set_nonblocking(socket.get(), false);
    SceneMessage hello;
    hello.kind = Kind::hello;
    hello.origin = me;
    const Frame frame = encode(hello);
    if (::send(socket.get(), frame.data(), frame.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(frame.size())) {
        throw NetError(peer_label + ": sending hello: " + errno_text());
    }
    FrameReader reader(peer_label);
    while (true) {
        pollfd p{socket.get(), POLLIN, 0};
        int rc = ::poll(&p, 1, remaining_ms(deadline));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) throw NetError(peer_label + ": no hello from the peer before the deadline");
        std::byte buf[kFrameSize];
        // Read at most one frame: anything after the hello belongs to the connection thread.
        ssize_t n = ::recv(socket.get(), buf, kFrameSize - reader.pending(), 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw NetError(peer_label + ": connection closed during the hello handshake");
        reader.append(buf, static_cast<std::size_t>(n));
        if (auto m = reader.next()) {
            if (m->kind != Kind::hello) throw NetError(peer_label + ": first frame is not a hello");
            set_nonblocking(socket.get(), true);
            return m->origin;
        }
    }
}

}  // namespace hashtrace::samples::msg
