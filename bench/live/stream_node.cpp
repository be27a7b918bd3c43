// live_stream_node - one node of the collector's socket benchmark
// (bench/live/socket_throughput.py, docs/benchmarks.md "Live"): a real SDK
// session (its log and, with HASHTRACE_STREAM set, its stream) recording one
// tracepoint at a paced rate.
//
//   live_stream_node send|receive NODE RATE SECONDS START_NS COUNTER_FILE PAIR
//
// `send` records "Send" with out("messageid", m) for m = 0, 1, ... at
// START_NS + m / RATE and publishes how many it recorded in COUNTER_FILE;
// `receive` records "Receive" with in("messageid", m) for each m the sender
// has recorded, at the same pace: the two are a link. PAIR keeps the pairs'
// message numbers apart. Prints one JSON line of the session's Stats.
#include <hashtrace/hashtrace.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

// The sender's count, shared through a file both processes map.
std::atomic<std::uint64_t>* shared_counter(const char* path) {
    const int fd = ::open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ::ftruncate(fd, 64) != 0) throw std::runtime_error(std::string("cannot open ") + path);
    void* p = ::mmap(nullptr, 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("cannot map ") + path);
    return static_cast<std::atomic<std::uint64_t>*>(p);
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Records messages as their time comes, a millisecond's worth at a time; the receiver never passes the sender.
std::uint64_t run(bool send, double rate, double seconds, std::int64_t start_ns, std::atomic<std::uint64_t>& sent, std::uint64_t base) {
    const auto total = static_cast<std::uint64_t>(rate * seconds);
    std::uint64_t done = 0;
    while (done < total) {
        const std::int64_t now = now_ns();
        std::uint64_t due = now < start_ns ? 0 : std::min(total, static_cast<std::uint64_t>(double(now - start_ns) * 1e-9 * rate));
        if (!send) due = std::min(due, sent.load(std::memory_order_acquire));
        for (; done < due; ++done) {
            if (send) TRACEPOINT("Send", hashtrace::none, hashtrace::out("messageid", base + done));
            else TRACEPOINT("Receive", hashtrace::in("messageid", base + done), hashtrace::none);
        }
        if (send) sent.store(done, std::memory_order_release);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return done;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: live_stream_node send|receive NODE RATE SECONDS START_NS COUNTER_FILE PAIR\n");
        return 2;
    }
    try {
        const bool send = std::string(argv[1]) == "send";
        if (!send && std::string(argv[1]) != "receive") throw std::invalid_argument("the role is send or receive");
        hashtrace::Config defaults;
        defaults.node_name = argv[2];
        auto& sent = *shared_counter(argv[6]);
        std::uint64_t recorded = 0;
        {
            hashtrace::Session session(hashtrace::Config::from_env(defaults));
            recorded = run(send, std::stod(argv[3]), std::stod(argv[4]), std::stoll(argv[5]), sent, std::stoull(argv[7]) << 40);
        }
        const hashtrace::Stats s = hashtrace::stats();
        std::printf("{\"node\": \"%s\", \"recorded\": %llu, \"written\": %llu, \"dropped\": %llu, \"stream_dropped\": %llu}\n", argv[2],
                    static_cast<unsigned long long>(recorded), static_cast<unsigned long long>(s.written),
                    static_cast<unsigned long long>(s.dropped), static_cast<unsigned long long>(s.stream_dropped));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "live_stream_node: %s\n", e.what());
        return 1;
    }
}
