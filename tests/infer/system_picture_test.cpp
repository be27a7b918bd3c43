// The picture of the inferred system: clusters, chain depths, drawn edges.
#include "systems.hpp"

#include "hashtrace/infer/system_picture.hpp"

#include <gtest/gtest.h>

#include <map>

namespace hashtrace::infer::testing {
namespace {

std::map<std::string, std::uint32_t> depths(const SystemPicture& picture) {
    std::map<std::string, std::uint32_t> out;
    for (const auto& node : picture.nodes)
        for (const auto& tp : node.tracepoints) out[tp.selector] = tp.depth;
    return out;
}

TEST(SystemPicture, RouterPipelineIsLaidOutFromItsSourceToItsSinks) {
    const auto r = infer_from(router_pipeline(300));
    const auto picture = system_picture(r.evidence, r.chains);
    ASSERT_EQ(picture.nodes.size(), 4u);
    EXPECT_EQ(picture.nodes[0].name, "A");
    EXPECT_EQ(picture.nodes[3].name, "Sender");
    EXPECT_EQ(depths(picture), (std::map<std::string, std::uint32_t>{{"Sender/Create", 0}, {"Sender/Send", 1}, {"Router/Receive", 2},
                                                                     {"Router/Forward", 3}, {"A/Receive", 4}, {"B/Receive", 4},
                                                                     {"A/Apply", 5}, {"B/Apply", 5}}));
    EXPECT_EQ(picture.depths, 6u);
    EXPECT_TRUE(picture.nodes[3].tracepoints[0].source);
    EXPECT_TRUE(picture.nodes[0].tracepoints[0].sink);  // A/Apply

    // Every pair but the shortcuts is drawn; the rejected ones as suspects.
    EXPECT_EQ(picture.edges.size() + picture.shortcuts, r.evidence.pairs.size());
    EXPECT_GT(picture.shortcuts, 0u);
    std::size_t suspect = 0;
    for (const auto& e : picture.edges) {
        const auto& pair = r.evidence.pairs[e.pair];
        EXPECT_NE(pair.verdict, Verdict::shortcut);
        EXPECT_EQ(e.suspect, pair.verdict != Verdict::kept) << e.from << " -> " << e.to;
        EXPECT_EQ(e.from, r.evidence.classes[pair.from].selector());
        EXPECT_DOUBLE_EQ(e.p50_ms, pair.p50_ms);
        suspect += e.suspect;
    }
    EXPECT_EQ(suspect, picture.suspect);
    EXPECT_EQ(picture.kept + picture.suspect, picture.edges.size());
    const auto sibling = std::find_if(picture.edges.begin(), picture.edges.end(),
                                      [](const PictureEdge& e) { return e.from == "A/Receive" && e.to == "B/Receive"; });
    ASSERT_NE(sibling, picture.edges.end());
    EXPECT_TRUE(sibling->suspect);
    EXPECT_EQ(sibling->verdict, Verdict::sibling);
}

TEST(SystemPicture, APairClosingACycleDoesNotPushItsConsumerRight) {
    Evidence ev;
    for (const char* name : {"Request", "Serve", "Reply"}) {
        TracepointClass c;
        c.node = "N";
        c.tracepoint = name;
        ev.classes.push_back(c);
    }
    for (ClassId from = 0; from < 3; ++from) {
        PairEvidence p;  // kept unless rejected
        p.from = from;
        p.to = (from + 1) % 3;
        ev.pairs.push_back(p);
    }
    const auto picture = system_picture(ev, recover_chains(ev));
    EXPECT_EQ(depths(picture), (std::map<std::string, std::uint32_t>{{"N/Request", 0}, {"N/Serve", 1}, {"N/Reply", 2}}));
    EXPECT_EQ(picture.edges.size(), 3u);
}

}  // namespace
}  // namespace hashtrace::infer::testing
