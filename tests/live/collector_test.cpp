// The collector: streams fed in pieces, settled part by part, merged; its
// counts since the start against analyze's kernel on the whole run, and
// what it does with bad input.
#include "hashtrace/live/collector.hpp"

#include "hashtrace/graph/link.hpp"
#include "hashtrace/graph/load.hpp"
#include "hashtrace/shard/kernel.hpp"

#include "node_logs.hpp"
#include "hashtrace/detail/binary_format.hpp"
#include "hashtrace/logio/block_stream.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace hashtrace::live::testing {
namespace {

constexpr std::int64_t kStart = 3'000'000'000, kMs = 1'000'000;
constexpr std::uint64_t kMessages = 2000;
constexpr std::int64_t kLatency = 3 * kMs;

graph::AnalysisSpec spec() {
    return graph::parse_spec("[[pair]]\nfrom = \"A/Send\"\nto = \"B/Receive\"\n"
                             "[[interval]]\nname = \"A to B\"\nfrom = \"A/Send\"\nto = \"B/Receive\"\n",
                             "live.toml");
}

// The whole run at once, by the kernel analyze uses: the reference.
shard::ShardSummary whole_run(const std::vector<std::pair<std::string, std::string>>& logs) {
    const graph::SampleSet samples = graph::load_samples_from_memory(logs);
    const graph::Graph graph = graph::link(samples, spec());
    const std::int64_t first = samples.time_ns.front(), last = samples.time_ns.back();
    return shard::summarize(samples, graph, spec(), {first, last + 1, first, last, 0});
}

// Feeds the streams round-robin in pieces of `piece` bytes, settling after each round.
void feed_in_rounds(Collector& c, const std::vector<std::pair<std::size_t, std::string>>& streams, std::size_t piece) {
    std::size_t longest = 0;
    for (const auto& s : streams) longest = std::max(longest, s.second.size());
    for (std::size_t at = 0; at < longest; at += piece) {
        for (const auto& [id, bytes] : streams)
            if (at < bytes.size()) {
                EXPECT_TRUE(c.receive(id, std::string_view(bytes).substr(at, piece)));
            }
        c.settle();
    }
}

// Options with one field changed.
template <class Set>
CollectorOptions options(Set set) {
    CollectorOptions o;
    set(o);
    return o;
}

const nlohmann::json& node(const nlohmann::json& state, const std::string& name) {
    for (const auto& n : state["nodes"])
        if (n["node"] == name) return n;
    throw std::runtime_error("no node " + name + " in " + state.dump());
}

std::string messages(const nlohmann::json& state) { return state["messages"].dump(); }

TEST(Collector, CountsSinceTheStartAreTheWholeRunsByTheSameKernel) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    Collector c(spec(), options([&](CollectorOptions& o) { o.window_ns = 100'000 * kMs; }));
    const auto a = c.open("a"), b = c.open("b");
    ASSERT_TRUE(a && b);
    feed_in_rounds(c, {{*a, logs.producer}, {*b, logs.consumer}}, 997);
    c.finish();
    const nlohmann::json state = c.state();

    const shard::ShardSummary reference = whole_run({{"A", logs.producer}, {"B", logs.consumer}});
    ASSERT_EQ(reference.links.size(), 1u);
    const auto& [ends, link] = *reference.links.begin();
    EXPECT_EQ(link.latency.count, kMessages);  // the reference links what was built
    ASSERT_EQ(state["links"].size(), 1u) << state.dump();
    const auto& live_link = state["links"][0];
    EXPECT_EQ(live_link["from"], ends.first);
    EXPECT_EQ(live_link["to"], ends.second);
    EXPECT_EQ(live_link["count"], link.latency.count);
    EXPECT_NEAR(live_link["p50_ms"].get<double>(), 3.0, 3.0 * 0.01);
    EXPECT_NEAR(live_link["p99_ms"].get<double>(), 3.0, 3.0 * 0.01);
    EXPECT_EQ(node(state, "A")["samples"], kMessages);
    EXPECT_EQ(node(state, "B")["samples"], kMessages);
    EXPECT_EQ(node(state, "B")["unlinked_inputs"], reference.unlinked_inputs);
    ASSERT_EQ(state["intervals"].size(), 1u);
    EXPECT_EQ(state["intervals"][0]["count"], reference.intervals[0].latency.count);
    EXPECT_EQ(state["late_samples"], 0);
    EXPECT_EQ(state["shed_samples"], 0);  // fewer wait than the default floor: nothing is ever shed
    // The interval is one message: its critical path is that segment, all of the latency.
    const auto& segment = state["intervals"][0]["critical_segment"];
    ASSERT_TRUE(segment.is_object()) << state.dump();
    EXPECT_EQ(segment["from"], "A/Send");
    EXPECT_EQ(segment["to"], "B/Receive");
    EXPECT_NEAR(segment["mean_ms"].get<double>(), 3.0, 0.01);
    EXPECT_NEAR(segment["share"].get<double>(), 1.0, 0.01);
}

// After a stall, one connection's backlog is read whole before another's:
// while the other still has bytes waiting, nothing settles past its newest
// sample, so none of its samples comes late. (Said to wait or not, as the
// sockets' readers say it.)
TEST(Collector, AConnectionStillCatchingUpHoldsTheSettlingBack) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    const auto run = [&](bool say_waiting) {
        Collector c(spec(), options([&](CollectorOptions& o) { o.window_ns = 100'000 * kMs; }));
        const auto a = c.open("a"), b = c.open("b");
        const std::size_t head = logs.consumer.size() / 4;
        EXPECT_TRUE(c.receive(*b, std::string_view(logs.consumer).substr(0, head), say_waiting));  // B: a quarter, more waiting
        EXPECT_TRUE(c.receive(*a, logs.producer));  // A: all of it
        c.settle();
        EXPECT_TRUE(c.receive(*b, std::string_view(logs.consumer).substr(head)));
        c.finish();
        return c.state();
    };
    const nlohmann::json held = run(true), not_held = run(false);
    EXPECT_EQ(held["late_samples"], 0) << held.dump();
    ASSERT_EQ(held["links"].size(), 1u);
    EXPECT_EQ(held["links"][0]["count"], kMessages);
    // Without the reader's word, the rest of B's samples come after their time settled: counted late, not linked.
    EXPECT_GT(not_held["late_samples"].get<std::uint64_t>(), kMessages / 2) << not_held.dump();
}

// A log cut as the collector's readers cut a stream: its header's bytes, then each block's.
std::vector<std::string> pieces(const std::string& log) {
    logio::BlockStream cut("test");
    auto blocks = cut.feed(log);
    std::vector<std::string> out{cut.header_bytes()};
    for (auto& b : blocks) out.push_back(std::move(b.bytes));
    return out;
}

std::string joined(const std::vector<std::string>& parts, std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t k = from; k < to && k < parts.size(); ++k) out += parts[k];
    return out;
}

// A node sends its backlog as its socket takes it, between its writer's
// turns: the reader catching up finds the socket empty between two sends,
// while the node still holds older samples than the other nodes have sent.
// That does not end the catching up, so none of them comes late.
TEST(Collector, ASocketFoundEmptyOnceDoesNotEndCatchingUp) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    Collector c(spec(), options([&](CollectorOptions& o) { o.window_ns = 100'000 * kMs; }));
    const auto a = c.open("a"), b = c.open("b");
    const std::string_view consumer(logs.consumer);
    const std::size_t quarter = consumer.size() / 4;
    EXPECT_TRUE(c.receive(*b, consumer.substr(0, quarter), true));              // more waiting: catching up
    EXPECT_TRUE(c.receive(*b, consumer.substr(quarter, quarter), false));       // the socket ran dry for a moment
    EXPECT_TRUE(c.receive(*a, logs.producer));
    c.settle();
    EXPECT_TRUE(c.receive(*b, consumer.substr(2 * quarter)));                   // the rest of the node's backlog
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_EQ(state["late_samples"], 0) << state.dump();
    ASSERT_EQ(state["links"].size(), 1u) << state.dump();
    EXPECT_EQ(state["links"][0]["count"], kMessages);
}

// Catching up ends when the reader finds nothing waiting for a while (an idle
// node holds nothing back) or at the limit (a node lagging for another reason,
// its clock, holds the view back no longer): the rest of B then comes late.
TEST(Collector, CatchingUpEndsWhenTheReaderIsIdleOrAtTheLimit) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    const auto run = [&](std::int64_t limit_ns, bool idle) {
        Collector c(spec(), options([&](CollectorOptions& o) {
            o.window_ns = 100'000 * kMs;
            o.catch_up_limit_ns = limit_ns;
        }));
        const auto a = c.open("a"), b = c.open("b");
        const std::size_t head = logs.consumer.size() / 4;
        EXPECT_TRUE(c.receive(*b, std::string_view(logs.consumer).substr(0, head), true));
        if (idle) c.caught_up(*b);
        EXPECT_TRUE(c.receive(*a, logs.producer));
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        c.settle();
        EXPECT_TRUE(c.receive(*b, std::string_view(logs.consumer).substr(head)));
        c.finish();
        return c.state()["late_samples"].get<std::uint64_t>();
    };
    EXPECT_EQ(run(10'000 * kMs, false), 0u);            // held: within the limit, still catching up
    EXPECT_GT(run(10'000 * kMs, true), kMessages / 2);  // the reader found nothing waiting
    EXPECT_GT(run(10 * kMs, false), kMessages / 2);     // past the limit
}

// Over a second between two settles (the collector stopped): every
// connection counts as catching up, its reader not yet heard from. B's
// reader had found nothing waiting before the stop; A's is read first after
// it: B's samples still to come are not passed.
TEST(Collector, AStallMarksEveryConnectionCatchingUp) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    Collector c(spec(), options([&](CollectorOptions& o) { o.window_ns = 100'000 * kMs; }));
    const auto a = c.open("a"), b = c.open("b");
    const std::size_t head = logs.consumer.size() / 4;
    EXPECT_TRUE(c.receive(*b, std::string_view(logs.consumer).substr(0, head)));
    EXPECT_TRUE(c.receive(*a, std::string_view(logs.producer).substr(0, head)));
    c.settle();
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    EXPECT_TRUE(c.receive(*a, std::string_view(logs.producer).substr(head)));
    c.settle();
    EXPECT_TRUE(c.receive(*b, std::string_view(logs.consumer).substr(head)));
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_EQ(state["late_samples"], 0) << state.dump();
    ASSERT_EQ(state["links"].size(), 1u) << state.dump();
    EXPECT_EQ(state["links"][0]["count"], kMessages);
}

// A connection catching up whose newest sample is within the margin of the
// newest received holds nothing back: the settling stops a margin behind the
// newest sample anyway, short of its samples still to come.
TEST(Collector, ACatchingUpConnectionWithinTheMarginHoldsNothingBack) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    const std::vector<std::string> producer = pieces(logs.producer), consumer = pieces(logs.consumer);
    const std::int64_t margin = 200 * kMs;
    Collector c(spec(), options([&](CollectorOptions& o) {
        o.window_ns = 100'000 * kMs;
        o.margin_ns = margin;
    }));
    const auto a = c.open("a"), b = c.open("b");
    EXPECT_TRUE(c.receive(*a, joined(producer, 0, 11)));  // the header and 10 blocks: messages 0-999
    EXPECT_TRUE(c.receive(*b, joined(consumer, 0, 10), true));  // 9 blocks, catching up: 0-899, 100 ms behind
    c.settle();
    const nlohmann::json state = c.state();
    EXPECT_EQ(state["time_ns"], kStart + 999 * kMs) << state.dump();
    EXPECT_EQ(state["settled_ns"], kStart + 999 * kMs - margin) << state.dump();  // not B's newest less the margin
    EXPECT_TRUE(c.receive(*b, joined(consumer, 10, consumer.size())));
    EXPECT_TRUE(c.receive(*a, joined(producer, 11, producer.size())));
    c.finish();
    EXPECT_EQ(c.state()["late_samples"], 0) << c.state().dump();
}

TEST(Collector, TheWindowsPercentilesFollowTheLatestLatency) {
    // 1 ms for the first half of the run, 5 ms for the second: a window of
    // the last 0.5 s sees only the second.
    const Pair early = linked_pair("A", "B", kStart, kMs, 1 * kMs, 1000, 0, 100);
    const Pair late = linked_pair("A", "B", kStart + 1000 * kMs, kMs, 5 * kMs, 1000, 1000, 100);
    Collector c(spec(), options([&](CollectorOptions& o) { o.window_ns = 500 * kMs; }));
    const auto a1 = c.open("a"), b1 = c.open("b");
    feed_in_rounds(c, {{*a1, early.producer}, {*b1, early.consumer}}, 4096);
    c.close(*a1);
    c.close(*b1);
    const auto a2 = c.open("a"), b2 = c.open("b");  // the nodes reconnect: fresh headers
    feed_in_rounds(c, {{*a2, late.producer}, {*b2, late.consumer}}, 4096);
    c.finish();
    const nlohmann::json state = c.state();
    ASSERT_EQ(state["links"].size(), 1u) << state.dump();
    EXPECT_EQ(state["links"][0]["count"], 2000);
    EXPECT_NEAR(state["links"][0]["p50_ms"].get<double>(), 5.0, 0.05);
    EXPECT_NEAR(state["links"][0]["rate"].get<double>(), 1000.0, 1000.0 * 0.05);
    EXPECT_EQ(node(state, "A")["connections"], 2);
}

TEST(Collector, ANodeConnectedTwiceIsRefusedAndTheOthersGoOn) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, 500, 0, 100);
    Collector c(spec(), {});
    const auto a = c.open("a"), b = c.open("b"), again = c.open("a-again");
    ASSERT_TRUE(c.receive(*a, logs.producer));
    EXPECT_FALSE(c.receive(*again, logs.producer));
    EXPECT_FALSE(c.receive(*again, logs.producer));  // stays refused
    ASSERT_TRUE(c.receive(*b, logs.consumer));
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_NE(messages(state).find("already connected"), std::string::npos) << messages(state);
    EXPECT_EQ(state["refused"], 1);
    EXPECT_EQ(node(state, "A")["samples"], 500);
    EXPECT_EQ(state["links"][0]["count"], 500);
}

TEST(Collector, DamagedAndForeignStreamsAreRefusedAlone) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, 500, 0, 100);
    std::string damaged = linked_pair("C", "D", kStart, kMs, kLatency, 500, 9000, 100).producer;
    damaged[damaged.size() / 2] ^= 0x10;
    Collector c(spec(), {});
    const auto a = c.open("a"), b = c.open("b"), bad = c.open("bad"), http = c.open("http");
    EXPECT_FALSE(c.receive(*bad, damaged));
    EXPECT_FALSE(c.receive(*http, "GET / HTTP/1.1\r\n\r\n"));
    ASSERT_TRUE(c.receive(*a, logs.producer));
    ASSERT_TRUE(c.receive(*b, logs.consumer));
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_NE(messages(state).find("checksum"), std::string::npos) << messages(state);
    EXPECT_NE(messages(state).find("not a binary hashtrace log"), std::string::npos) << messages(state);
    EXPECT_EQ(state["refused"], 2);
    EXPECT_EQ(state["links"][0]["count"], 500);
}

// A block whose records are damaged but whose checksum was made to match
// (a writer's bug, not the wire's): the reader skips what it cannot decode.
TEST(Collector, ABlockThatPassesItsChecksumButDoesNotDecodeCostsOnlyItsSamples) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, 500, 0, 100);
    logio::BlockStream cut("B");
    auto blocks = cut.feed(logs.consumer);
    ASSERT_GE(blocks.size(), 3u);
    std::string& bad = blocks[2].bytes;  // samples 200..299 only
    ASSERT_FALSE(blocks[2].holds_records);
    for (std::size_t k = detail::kBlockHeader; k < bad.size(); ++k) bad[k] = '\xff';
    detail::store_u64(reinterpret_cast<unsigned char*>(bad.data()) + detail::kBlockChecksumAt,
                      detail::block_checksum(bad.data() + detail::kBlockChecksumAt + 8, bad.size() - detail::kBlockChecksumAt - 8));
    std::string damaged = cut.header_bytes();
    for (const auto& b : blocks) damaged += b.bytes;

    Collector c(spec(), {});
    const auto a = c.open("a"), b = c.open("b");
    ASSERT_TRUE(c.receive(*a, logs.producer));
    ASSERT_TRUE(c.receive(*b, damaged));  // the framing is whole
    c.finish();
    const nlohmann::json state = c.state();
    const auto links = state["links"][0]["count"].get<std::uint64_t>();
    EXPECT_GE(links, 400u) << state.dump();
    EXPECT_LT(links, 500u) << state.dump();
}

TEST(Collector, MoreStreamsThanAllowedAreRefused) {
    Collector c(spec(), options([&](CollectorOptions& o) { o.max_streams = 1; }));
    const auto first = c.open("a");
    EXPECT_TRUE(first);
    EXPECT_FALSE(c.open("b"));
    c.close(*first);
    EXPECT_TRUE(c.open("c"));  // a closed one makes room
    EXPECT_EQ(c.state()["refused"], 1);
}

TEST(Collector, SamplesArrivingAfterTheirTimeSettledAreCountedLate) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, 500, 0, 100);
    Collector c(spec(), options([&](CollectorOptions& o) { o.margin_ns = 10 * kMs; }));
    const auto a = c.open("a"), b = c.open("b");
    ASSERT_TRUE(c.receive(*a, logs.producer));
    c.settle();  // A's run settles but for the margin
    ASSERT_TRUE(c.receive(*b, logs.consumer));
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_GT(state["late_samples"].get<std::uint64_t>(), 400u);
    EXPECT_LT(state["links"][0]["count"].get<std::uint64_t>(), 500u);
}

std::uint64_t counted(const nlohmann::json& state) {
    std::uint64_t n = 0;
    for (const auto& node : state["nodes"]) n += node["samples"].get<std::uint64_t>();
    return n;
}

TEST(Collector, PastItsBoundItShedsTheOldestBlocksAndCountsThem) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    Collector c(spec(), options([&](CollectorOptions& o) { o.max_unsettled = 500; }));
    const auto a = c.open("a"), b = c.open("b");
    ASSERT_TRUE(c.receive(*a, logs.producer) && c.receive(*b, logs.consumer));
    // The settle links up to the newest sample less the margin (1802 ms): the blocks reaching
    // there hold 3700 samples (A's 0-18, B's 0-17), 500 may stay: the oldest blocks go.
    c.settle();
    const nlohmann::json shedding = c.state();
    EXPECT_TRUE(shedding["shedding"].get<bool>());
    const auto shed = shedding["shed_samples"].get<std::uint64_t>();
    EXPECT_GE(shed, 3200u);
    EXPECT_LE(shed, 3200u + 200u);  // whole blocks of 100: at most one more a stream
    c.finish();
    const nlohmann::json state = c.state();
    // Every sample received is counted or shed, and said per node.
    EXPECT_EQ(counted(state) + shed, 2 * kMessages);
    EXPECT_EQ(state["late_samples"], 0);
    EXPECT_EQ(node(state, "A")["shed"].get<std::uint64_t>() + node(state, "B")["shed"].get<std::uint64_t>(), shed);
    // Oldest first across the streams: each producer kept has its consumer kept (3 ms later), so the
    // links are A's kept samples; B keeps at most one block whose producers went.
    const auto a_kept = node(state, "A")["samples"].get<std::uint64_t>(), b_kept = node(state, "B")["samples"].get<std::uint64_t>();
    ASSERT_EQ(state["links"].size(), 1u);
    EXPECT_EQ(state["links"][0]["count"], a_kept);
    EXPECT_EQ(node(state, "B")["unlinked_inputs"], b_kept - a_kept);
    EXPECT_LE(b_kept - a_kept, 100u);
    // The first blocks (the definitions) are never shed.
    EXPECT_GE(a_kept, 100u);
}

TEST(Collector, WithinItsBoundNothingIsShed) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    Collector c(spec(), options([&](CollectorOptions& o) { o.max_unsettled = 1500; }));
    const auto a = c.open("a"), b = c.open("b");
    feed_in_rounds(c, {{*a, logs.producer}, {*b, logs.consumer}}, 997);  // settled as it comes: about 700 wait at most
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_EQ(state["shed_samples"], 0);
    EXPECT_FALSE(state["shedding"].get<bool>());
    EXPECT_EQ(state["links"][0]["count"], kMessages);
}

