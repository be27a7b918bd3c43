#include "samples/msg/connection.hpp"
#include "samples/msg/socket.hpp"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <sys/socket.h>
#include <thread>
#include <vector>

namespace msg = hashtrace::samples::msg;
using namespace std::chrono_literals;

namespace {

class Recorder : public msg::MessageHandler {
public:
    void on_received(msg::Connection&, const msg::SceneMessage& m) override {
        std::lock_guard lock(mutex);
        received.push_back(m);
    }
    void on_sent(msg::Connection&, const msg::SceneMessage& m) override {
        std::lock_guard lock(mutex);
        sent.push_back(m);
    }
    std::mutex mutex;
    std::vector<msg::SceneMessage> received;
    std::vector<msg::SceneMessage> sent;
};

struct SocketPair {
    msg::Fd server;  // accepted side, handshake done as `server_id`
    msg::Fd client;
    msg::NodeId server_saw{};
    msg::NodeId client_saw{};
};

// Two sockets on loopback that have exchanged hellos.
SocketPair connected_pair(msg::NodeId server_id, msg::NodeId client_id) {
    msg::Listener listener("127.0.0.1", 0);
    const auto deadline = msg::Clock::now() + 5s;
    auto accepted = std::async(std::launch::async, [&] {
        msg::Fd fd = listener.accept_until(deadline);
        msg::NodeId peer = msg::handshake(fd, server_id, "server", deadline);
        return std::make_pair(std::move(fd), peer);
    });
    SocketPair pair;
    pair.client = msg::connect_until({"127.0.0.1", listener.port()}, deadline);
    pair.client_saw = msg::handshake(pair.client, client_id, "client", deadline);
    auto [fd, peer] = accepted.get();
    pair.server = std::move(fd);
    pair.server_saw = peer;
    return pair;
}

msg::SceneMessage message(msg::NodeId origin, std::uint64_t n) {
    msg::SceneMessage m;
    m.kind = origin == msg::NodeId::physics ? msg::Kind::transform : msg::Kind::force;
    m.origin = origin;
    m.id = msg::make_message_id(origin, n);
    m.step = n;
    return m;
}

bool wait_until_done(const msg::Connection& a, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!a.done() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
    return a.done();
}

}  // namespace

TEST(Handshake, EachSideLearnsWhoTheOtherIs) {
    SocketPair p = connected_pair(msg::NodeId::router, msg::NodeId::render);
    EXPECT_EQ(p.server_saw, msg::NodeId::render);
    EXPECT_EQ(p.client_saw, msg::NodeId::router);
}

TEST(Connection, DeliversEveryMessageBothWaysInOrderThenSaysGoodbye) {
    SocketPair p = connected_pair(msg::NodeId::physics, msg::NodeId::haptics);
    Recorder server_side, client_side;
    msg::Connection server(std::move(p.server), p.server_saw, "Physics<-Haptics", server_side);
    msg::Connection client(std::move(p.client), p.client_saw, "Haptics->Physics", client_side);
    server.start();
    client.start();
    constexpr std::uint64_t kCount = 20000;  // several socket buffers' worth: exercises partial writes
    std::thread producer([&] {
        for (std::uint64_t i = 0; i < kCount; ++i) client.send(message(msg::NodeId::haptics, i));
        client.finish();
    });
    for (std::uint64_t i = 0; i < kCount; ++i) server.send(message(msg::NodeId::physics, i));
    server.finish();
    producer.join();
    ASSERT_TRUE(wait_until_done(server, 10s)) << server.error();
    ASSERT_TRUE(wait_until_done(client, 10s)) << client.error();
    EXPECT_EQ(server.error(), "");
    EXPECT_EQ(client.error(), "");
    server.stop();
    client.stop();
    ASSERT_EQ(server_side.received.size(), kCount);
    ASSERT_EQ(client_side.received.size(), kCount);
    ASSERT_EQ(client_side.sent.size(), kCount);
    for (std::uint64_t i = 0; i < kCount; ++i) {
        ASSERT_EQ(server_side.received[i], message(msg::NodeId::haptics, i));
        ASSERT_EQ(client_side.received[i], message(msg::NodeId::physics, i));
        ASSERT_EQ(client_side.sent[i], message(msg::NodeId::haptics, i));
    }
}

TEST(Connection, APeerThatClosesWithoutGoodbyeIsReportedAsAnError) {
    SocketPair p = connected_pair(msg::NodeId::router, msg::NodeId::render);
    Recorder handler;
    msg::Connection server(std::move(p.server), p.server_saw, "Router<-Render", handler);
    server.start();
    p.client = msg::Fd();  // the render node dies
    ASSERT_TRUE(wait_until_done(server, 5s));
    EXPECT_TRUE(server.peer_finished());
    EXPECT_NE(server.error().find("Router<-Render"), std::string::npos) << server.error();
    EXPECT_NE(server.error().find("without a goodbye"), std::string::npos) << server.error();
}

TEST(Connection, GarbageFromThePeerIsAFramingErrorNamingTheConnection) {
    SocketPair p = connected_pair(msg::NodeId::router, msg::NodeId::render);
    Recorder handler;
    msg::Connection server(std::move(p.server), p.server_saw, "Router<-Render", handler);
    server.start();
    const std::string junk = "this is not a frame at all, not even close";
    ASSERT_EQ(::send(p.client.get(), junk.data(), junk.size(), MSG_NOSIGNAL), static_cast<ssize_t>(junk.size()));
    ASSERT_TRUE(wait_until_done(server, 5s));
    EXPECT_NE(server.error().find("Router<-Render: byte 0: frame length"), std::string::npos) << server.error();
    EXPECT_TRUE(handler.received.empty());
}

TEST(Handshake, TimesOutWhenThePeerNeverSaysHello) {
    msg::Listener listener("127.0.0.1", 0);
    msg::Fd client = msg::connect_until({"127.0.0.1", listener.port()}, msg::Clock::now() + 2s);
    msg::Fd server = listener.accept_until(msg::Clock::now() + 2s);
    EXPECT_THROW(msg::handshake(server, msg::NodeId::router, "silent", msg::Clock::now() + 200ms), msg::NetError);
}

TEST(Connect, GivesUpAtTheDeadlineWhenNobodyListens) {
    std::uint16_t port;
    {
        msg::Listener probe("127.0.0.1", 0);  // a port that was free a moment ago
        port = probe.port();
    }
    const auto start = msg::Clock::now();
    EXPECT_THROW(msg::connect_until({"127.0.0.1", port}, start + 300ms), msg::NetError);
    EXPECT_GE(msg::Clock::now() - start, 300ms);
}

TEST(Endpoint, ParsesHostAndPortAndRejectsNonsense) {
    const msg::Endpoint e = msg::parse_endpoint("10.0.0.2:4700");
    EXPECT_EQ(e.host, "10.0.0.2");
    EXPECT_EQ(e.port, 4700);
    EXPECT_THROW(msg::parse_endpoint("10.0.0.2"), msg::NetError);
    EXPECT_THROW(msg::parse_endpoint("host:0"), msg::NetError);
    EXPECT_THROW(msg::parse_endpoint("host:70000"), msg::NetError);
    EXPECT_THROW(msg::parse_endpoint(":80"), msg::NetError);
}
