// Structure recovery on hand-made systems with known answers: the spec
// inferred from the logs alone links exactly what the hand-written one does.
#include "systems.hpp"

#include "hashtrace/infer/infer.hpp"

#include <gtest/gtest.h>

namespace hashtrace::infer::testing {
namespace {

graph::Graph link_with(const graph::SampleSet& s, const graph::AnalysisSpec& spec) {
    graph::LinkOptions one;
    one.threads = 1;
    return graph::link(s, spec, one);
}

void expect_same_links_as_truth(const Inferred& r, const char* truth_toml) {
    const auto truth = link_with(r.samples, graph::parse_spec(truth_toml, "truth.toml"));
    const auto inferred = link_with(r.samples, r.spec);
    EXPECT_GT(truth.edges.size(), 0u);
    EXPECT_EQ(edge_set(inferred), edge_set(truth)) << r.spec_text;
}

TEST(InferEvidence, OverlappingIdSpacesAndAReusedCounterLoseTheirFalseLinks) {
    const auto r = infer_from(overlapping_ids_and_reused_counter());
    const auto specless = link_with(r.samples, graph::AnalysisSpec{});
    const auto truth = link_with(r.samples, graph::parse_spec(kOverlappingTruth, "truth.toml"));
    // The spec-less run links frames to commands and each worker thread's
    // loop to the other's: far more links than the system made.
    EXPECT_GT(specless.edges.size(), truth.edges.size() + 700);
    expect_same_links_as_truth(r, kOverlappingTruth);

    const auto* frames_to_commands = find_pair(r.evidence, "Camera/FrameCaptured", "Actuator/CommandApplied");
    ASSERT_NE(frames_to_commands, nullptr);
    EXPECT_EQ(frames_to_commands->verdict, Verdict::label_mismatch);
    const auto* commands_to_frames = find_pair(r.evidence, "Controller/CommandIssued", "Display/FrameShown");
    ASSERT_NE(commands_to_frames, nullptr);
    EXPECT_EQ(commands_to_frames->verdict, Verdict::label_mismatch);
    const auto* loop = find_pair(r.evidence, "Worker/Tick", "Worker/Work");
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->verdict, Verdict::kept);
    EXPECT_EQ(loop->scope, graph::PairScope::thread) << loop->scope_reason;
    EXPECT_TRUE(r.evidence.threads_checked);
    const auto* tick_to_tick = find_pair(r.evidence, "Worker/Tick", "Worker/Tick");
    ASSERT_NE(tick_to_tick, nullptr);
    EXPECT_EQ(tick_to_tick->verdict, Verdict::repeated);
    EXPECT_GT(r.evidence.links_a_spec_removes(), 700u);
}

TEST(InferEvidence, PassedOnValuesKeepOnlyTheirConsecutiveLinks) {
    const auto r = infer_from(router_pipeline());
    expect_same_links_as_truth(r, kRouterTruth);
    EXPECT_EQ(find_pair(r.evidence, "Sender/Create", "Router/Receive")->verdict, Verdict::shortcut);
    EXPECT_EQ(find_pair(r.evidence, "Router/Receive", "A/Receive")->verdict, Verdict::shortcut);
    EXPECT_EQ(find_pair(r.evidence, "Router/Forward", "Router/Forward")->verdict, Verdict::repeated);
    // A sees every message before B: the router feeds both, A is no cause of B.
    const auto* a_to_b = find_pair(r.evidence, "A/Receive", "B/Receive");
    ASSERT_NE(a_to_b, nullptr);
    EXPECT_EQ(a_to_b->verdict, Verdict::sibling) << a_to_b->reason;
    EXPECT_EQ(find_pair(r.evidence, "Router/Forward", "B/Receive")->verdict, Verdict::kept);
    EXPECT_EQ(find_pair(r.evidence, "Router/Receive", "Router/Forward")->scope, graph::PairScope::instance);
    EXPECT_EQ(find_pair(r.evidence, "Sender/Send", "Router/Receive")->scope, graph::PairScope::any);
    EXPECT_EQ(find_pair(r.evidence, "A/Receive", "A/Apply")->scope, graph::PairScope::instance);
}

TEST(InferEvidence, CountersOfTwoLoopsMeetByCoincidenceAndAreRejected) {
    const auto r = infer_from(counters_at_two_rates());
    expect_same_links_as_truth(r, kCountersTruth);
    const auto* fast_to_slow = find_pair(r.evidence, "Fast/Tick", "Slow/Step");
    ASSERT_NE(fast_to_slow, nullptr);
    EXPECT_EQ(fast_to_slow->verdict, Verdict::spread) << fast_to_slow->reason;
    EXPECT_EQ(find_pair(r.evidence, "Fast/Tick", "Slow/Make")->verdict, Verdict::spread);
    EXPECT_EQ(find_pair(r.evidence, "Fast/Tick", "Fast/Make")->scope, graph::PairScope::thread);
}

TEST(InferEvidence, CountersThatMeetInBothOrdersContradictHappenedBefore) {
    // 1000 and 800 iterations a second, the slow loop 100 ms ahead: its first
    // values come first, then the fast loop's. The latencies stay well
    // inside the run; the links both ways give the coincidence away.
    const auto r = infer_from(counters_at_two_rates(4, kMs, 1'250'000, -100 * kMs));
    expect_same_links_as_truth(r, kCountersTruth);
    const auto* forward = find_pair(r.evidence, "Fast/Tick", "Slow/Step");
    const auto* backward = find_pair(r.evidence, "Slow/Step", "Fast/Tick");
    ASSERT_NE(forward, nullptr);
    ASSERT_NE(backward, nullptr);
    EXPECT_LT(forward->p90_ms - forward->p10_ms, 0.4 * r.evidence.window_s * 1e3);
    EXPECT_EQ(forward->verdict, Verdict::reversed) << forward->reason;
    EXPECT_EQ(backward->verdict, Verdict::reversed) << backward->reason;
}

TEST(InferEvidence, AFewCoincidentLinksAreRare) {
    SystemLogs logs;
    const Tp make{"P", "1", "Make", "", "id"}, use{"Q", "1", "Use", "id", ""}, other{"R", "1", "Other", "", "id"};
    for (int i = 0; i < 2000; ++i) {
        logs.add(make, kStart + i * kMs, "", value(i, 1));
        logs.add(use, kStart + i * kMs + 200'000, value(i, 1), "");
        logs.add(other, kStart + i * kMs + 100'000, "", value(i == 7 ? 5000 : 100'000 + i, i == 7 ? 1 : 9));
    }
    // R made one id that P makes later: Q's sample of it links to R's too.
    logs.add(use, kStart + 5000 * kMs + 200'000, value(5000, 1), "");
    logs.add(make, kStart + 5000 * kMs, "", value(5000, 1));
    const auto r = infer_from(logs);
    const auto* coincidence = find_pair(r.evidence, "R/Other", "Q/Use");
    ASSERT_NE(coincidence, nullptr);
    EXPECT_EQ(coincidence->verdict, Verdict::rare) << coincidence->reason;
    EXPECT_EQ(find_pair(r.evidence, "P/Make", "Q/Use")->verdict, Verdict::kept);
}

TEST(InferEvidence, NoLinksGiveNoPairs) {
    SystemLogs logs;
    logs.add({"P", "1", "Make", "", "id"}, kStart, "", value(1));
    logs.add({"Q", "1", "Use", "id", ""}, kStart + kMs, value(2), "");
    const auto r = infer_from(logs);
    EXPECT_TRUE(r.evidence.pairs.empty());
    EXPECT_TRUE(r.chains.sources.empty());
    EXPECT_TRUE(r.spec.pairs.empty());
}

TEST(InferStructure, SaysWhyThereIsNoStructureAndNeedsTheHashIds) {
    SystemLogs logs;
    logs.add({"P", "1", "Make", "", "id"}, kStart, "", value(1));
    logs.add({"Q", "1", "Use", "id", ""}, kStart + kMs, value(2), "");
    auto samples = logs.load();
    const auto specless = link_with(samples, graph::AnalysisSpec{});
    try {
        infer_structure(samples, specless);
        ADD_FAILURE() << "no structure was inferred from logs that link nothing";
    } catch (const NoStructure& e) {
        EXPECT_NE(std::string(e.what()).find("no input hash equals an earlier output hash"), std::string::npos) << e.what();
    }
    // Linking without keeping the hash ids is a caller's mistake, not bad input.
    const auto linked = router_pipeline(50).load();
    auto dropped = linked;
    dropped.drop_hash_ids();
    EXPECT_THROW(infer_structure(dropped, link_with(linked, graph::AnalysisSpec{})), std::logic_error);
    EXPECT_NO_THROW(infer_structure(linked, link_with(linked, graph::AnalysisSpec{})));
}

}  // namespace
}  // namespace hashtrace::infer::testing
