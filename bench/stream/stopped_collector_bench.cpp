// The goal: a collector paused with SIGSTOP for 10 s changes the
// application's tracepoint cost (p99) by less than 5 %, the disk log stays
// complete and the stream's drops are counted.
//
// One process runs two phases with the same paced load (bursts of tracepoints
// each millisecond): without a stream, then streaming to a stand-in collector
// (a forked TCP reader) that is stopped with SIGSTOP for the whole phase.
// Each tracepoint is timed alone with the TSC-backed steady clock; the
// clock's own cost is in both phases alike, so the ratio is the stream's.
//
//   bench_stream_stopped_collector [--seconds 10] [--per-ms 100] [--dir /tmp/...]
#include <hashtrace/hashtrace.hpp>
#include <hashtrace/logio/reader.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    int seconds = 10;
    int per_ms = 100;
    std::string dir = "/tmp/hashtrace-stream-bench";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--seconds") o.seconds = std::atoi(argv[i + 1]);
        else if (a == "--per-ms") o.per_ms = std::atoi(argv[i + 1]);
        else if (a == "--dir") o.dir = argv[i + 1];
        else {
            std::fprintf(stderr, "usage: %s [--seconds N] [--per-ms N] [--dir DIR]\n", argv[0]);
            std::exit(2);
        }
    }
    return o;
}

// The stand-in collector: a child that reads every connection to its end.
pid_t start_collector(std::uint16_t& port) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener, 4) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        std::perror("collector socket");
        std::exit(1);
    }
    port = ntohs(a.sin_port);
    const pid_t pid = ::fork();
    if (pid == 0) {
        static char buf[1 << 16];
        for (int fd; (fd = ::accept(listener, nullptr, nullptr)) >= 0; ::close(fd))
            while (::read(fd, buf, sizeof buf) > 0) {}
        std::_Exit(0);
    }
    ::close(listener);
    return pid;
}

struct Phase {
    std::vector<std::int64_t> cost_ns;
    std::uint64_t recorded = 0;
    hashtrace::Stats stats;
    std::string path;
};

// The paced load; `at_start` runs once the session started (the collector's SIGSTOP).
template <class AtStart>
Phase run_phase(const Options& o, hashtrace::Config config, AtStart at_start) {
    Phase p;
    p.cost_ns.reserve(static_cast<std::size_t>(o.seconds) * 1000 * static_cast<std::size_t>(o.per_ms));
    std::optional<hashtrace::Session> session(std::in_place, config);
    at_start();
    const auto end = Clock::now() + std::chrono::seconds(o.seconds);
    auto next = Clock::now();
    std::uint64_t id = 0;
    while (Clock::now() < end) {
        for (int i = 0; i < o.per_ms; ++i, ++id) {
            const auto t0 = Clock::now();
            TRACEPOINT("Step", hashtrace::inout("messageid", id));
            const auto t1 = Clock::now();
            p.cost_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
        }
        next += std::chrono::milliseconds(1);
        std::this_thread::sleep_until(next);
    }
    p.recorded = id;
    p.path = session->log_path();
    session.reset();
    p.stats = hashtrace::stats();
    return p;
}

std::int64_t percentile(std::vector<std::int64_t> v, double q) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

struct Counter : hashtrace::logio::LogVisitor {
    std::uint64_t samples = 0;
    void on_samples(std::span<const hashtrace::logio::SampleRecord> b) override { samples += b.size(); }
};

std::uint64_t samples_in(const std::string& path) {
    Counter c;
    hashtrace::logio::read_log(std::filesystem::path(path), c);
    return c.samples;
}

void print(const char* name, const Phase& p) {
    std::printf("%-28s p50 %5lld ns  p99 %5lld ns  p99.9 %6lld ns  recorded %llu  in log %llu  queue drops %llu  "
                "stream drops %llu\n",
                name, static_cast<long long>(percentile(p.cost_ns, 0.50)), static_cast<long long>(percentile(p.cost_ns, 0.99)),
                static_cast<long long>(percentile(p.cost_ns, 0.999)), static_cast<unsigned long long>(p.recorded),
                static_cast<unsigned long long>(samples_in(p.path)), static_cast<unsigned long long>(p.stats.dropped),
                static_cast<unsigned long long>(p.stats.stream_dropped));
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    std::filesystem::create_directories(o.dir);
    std::uint16_t port = 0;
    const pid_t collector = start_collector(port);

    hashtrace::Config config;
    config.node_name = "StreamBench";
    config.log_dir = o.dir;
    const Phase plain = run_phase(o, config, [] {});

    config.stream_to = "127.0.0.1:" + std::to_string(port);
    // The node connects, then the collector stops for the whole phase.
    const Phase stopped = run_phase(o, config, [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ::kill(collector, SIGSTOP);
    });
    ::kill(collector, SIGCONT);
    ::kill(collector, SIGTERM);
    ::waitpid(collector, nullptr, 0);

    print("no stream", plain);
    print("stream, collector stopped", stopped);
    const double ratio = static_cast<double>(percentile(stopped.cost_ns, 0.99)) /
                         static_cast<double>(std::max<std::int64_t>(1, percentile(plain.cost_ns, 0.99)));
    const bool complete = samples_in(stopped.path) == stopped.recorded - stopped.stats.dropped;
    std::printf("p99 ratio (stopped collector / no stream): %.3f; disk log complete: %s; stream drops counted: %s\n",
                ratio, complete ? "yes" : "NO", stopped.stats.stream_dropped > 0 ? "yes" : "NO");
    return complete && stopped.stats.stream_dropped > 0 ? 0 : 1;
}
