// The collector over real sockets: nodes' bytes through the stream port in
// pieces, the state and the page through HTTP, and a refused connection
// that leaves the others served.
#include "hashtrace/live/listener.hpp"
#include "hashtrace/live/page_server.hpp"

#include "node_logs.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

namespace hashtrace::live::testing {
namespace {

constexpr std::int64_t kMs = 1'000'000;

class Node {
public:
    explicit Node(int port) : socket_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<std::uint16_t>(port));
        ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        EXPECT_EQ(::connect(socket_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    }
    ~Node() { ::close(socket_); }
    void send_in_pieces(const std::string& bytes, std::size_t piece) {
        for (std::size_t at = 0; at < bytes.size(); at += piece)
            ASSERT_GT(::send(socket_, bytes.data() + at, std::min(piece, bytes.size() - at), MSG_NOSIGNAL), 0);
    }

private:
    int socket_;
};

// Polls the state over HTTP until `done` holds of it or a generous minute
// passes (then the test fails on what it saw).
nlohmann::json state_when(httplib::Client& http, const std::function<bool(const nlohmann::json&)>& done) {
    nlohmann::json state;
    for (int attempt = 0; attempt < 600; ++attempt) {
        const auto reply = http.Get("/api/state");
        if (reply && reply->status == 200) {
            state = nlohmann::json::parse(reply->body);
            if (done(state)) return state;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return state;
}

TEST(Sockets, StreamsInLinksOutAndARefusedPeerLeavesTheOthers) {
    const auto spec = graph::parse_spec("[[pair]]\nfrom = \"A/Send\"\nto = \"B/Receive\"\n", "live.toml");
    CollectorOptions options;
    options.margin_ns = 5 * kMs;
    Collector collector(spec, options);
    StreamListener listener(collector, "127.0.0.1", 0);
    PageServer server(collector, PageOptions{});  // loopback, any free port
    httplib::Client http("127.0.0.1", server.port());

    const Pair logs = linked_pair("A", "B", 5'000'000'000, kMs, 2 * kMs, 1000, 0, 50);
    {
        Node a(listener.port()), b(listener.port()), intruder(listener.port());
        intruder.send_in_pieces("not a log at all, but long enough to be looked at", 4096);  // one send: it is cut off after
        a.send_in_pieces(logs.producer, 333);
        b.send_in_pieces(logs.consumer, 1024);
    }  // the nodes close
    // Settled once both streams are whole (the nodes' logs came in bulk, not
    // as their time passed: settling earlier would make one node's samples late).
    const auto closed = [](const nlohmann::json& s) {
        return s["nodes"].size() == 2 && !s["nodes"][0]["connected"].get<bool>() && !s["nodes"][1]["connected"].get<bool>();
    };
    ASSERT_TRUE(closed(state_when(http, closed)));
    collector.finish();
    const auto state = state_when(http, [](const nlohmann::json& s) { return s["links"].size() == 1 && s["refused"] == 1; });
    ASSERT_EQ(state["links"].size(), 1u) << state.dump();
    EXPECT_EQ(state["links"][0]["count"], 1000);
    EXPECT_EQ(state["nodes"][0]["samples"], 1000);
    EXPECT_NEAR(state["links"][0]["p95_ms"].get<double>(), 2.0, 0.02);
    EXPECT_EQ(state["refused"], 1);
    EXPECT_NE(state["messages"].dump().find("not a binary hashtrace log"), std::string::npos);

    const auto page = http.Get("/");
    ASSERT_TRUE(page);
    EXPECT_NE(page->body.find("uPlot"), std::string::npos);  // embedded, not fetched
    EXPECT_EQ(page->body.find("/*LIVE_JS*/"), std::string::npos);
    EXPECT_EQ(page->body.find("src=\"http"), std::string::npos);
}

TEST(Sockets, APortInUseIsSaid) {
    Collector collector(graph::parse_spec("", "live.toml"), {});
    StreamListener first(collector, "127.0.0.1", 0);
    try {
        StreamListener second(collector, "127.0.0.1", first.port());
        FAIL() << "two listeners on one port";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot listen"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace hashtrace::live::testing