TEST(Collector, ItShedsByItsMeasuredSpeedOnceMeasured) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 100);
    // One settle may face a nanosecond's work: past the first settle (which measures the speed), everything waiting goes.
    Collector c(spec(), options([&](CollectorOptions& o) {
        o.shed_after_ns = 1;
        o.shed_floor = 0;
    }));
    const auto a = c.open("a"), b = c.open("b");
    const std::string_view producer = logs.producer, consumer = logs.consumer;
    const std::size_t half = producer.size() / 2;
    ASSERT_TRUE(c.receive(*a, producer.substr(0, half)) && c.receive(*b, consumer.substr(0, half)));
    c.settle();
    EXPECT_EQ(c.state()["shed_samples"], 0);  // nothing measured yet: nothing shed
    ASSERT_TRUE(c.receive(*a, producer.substr(half)) && c.receive(*b, consumer.substr(half)));
    c.settle();
    const auto shed = c.state()["shed_samples"].get<std::uint64_t>();
    EXPECT_GT(shed, 1500u);
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_EQ(counted(state) + shed + state["late_samples"].get<std::uint64_t>(), 2 * kMessages);
}

// The readers feed while a settle links outside the lock, as in the command:
// every sample counted once, none late (each reader says it has more
// waiting until its last piece, so nothing settles past it).
TEST(Collector, ReadersFeedWhileItSettles) {
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, kMessages, 0, 50);
    Collector c(spec(), {});
    const auto a = c.open("a"), b = c.open("b");
    constexpr std::size_t kPiece = 701;
    // Each node's first blocks before the race: the oldest sample is then
    // known from the start (a node whose first block comes after a settle
    // with older samples has them counted late, which is not what this tests).
    constexpr std::size_t kFirst = 8 * kPiece;
    ASSERT_TRUE(c.receive(*a, std::string_view(logs.producer).substr(0, kFirst), true));
    ASSERT_TRUE(c.receive(*b, std::string_view(logs.consumer).substr(0, kFirst), true));
    std::atomic<int> feeding{2};
    auto reader = [&](std::size_t id, std::string_view bytes) {
        for (std::size_t at = kFirst; at < bytes.size(); at += kPiece) {
            const bool last = at + kPiece >= bytes.size();
            EXPECT_TRUE(c.receive(id, bytes.substr(at, kPiece), !last));
            std::this_thread::yield();
        }
        --feeding;
    };
    std::thread ra(reader, *a, std::string_view(logs.producer)), rb(reader, *b, std::string_view(logs.consumer));
    std::thread page([&] {
        while (feeding > 0) (void)c.state();
    });
    while (feeding > 0) c.settle();
    ra.join();
    rb.join();
    page.join();
    c.finish();
    const nlohmann::json state = c.state();
    EXPECT_EQ(state["links"][0]["count"], kMessages);
    EXPECT_EQ(counted(state), 2 * kMessages);
    EXPECT_EQ(state["late_samples"], 0);
    EXPECT_EQ(state["shed_samples"], 0);
}

