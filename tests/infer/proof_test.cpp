// The proof of structure recovery, bounded: on the test suite's multi-node
// runs, the spec inferred with every interval along the routes links what the
// hand-written spec links, and measures each hand-written interval (matched by
// its selectors) with the same count and mean. bench/infer/check_samples.sh
// does the same on the sample system's runs.
#include "../report/demo_run.hpp"
#include "systems.hpp"

#include "hashtrace/infer/agreement.hpp"

#include <gtest/gtest.h>

namespace hashtrace::infer::testing {
namespace {

void expect_agreement(const graph::SampleSet& samples, const char* hand_toml, const graph::AnalysisSpec& inferred) {
    const auto hand = graph::parse_spec(hand_toml, "hand.toml");
    ASSERT_FALSE(hand.intervals.empty());
    const auto r = compare_specs(samples, hand, inferred);
    EXPECT_GT(r.reference_links, 0u);
    EXPECT_GE(r.precision(), 0.999);
    EXPECT_GE(r.recall(), 0.999);
    for (const auto& i : r.intervals) {
        EXPECT_TRUE(i.found) << i.name;
        EXPECT_GT(i.reference_count, 0u) << i.name;
        EXPECT_TRUE(i.same()) << i.name << ": " << i.reference_count << " " << i.reference_mean_ms << " vs " << i.other_count << " "
                              << i.other_mean_ms;
    }
}

TEST(InferProof, TheReportDemoRunsSpecIsRecovered) {
    graph::LoadOptions load;
    load.threads = 1;
    const auto samples = graph::load_samples_from_memory(report::test::demo_logs(), load);
    graph::LinkOptions one;
    one.threads = 1;
    const auto evidence = gather_evidence(samples, graph::link(samples, graph::AnalysisSpec{}, one));
    const auto chains = recover_chains(evidence);
    const auto spec = graph::parse_spec(write_spec(evidence, propose_intervals(evidence, chains, true)), "inferred.toml");
    expect_agreement(samples, report::test::kDemoSpec, spec);
}

TEST(InferProof, TheRouterPipelinesSpecIsRecovered) {
    const auto r = infer_from(router_pipeline(), true);
    const std::string hand = std::string(kRouterTruth) + R"(
[[interval]]
name = "create to B applied"
from = "Sender/Create"
to = "B/Apply"
kind = "end_to_end"
[[interval]]
name = "router to A"
from = "Router/Receive"
to = "A/Receive"
kind = "end_to_end"
[[interval]]
name = "router"
from = "Router/Receive"
to = "Router/Forward"
)";
    expect_agreement(r.samples, hand.c_str(), r.spec);
}

TEST(InferProof, TheOverlappingIdSpacesSpecIsRecovered) {
    const auto r = infer_from(overlapping_ids_and_reused_counter(), true);
    const std::string hand = std::string(kOverlappingTruth) + R"(
[[interval]]
name = "tick to work"
from = "Worker/Tick"
to = "Worker/Work"
[[interval]]
name = "frames"
from = "Camera/FrameCaptured"
to = "Display/FrameShown"
kind = "end_to_end"
)";
    expect_agreement(r.samples, hand.c_str(), r.spec);
}

TEST(InferProof, APassThroughRoutersSpecIsRecoveredWithoutShortcuts) {
    const auto r = infer_from(passthrough_router(), true);
    expect_agreement(r.samples, kPassthroughRouterTruth, r.spec);
    for (const auto& p : r.spec.pairs) EXPECT_NE(p.from.text() + " -> " + p.to.text(), "A/Sent -> B/Received") << r.spec_text;
}

TEST(InferProof, AFanOutToTwoWorkersKeepsBothBranchesAndTheirQueueWaits) {
    const auto r = infer_from(fan_out_to_two_workers(), true);
    expect_agreement(r.samples, kFanOutTruth, r.spec);
}

TEST(InferProof, AFanOutWhoseResultsKeepTheFrameIdIsRecoveredToo) {
    // One id from camera to tracker: every later step also links from every
    // earlier one, and the fan-in's producers each explain half its inputs.
    const auto r = infer_from(fan_out_to_two_workers(1500, true), true);
    expect_agreement(r.samples, kFanOutTruth, r.spec);
}

TEST(InferProof, AJoinKeepsBothProducersThatMakeItsValue) {
    const auto r = infer_from(join_of_two_makers(), true);
    expect_agreement(r.samples, kJoinTruth, r.spec);
    ASSERT_EQ(r.chains.fan_in.size(), 1u);
    EXPECT_EQ(r.evidence.classes[r.chains.fan_in[0]].selector(), "Sink/Join");
}

TEST(InferProof, ADisagreementIsSeen) {
    // The check itself can fail: a spec that drops the router's forwarding.
    const auto r = infer_from(router_pipeline(), true);
    auto partial = graph::parse_spec(kRouterTruth, "hand.toml");
    partial.pairs.erase(partial.pairs.begin() + 3);
    const auto a = compare_specs(r.samples, graph::parse_spec(kRouterTruth, "hand.toml"), partial);
    EXPECT_LT(a.recall(), 0.9);
    EXPECT_EQ(a.precision(), 1.0);
}

}  // namespace
}  // namespace hashtrace::infer::testing
