// Streaming to a collector: a node streams its blocks to a TCP server on
// loopback; what the server receives reads as a log with the disk log's samples.
#include "test_support.hpp"

#include <hashtrace/logio/reader.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

using hashtrace::testing::fresh_dir;
using hashtrace::testing::test_config;
using namespace hashtrace::logio;

namespace {

struct Count : LogVisitor {
    std::uint64_t samples = 0, losses = 0, lost = 0, stream_drops = 0;
    std::map<std::uint32_t, std::string> names;
    void on_tracepoint(std::uint32_t index, const TracepointInfo& tp) override { names[index] = tp.tracepoint_name; }
    void on_samples(std::span<const SampleRecord> batch) override { samples += batch.size(); }
    void on_loss(const LossRecord& l) override { ++losses, lost += l.count; }
    void on_drop(const DropRecord& d) override {
        if (names[d.tracepoint] == "hashtrace.stream_dropped") stream_drops += d.count;
    }
};

template <class Condition>
bool wait_for(Condition c) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!c()) {
        if (std::chrono::steady_clock::now() > give_up) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

// A stand-in collector on loopback. Each connection it accepts is read to its
// end, unless the server was told to stop reading or to close a connection
// after its first bytes; `connections` holds what each one received.
struct Server {
    int listener = -1;
    std::uint16_t port = 0;
    std::atomic<bool> reading{true};
    std::size_t close_first_after = 0;  // 0: read the first connection to its end too
    std::mutex mutex;
    std::vector<std::string> connections;
    std::thread acceptor;

    Server() {
        listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
        socklen_t len = sizeof a;
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port); }
    // Until this, connections are refused: the collector is absent.
    void listen() {
        EXPECT_EQ(::listen(listener, 4), 0);
        acceptor = std::thread([this] {
            for (int fd; (fd = ::accept(listener, nullptr, nullptr)) >= 0;) serve(fd);
        });
    }
    void serve(int fd) {
        std::size_t index;
        {
            std::lock_guard<std::mutex> lock(mutex);
            index = connections.size();
            connections.emplace_back();
        }
        const std::size_t limit = index == 0 && close_first_after ? close_first_after : SIZE_MAX;
        char buf[65536];
        std::size_t got = 0;
        for (;;) {
            while (!reading.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            const ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit - got));
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
            std::lock_guard<std::mutex> lock(mutex);
            connections[index].append(buf, static_cast<std::size_t>(n));
            if (got == limit) break;
        }
        ::close(fd);
    }
    std::size_t count() {
        std::lock_guard<std::mutex> lock(mutex);
        return connections.size();
    }
    // After the node's session ended (its connection closed).
    std::vector<std::string> finish() {
        ::shutdown(listener, SHUT_RDWR);
        if (acceptor.joinable()) acceptor.join();
        return connections;
    }
    ~Server() {
        ::shutdown(listener, SHUT_RDWR);
        if (acceptor.joinable()) acceptor.join();
        ::close(listener);
    }
};

struct Outcome {
    Count disk, stream;
    hashtrace::Stats stats;
    bool stream_closed_cleanly = false;  // the last connection ended with the log's end record
    ReadReport disk_report;
};

// The node's disk log and the last connection's bytes, each read as a log.
Outcome read_both(const std::string& path, const std::vector<std::string>& connections) {
    Outcome o;
    o.stats = hashtrace::stats();
    o.disk_report = read_log(std::filesystem::path(path), o.disk);
    if (!connections.empty()) o.stream_closed_cleanly = !read_log(std::string_view(connections.back()), "stream", o.stream).closed_uncleanly();
    return o;
}

std::uint32_t g_next = 0;
void trace(std::uint32_t n) {
    for (std::uint32_t i = 0; i < n; ++i) TRACEPOINT("Send", hashtrace::inout("messageid", g_next++));
}

// A session streaming to `server` (listening or not, as the test set it up)
// that runs `body`: the samples it recorded, what the server received on each
// connection, and the disk log and the last connection read back.
struct Streamed {
    Outcome outcome;
    std::uint64_t recorded = 0;
    std::vector<std::string> connections;
};
template <class Body>
Streamed stream_session(const std::string& dir, Server& server, Body body) {
    auto config = test_config(fresh_dir(dir));
    config.stream_to = server.address();
    config.when_full = hashtrace::FullPolicy::block;
    Streamed out;
    std::string path;
    {
        hashtrace::Session s(config);
        const std::uint32_t first = g_next;
        body();
        out.recorded = g_next - first;
        path = s.log_path();
    }
    out.connections = server.finish();
    out.outcome = read_both(path, out.connections);
    return out;
}