// A node whose first block arrives after the first settle, with samples
// older than any seen before: its parts are binned as the earlier ones (a
// summary binned otherwise cannot be added to them), its old samples late.
TEST(Collector, ANodeJoiningWithOlderSamplesKeepsTheBins) {
    const Pair first = linked_pair("A", "B", kStart + 1000 * kMs, 10 * kMs, kLatency, 100, 0, 20);
    std::vector<TestSample> older;
    for (int k = 0; k < 100; ++k) older.push_back({kStart + k * 10 * kMs, std::nullopt, std::uint64_t(5000 + k)});
    Collector c(spec(), {});
    const auto a = c.open("a"), b = c.open("b"), d = c.open("d");
    ASSERT_TRUE(c.receive(*a, first.producer));
    ASSERT_TRUE(c.receive(*b, first.consumer));
    c.settle();
    ASSERT_GT(counted(c.state()), 0u);  // a part is in: the bins are set
    ASSERT_TRUE(c.receive(*d, node_log("C", "Send", older, 20)));
    EXPECT_NO_THROW(c.settle());
    EXPECT_NO_THROW(c.finish());
    const nlohmann::json state = c.state();
    EXPECT_EQ(state["links"][0]["count"], 100);
    EXPECT_EQ(counted(state) + state["late_samples"].get<std::uint64_t>(), 300u);
}

