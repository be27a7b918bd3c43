// Message hops from the hashes' journeys, whatever the clocks say.
#include "hashtrace/infer/message_hops.hpp"

#include "system_logs.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <tuple>
#include <string>
#include <vector>

namespace {

using namespace hashtrace::infer;
using namespace hashtrace::infer::testing;

std::vector<std::string> pair_texts(const MessageHops& hops) {
    std::vector<std::string> out;
    for (const auto& p : hops.pairs) out.push_back(p.from.text() + " -> " + p.to.text() + " " + std::to_string(p.hops));
    return out;
}

const Tp kSent{"Camera", "c1", "Sent", "", "frame"};
const Tp kReceive{"Router", "r1", "Receive", "frame", "frame"}, kForward{"Router", "r1", "Forward", "frame", "frame"};
const Tp kArrived{"Detector", "d1", "Arrived", "frame", "frame"}, kDone{"Detector", "d1", "Done", "frame", "result"};

// camera -> pass-through router -> detector, the detector's clock `skew_ns` off.
SystemLogs through_router(int n, std::int64_t skew_ns) {
    SystemLogs logs;
    for (int i = 0; i < n; ++i) {
        const std::int64_t t = kStart + i * kMs;
        logs.add(kSent, t, "", value(i));
        logs.add(kReceive, t + 20'000, value(i), value(i));
        logs.add(kForward, t + 21'000, value(i), value(i));
        logs.add(kArrived, t + 40'000 + skew_ns, value(i), value(i));
        logs.add(kDone, t + 300'000 + skew_ns, value(i), value(i, 1));
    }
    return logs;
}

// The router's hops come out the right way round even when the detector's
// clock is 30 ms behind: by the clocks it receives every frame before the
// camera sends it, and a pass-through hop's reverse gap is as plausible.
TEST(MessageHops, AJourneyThroughAPassThroughRouterGivesItsHopsWhateverTheClocks) {
    const auto samples = through_router(200, -30 * kMs).load();
    const auto hops = find_message_hops(samples);
    EXPECT_EQ(pair_texts(hops), (std::vector<std::string>{"Camera/Sent -> Router/Receive 200", "Router/Forward -> Detector/Arrived 200"}));
    EXPECT_EQ(hops.messages, 200u);
    EXPECT_EQ(hops.order_unknown, 0u);
    EXPECT_EQ(hops.hops, 400u);
    EXPECT_EQ(hops.received_before_sent, 200u);
    EXPECT_EQ(hops.pairs[1].received_before_sent, 200u);
    EXPECT_EQ(hops.pairs[0].received_before_sent, 0u);
    const auto spec = hops.spec();
    ASSERT_EQ(spec.pairs.size(), 2u);
    EXPECT_EQ(spec.pairs[1].from.text(), "Router/Forward");
    EXPECT_EQ(spec.pairs[1].scope, hashtrace::graph::PairScope::any);
}

// Two pass-through instances in a row: which comes first the hashes do not
// tell, so only the maker's hops (certain) count, and the message says so.
TEST(MessageHops, TwoPassThroughInstancesInARowKeepOnlyTheMakersHops) {
    SystemLogs logs;
    const Tp second{"Bridge", "b1", "Pass", "frame", "frame"};
    for (int i = 0; i < 100; ++i) {
        const std::int64_t t = kStart + i * kMs;
        logs.add(kSent, t, "", value(i));
        logs.add(kReceive, t + 20'000, value(i), value(i));
        logs.add(second, t + 30'000, value(i), value(i));
        logs.add(kDone, t + 50'000, value(i), value(i, 1));
    }
    const auto hops = find_message_hops(logs.load());
    EXPECT_EQ(hops.messages, 100u);
    EXPECT_EQ(hops.order_unknown, 100u);
    EXPECT_EQ(pair_texts(hops), (std::vector<std::string>{"Camera/Sent -> Bridge/Pass 100", "Camera/Sent -> Detector/Done 100",
                                                          "Camera/Sent -> Router/Receive 100"}));
}

// Two samples make the same hash (ids from two spaces hashed alike): their
// journeys cannot be told apart and are left out, counted.
TEST(MessageHops, AHashMadeTwiceIsLeftOutAndCounted) {
    SystemLogs logs;
    const Tp other{"Controller", "k1", "Issued", "", "command"}, applied{"Actuator", "a1", "Applied", "command", ""};
    for (int i = 0; i < 50; ++i) {
        const std::int64_t t = kStart + i * kMs;
        logs.add(kSent, t, "", value(i));
        logs.add(other, t + 1000, "", value(i));
        logs.add(applied, t + 9000, value(i), "");
    }
    const auto hops = find_message_hops(logs.load());
    EXPECT_EQ(hops.hashes_made_twice, 50u);
    EXPECT_EQ(hops.messages, 0u);
    EXPECT_TRUE(hops.pairs.empty());
}

// A reply with the same hash (an echo): maker -> echo -> back to the maker.
TEST(MessageHops, AReplyWithTheSameHashGoesBackToItsMaker) {
    SystemLogs logs;
    const Tp ping{"Client", "c1", "Ping", "", "msg"}, echo{"Server", "s1", "Echo", "msg", "msg"}, pong{"Client", "c1", "Pong", "msg", ""};
    for (int i = 0; i < 50; ++i) {
        const std::int64_t t = kStart + i * kMs;
        logs.add(ping, t, "", value(i));
        logs.add(echo, t + 5'000 - 40 * kMs, value(i), value(i));  // the server's clock 40 ms behind
        logs.add(pong, t + 10'000, value(i), "");
    }
    const auto hops = find_message_hops(logs.load());
    EXPECT_EQ(pair_texts(hops), (std::vector<std::string>{"Client/Ping -> Server/Echo 50", "Server/Echo -> Client/Pong 50"}));
    EXPECT_EQ(hops.received_before_sent, 50u);
}

// A few frames sent straight to the detector, not through the router: under
// 3 hops, or under 1 % of the detector's hops, they are noise (a guess of
// the order gone wrong looks the same), not a pair; above both, a pair.
TEST(MessageHops, APairWithTooFewHopsOrTooSmallAShareIsLeftOut) {
    for (const auto& [routed, direct, kept] : {std::tuple{200, 2, false}, std::tuple{500, 4, false}, std::tuple{200, 10, true}}) {
        SystemLogs logs = through_router(routed, 0);
        for (int i = 0; i < direct; ++i) {
            const std::int64_t t = kStart + (routed + i) * kMs;
            logs.add(kSent, t, "", value(routed + i));
            logs.add(kArrived, t + 30'000, value(routed + i), value(routed + i));
            logs.add(kDone, t + 90'000, value(routed + i), value(routed + i, 1));
        }
        const auto hops = find_message_hops(logs.load());
        EXPECT_EQ(pair_texts(hops).size(), kept ? 3u : 2u) << routed << " routed, " << direct << " direct";
        EXPECT_EQ(hops.hops, 2u * routed + direct);
    }
}

TEST(MessageHops, NeedsTheHashIds) {
    auto samples = through_router(10, 0).load();
    samples.drop_hash_ids();
    EXPECT_THROW(find_message_hops(samples), std::logic_error);
}

}  // namespace
