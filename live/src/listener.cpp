#include "hashtrace/live/listener.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace hashtrace::live {
namespace {

constexpr int kPollMs = 100;  // how soon a thread sees that the listener stops

bool readable(int socket) {
    pollfd p{socket, POLLIN, 0};
    return ::poll(&p, 1, kPollMs) > 0;
}

std::string peer_of(const sockaddr_in& a) {
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(a.sin_port));
}

}  // namespace

StreamListener::StreamListener(Collector& collector, const std::string& host, int port) : collector_(collector) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) throw std::runtime_error("not an IPv4 address: " + host);
    socket_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int yes = 1;
    ::setsockopt(socket_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(socket_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(socket_, 64) != 0) {
        const std::string why = std::strerror(errno);
        ::close(socket_);
        throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) + ": " + why);
    }
    socklen_t length = sizeof address;
    ::getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
}

StreamListener::~StreamListener() {
    stopping_ = true;
    acceptor_.join();
    for (Reader& r : readers_) r.thread.join();
    ::close(socket_);
}

// Connections that ended leave their threads to be joined here, so that
// nodes coming and going do not pile up threads.
void StreamListener::join_finished() {
    for (auto r = readers_.begin(); r != readers_.end();) {
        if (!r->done) {
            ++r;
            continue;
        }
        r->thread.join();
        r = readers_.erase(r);
    }
}

void StreamListener::accept_loop() {
    while (!stopping_) {
        join_finished();
        if (!readable(socket_)) continue;
        sockaddr_in peer{};
        socklen_t length = sizeof peer;
        const int s = ::accept(socket_, reinterpret_cast<sockaddr*>(&peer), &length);
        if (s < 0) continue;
        const auto connection = collector_.open(peer_of(peer));
        if (!connection) {
            ::close(s);
            continue;
        }
        Reader& reader = readers_.emplace_back();
        reader.thread = std::thread([this, s, id = *connection, &reader] { read_loop(s, id, reader); });
    }
}

void StreamListener::read_loop(int socket, std::size_t connection, Reader& self) {
    char buffer[64 * 1024];
    while (!stopping_) {
        if (!readable(socket)) {
            collector_.caught_up(connection);  // nothing waiting: holds no settling back
            continue;
        }
        const ssize_t n = ::recv(socket, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        pollfd more{socket, POLLIN, 0};  // bytes still waiting: this reader is catching up
        const bool waiting = ::poll(&more, 1, 0) > 0;
        if (!collector_.receive(connection, std::string_view(buffer, static_cast<std::size_t>(n)), waiting)) break;
    }
    collector_.close(connection);
    ::close(socket);
    self.done = true;
}

}  // namespace hashtrace::live