TEST(Collector, DropsInTheNodeAreShownPerNode) {
    std::vector<TestSample> sent;
    for (int k = 0; k < 50; ++k) sent.push_back({kStart + k * kMs, std::nullopt, std::uint64_t(k)});
    Collector c(spec(), {});
    const auto a = c.open("a");
    ASSERT_TRUE(c.receive(*a, node_log("A", "Send", sent, 20, 7)));
    c.finish();
    EXPECT_EQ(node(c.state(), "A")["dropped"], 7);
    EXPECT_EQ(node(c.state(), "A")["stream_dropped"], 0);
}

TEST(Collector, EstimatesEachNodesClockOffsetFromItsMessages) {
    // A pings B every 10 ms and hears back 2 ms later; B answers 1 ms after
    // the ping, by its clock, which runs 5 ms ahead: the messages bound B's
    // offset to [4, 6] ms, symmetric about 5.
    constexpr std::int64_t kOffset = 5 * kMs;
    std::vector<TestSample> a, b;
    for (std::uint64_t k = 0; k < 300; ++k) {
        const std::int64_t t = kStart + static_cast<std::int64_t>(k) * 10 * kMs;
        a.push_back({t, std::nullopt, 2 * k});
        b.push_back({t + kMs + kOffset, 2 * k, 2 * k + 1});
        a.push_back({t + 2 * kMs, 2 * k + 1, std::nullopt});
    }
    const auto ping = graph::parse_spec("[[pair]]\nfrom = \"A/Ping\"\nto = \"B/Relay\"\n[[pair]]\nfrom = \"B/Relay\"\nto = \"A/Ping\"\n", "ping.toml");
    // A margin past the whole run: the logs come in bulk, not paced by their
    // time, and only finish() settles. The tolerance lets B's replies, 4 ms
    // after their reception by A's clock, link (as analyze --tolerance-ms).
    Collector c(ping, options([&](CollectorOptions& o) {
        o.margin_ns = 10'000 * kMs;
        o.tolerance_ns = 8 * kMs;
    }));
    const auto na = c.open("a"), nb = c.open("b");
    feed_in_rounds(c, {{*na, node_log("A", "Ping", a, 60)}, {*nb, node_log("B", "Relay", b, 30)}}, 2048);
    c.finish();
    const nlohmann::json state = c.state();
    ASSERT_FALSE(node(state, "A")["offset_ns"].is_null()) << state.dump();
    ASSERT_FALSE(node(state, "B")["offset_ns"].is_null()) << state.dump();
    const double b_ahead = node(state, "B")["offset_ns"].get<double>() - node(state, "A")["offset_ns"].get<double>();
    EXPECT_NEAR(b_ahead, double(kOffset), 0.1 * kMs);
    EXPECT_EQ(node(state, "A")["unlinked_inputs"], 0);
    EXPECT_EQ(state["late_samples"], 0);
}