TEST(Stream, ReceivedBytesReadAsTheDiskLog) {
    Server server;
    server.listen();
    const Outcome o = stream_session("stream_whole", server, [] { trace(20000); }).outcome;
    ASSERT_EQ(server.connections.size(), 1u);
    EXPECT_EQ(o.disk.samples, 20000u);
    ASSERT_GT(o.stream.samples, 0u);
    EXPECT_TRUE(o.stream_closed_cleanly);
    // The first blocks may be dropped while the connection is made: counted, in the stream and in the log.
    EXPECT_EQ(o.stream.samples + o.stats.stream_dropped, o.disk.samples);
    EXPECT_EQ(o.stream.lost, o.stats.stream_dropped);
    EXPECT_EQ(o.disk.stream_drops, o.stats.stream_dropped);
    EXPECT_EQ(o.disk.lost, 0u);
}

// A session that ends before its connection is made (its few samples in the
// one block written at stop) still waits for it: the collector gets them all,
// and the log's end record.
TEST(Stream, AShortSessionStillReachesTheCollector) {
    Server server;
    server.listen();
    const Outcome o = stream_session("stream_short", server, [] { trace(10); }).outcome;
    ASSERT_EQ(server.connections.size(), 1u);
    EXPECT_EQ(o.disk.samples, 10u);
    EXPECT_EQ(o.stream.samples, 10u);
    EXPECT_EQ(o.stats.stream_dropped, 0u);
    EXPECT_TRUE(o.stream_closed_cleanly);
}

TEST(Stream, AnAbsentCollectorIsReachedWhenItAppears) {
    Server server;  // bound, not listening: connections are refused
    const auto [o, recorded, connections] = stream_session("stream_late", server, [&] {
        ASSERT_TRUE(wait_for([&] { trace(100); return hashtrace::stats().stream_dropped > 0; }));
        server.listen();
        ASSERT_TRUE(wait_for([&] { trace(100); return server.count() > 0; }));
        trace(1000);
    });
    EXPECT_EQ(o.disk.samples, recorded);
    EXPECT_GT(o.stats.stream_dropped, 0u);
    EXPECT_GT(o.stream.losses, 0u);  // the stream says what it missed
    EXPECT_EQ(o.stream.samples + o.stats.stream_dropped, o.disk.samples);
    EXPECT_EQ(o.disk.stream_drops, o.stats.stream_dropped);
}

TEST(Stream, ACollectorThatStopsReadingCostsTheDiskLogNothing) {
    Server server;
    server.reading = false;
    server.listen();
    const auto [o, recorded, connections] = stream_session("stream_stalled", server, [&] {
        ASSERT_TRUE(wait_for([&] { trace(5000); return hashtrace::stats().stream_dropped > 0; }));
        server.reading = true;  // so the connection can close
    });
    EXPECT_EQ(o.disk.samples, recorded);
    EXPECT_EQ(o.disk.lost, 0u);
    EXPECT_GT(o.stats.stream_dropped, 0u);
    EXPECT_EQ(o.stream.samples + o.stats.stream_dropped, recorded);
    EXPECT_EQ(o.disk.stream_drops, o.stats.stream_dropped);
    // Read back, the disk log reports them as the stream's, not as samples the node lost.
    EXPECT_EQ(o.disk_report.stream_dropped, o.stats.stream_dropped);
    EXPECT_EQ(o.disk_report.dropped_samples, 0u);
}

TEST(Stream, ACollectorThatClosesMidBlockIsReconnected) {
    Server server;
    server.close_first_after = 100;  // the file header and a few bytes of the first block
    server.listen();
    const auto [o, recorded, connections] = stream_session("stream_torn", server, [&] {
        ASSERT_TRUE(wait_for([&] { trace(100); return server.count() >= 2; }));
        trace(1000);
    });
    ASSERT_EQ(connections.size(), 2u);
    EXPECT_EQ(connections[0].size(), 100u);  // the outcome reads the second connection: a log of its own
    EXPECT_EQ(o.disk.samples, recorded);
    EXPECT_GT(o.stream.samples, 0u);
    // What the kernel took before the collector closed is lost without the
    // node knowing (the collector closed, so it knows); the rest is counted.
    EXPECT_LE(o.stream.samples + o.stats.stream_dropped, recorded);
    EXPECT_EQ(o.stream.lost, o.stats.stream_dropped);
    EXPECT_EQ(o.disk.stream_drops, o.stats.stream_dropped);
}

TEST(Stream, BadAddressesAreRefusedWithTheReason) {
    for (const char* bad : {"", "host", "host:", ":80", "host:0", "host:65536", "host:8x"})
        EXPECT_THROW(hashtrace::parse_stream_address(bad), std::invalid_argument) << bad;
    EXPECT_EQ(hashtrace::parse_stream_address("[::1]:9000").first, "::1");
    ::setenv("HASHTRACE_STREAM", "nowhere", 1);
    EXPECT_THROW(hashtrace::Config::from_env(), std::invalid_argument);
    ::setenv("HASHTRACE_STREAM", "localhost:7000", 1);
    EXPECT_EQ(hashtrace::Config::from_env().stream_to, "localhost:7000");
    ::unsetenv("HASHTRACE_STREAM");
}

}  // namespace
