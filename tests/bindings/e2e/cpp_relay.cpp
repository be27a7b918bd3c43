// The C++ node of the three-language test: receives message ids from the C#
// sender, drops every tenth on purpose, and forwards the rest as commands to
// the Python actor.
//   cpp_relay <python actor's port>    (prints its own port, then serves one sender)
#include <hashtrace/hashtrace.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool read_all(int fd, void* p, std::size_t n) {
    auto* b = static_cast<char*>(p);
    while (n) {
        const ssize_t r = ::read(fd, b, n);
        if (r <= 0) return false;
        b += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

bool write_all(int fd, const void* p, std::size_t n) {
    const auto* b = static_cast<const char*>(p);
    while (n) {
        const ssize_t r = ::write(fd, b, n);
        if (r <= 0) return false;
        b += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

int fail(const char* what) {
    std::perror(what);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: cpp_relay <python actor port>\n");
        return 2;
    }
    hashtrace::Config config;
    config.node_name = "CppRelay";
    hashtrace::Session tracing(hashtrace::Config::from_env(config));

    const int actor = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to = loopback(static_cast<std::uint16_t>(std::atoi(argv[1])));
    if (::connect(actor, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) return fail("connect to the actor");
    const int one = 1;
    ::setsockopt(actor, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in here = loopback(0);
    socklen_t len = sizeof here;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&here), sizeof here) != 0 || ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&here), &len) != 0)
        return fail("listen");
    std::printf("%u\n", ntohs(here.sin_port));
    std::fflush(stdout);
    const int sender = ::accept(listener, nullptr, nullptr);
    if (sender < 0) return fail("accept");

    std::uint64_t id, received = 0, forwarded = 0;
    while (read_all(sender, &id, sizeof id)) {
        ++received;
        TRACEPOINT("Received", hashtrace::inout("messageid", id));
        if (id % 10 == 9) continue;  // lost on purpose: its Received output stays unconsumed
        const double gain = static_cast<double>(id) * 0.5;
        TRACEPOINT("Forwarded", hashtrace::in("messageid", id), hashtrace::out("command", id, gain));
        unsigned char command[16];
        std::memcpy(command, &id, 8);
        std::memcpy(command + 8, &gain, 8);
        if (!write_all(actor, command, sizeof command)) return fail("write to the actor");
        ++forwarded;
    }
    ::close(actor);
    std::fprintf(stderr, "cpp_relay: %llu received, %llu forwarded\n", static_cast<unsigned long long>(received),
                 static_cast<unsigned long long>(forwarded));
    return 0;
}
