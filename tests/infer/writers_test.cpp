// The spec, picture and JSON writers: what they write reads back, and says
// what the evidence said.
#include "systems.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace hashtrace::infer::testing {
namespace {

TEST(InferWriters, TheSpecReadsBackWithTheKeptPairsTheirScopesAndTheIntervals) {
    const auto r = infer_from(router_pipeline(200));
    std::size_t kept = 0;
    for (const auto& p : r.evidence.pairs) kept += p.verdict == Verdict::kept;
    ASSERT_EQ(r.spec.pairs.size(), kept);
    for (const auto& rule : r.spec.pairs) {
        const auto* p = find_pair(r.evidence, rule.from.text(), rule.to.text());
        ASSERT_NE(p, nullptr) << rule.from.text();
        EXPECT_EQ(p->verdict, Verdict::kept);
        EXPECT_EQ(rule.scope, p->scope);
    }
    ASSERT_EQ(r.spec.intervals.size(), r.intervals.size());
    EXPECT_EQ(r.spec.intervals[0].from.text(), "Sender/Create");
    // Comments carry the evidence; the rejected pairs are listed at the end.
    EXPECT_NE(r.spec_text.find("# kept: explains 100% of Sender/Send's inputs"), std::string::npos) << r.spec_text;
    EXPECT_NE(r.spec_text.find("# Sender/Create -> Router/Receive: 200 links"), std::string::npos);
    EXPECT_NE(r.spec_text.find("# shortcut:"), std::string::npos);
}

TEST(InferWriters, NamesASelectorCannotSpellAreLeftOutAndQuotesAreEscaped) {
    Evidence ev;
    TracepointClass a, b, c;
    a.node = "Cam\"era";
    a.tracepoint = "Frame\\Captured";
    b.node = "Display";
    b.tracepoint = "Shown";
    c.node = "Bad/Node";
    c.tracepoint = "X";
    ev.classes = {a, b, c};
    PairEvidence ab;
    ab.from = 0;
    ab.to = 1;
    ab.links = 5;
    ab.reason = "kept: two\nlines";
    PairEvidence cb = ab;
    cb.from = 2;
    ev.pairs = {ab, cb};
    const auto text = write_spec(ev, {});
    const auto spec = graph::parse_spec(text, "x.toml");
    ASSERT_EQ(spec.pairs.size(), 1u);
    EXPECT_EQ(spec.pairs[0].from.node, "Cam\"era");
    EXPECT_EQ(spec.pairs[0].from.tracepoint, "Frame\\Captured");
    EXPECT_NE(text.find("not written: a selector cannot name Bad/Node/X -> Display/Shown"), std::string::npos) << text;
    EXPECT_NE(text.find("# kept: two lines"), std::string::npos);
}

TEST(InferWriters, ThePictureHasANodeClusterPerNodeAndDashesTheSuspects) {
    const auto r = infer_from(router_pipeline(200));
    const auto dot = write_dot(r.evidence, r.chains);
    EXPECT_NE(dot.find("subgraph cluster_0 {\n    label=\"A\";"), std::string::npos) << dot;
    EXPECT_NE(dot.find("\"Router/Forward\" -> \"B/Receive\" [label=\"1002/s\\n"), std::string::npos) << dot;
    EXPECT_NE(dot.find("\"A/Receive\" -> \"B/Receive\" [label=\"1002/s\\n0.0969 ms\\nsibling\", style=dashed"), std::string::npos) << dot;
    EXPECT_EQ(dot.find("\"Sender/Create\" -> \"Router/Receive\""), std::string::npos) << "shortcuts are not drawn";
}

TEST(InferWriters, TheJsonListsEveryPairWithItsVerdictAndTheRoutes) {
    const auto r = infer_from(router_pipeline(200));
    const auto j = nlohmann::json::parse(write_json(r.evidence, r.chains, r.intervals));
    EXPECT_EQ(j["samples"], r.evidence.samples);
    EXPECT_EQ(j["pairs"].size(), r.evidence.pairs.size());
    bool found = false;
    for (const auto& p : j["pairs"])
        if (p["from"] == "Router/Receive" && p["to"] == "Router/Forward") {
            found = true;
            EXPECT_EQ(p["verdict"], "kept");
            EXPECT_EQ(p["scope"], "instance");
            EXPECT_EQ(p["links"], 400);  // both copies
        }
    EXPECT_TRUE(found);
    EXPECT_EQ(j["sources"], nlohmann::json::array({"Sender/Create"}));
    EXPECT_EQ(j["routes"].size(), 2u);
    EXPECT_EQ(j["intervals"].size(), r.intervals.size());
}

}  // namespace
}  // namespace hashtrace::infer::testing