TEST(Collector, SaveWritesLogsThatAnalyzeLinksAlike) {
    const auto dir = std::filesystem::temp_directory_path() / ("live-save-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const Pair logs = linked_pair("A", "B", kStart, kMs, kLatency, 800, 0, 64);
    Collector c(spec(), options([&](CollectorOptions& o) { o.save_dir = dir; }));
    const auto a = c.open("a"), b = c.open("b");
    feed_in_rounds(c, {{*a, logs.producer}, {*b, logs.consumer}}, 3000);
    c.close(*a);
    c.close(*b);
    c.finish();
    std::vector<std::pair<std::string, std::string>> saved;
    for (const auto& f : std::filesystem::directory_iterator(dir)) saved.emplace_back(f.path().string(), read_bytes(f.path()));
    ASSERT_EQ(saved.size(), 2u);
    for (const auto& [name, bytes] : saved) EXPECT_TRUE(bytes == logs.producer || bytes == logs.consumer) << name;
    EXPECT_EQ(c.state()["links"][0]["count"], whole_run(saved).links.begin()->second.latency.count);
    const auto recent = c.save_recent(dir / "recent", 0.1);  // the last 100 ms
    ASSERT_EQ(recent.size(), 2u);
    const graph::SampleSet last = graph::load_samples(recent);
    EXPECT_GT(last.time_ns.size(), 0u);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hashtrace::live::testing
