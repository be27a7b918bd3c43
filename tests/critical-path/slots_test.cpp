// The replay's slots (src/slots.hpp) on a hand-made run whose answers are
// worked out here: which samples are slots, their queues, inputs and ranks,
// the ties, where a queue was left empty, and that finding them in chunks on
// several threads gives the same as on one.
#include "../graph/test_logs.hpp"
#include "change_table.hpp"
#include "hashtrace/graph/link.hpp"
#include "slots.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hashtrace::critical_path {
namespace {

using graph::testing::CsvLog;

constexpr double ms = 1e-3;

// Node Q: thread 1 puts messages m0..m39; thread 2 takes each (Take) and
// applies it (Apply, a local step). m0..m19 are put a millisecond apart and
// taken 0.1 ms after their put (the queue empties after each take), but m11,
// put at 10.05 ms and taken at 10.1 ms, with m10 (tied). m20..m39 are put in
// a burst at 20 ms and taken one a millisecond from 30 ms (a backlog: the
// queue empties only after the last take; the first of them, 10 ms after its
// put on an idle thread, looks started by a tick: a poll). Node R takes
// nothing from a queue.
double put_ms(int i) { return i == 11 ? 10.05 : i < 20 ? i : 20 + i * 0.001; }
double take_ms(int i) { return i == 11 ? 10.1 : i < 20 ? put_ms(i) + 0.1 : 30 + (i - 20); }

struct QueueRun {
    graph::SampleSet samples;
    graph::AnalysisSpec spec;
    graph::Graph graph;
    QueueRun() : samples(make()), spec(graph::parse_spec("", "run.toml")), graph(graph::link(samples, spec)) {}

    static graph::SampleSet make() {
        CsvLog q, r;
        for (int i = 0; i < 40; ++i) {
            const std::string m = "m" + std::to_string(i), p = "p" + std::to_string(i);
            q.row("Q", "1", "Put", 1 + put_ms(i) * ms, "", m, 1);
            q.row("Q", "1", "Take", 1 + take_ms(i) * ms, m, p, 2);
            q.row("Q", "1", "Apply", 1 + (take_ms(i) + 0.05) * ms, p, "", 2);
            r.row("R", "2", "Tick", 1 + i * ms, "", "", 1);
        }
        return graph::testing::load({{"q.csv", q.text()}, {"r.csv", r.text()}});
    }
    SampleIndex take(int i) const {
        const long v = graph::testing::find(samples, "Q", "Take", 1 + take_ms(i) * ms);
        EXPECT_GE(v, 0) << "the take of m" << i;
        return static_cast<SampleIndex>(v);
    }
};

class SlotsOfARun : public ::testing::TestWithParam<unsigned> {
protected:
    QueueRun run;
    DependenceModel model{run.samples, run.graph, 1};
    ChangeTable table{model, {}};
    Slots slots{model, table, GetParam()};
};

TEST_P(SlotsOfARun, EveryTakeIsASlotOfOneQueueTakingItsOwnPut) {
    ASSERT_EQ(slots.count(), 40u);
    ASSERT_EQ(slots.queues().size(), 1u);
    EXPECT_EQ(slots.queues()[0].consumer, "Q/Take");
    EXPECT_EQ(slots.queues()[0].slots, 40u);
    std::uint32_t last_rank = 0;
    bool first = true;
    for (SampleIndex v = 0; v < run.samples.size(); ++v) {
        const std::string& name = run.samples.tracepoint_of(v).tracepoint_name;
        EXPECT_EQ(slots.is_slot(v), name == "Take") << run.samples.label(v);
        if (!slots.is_slot(v)) continue;
        EXPECT_EQ(slots.queue_of(v), 0u);
        const SampleIndex put = slots.input_of(v);
        EXPECT_EQ(run.samples.tracepoint_of(put).tracepoint_name, "Put");
        EXPECT_EQ(run.samples.output[put], run.samples.input[v]);  // its own message
        const std::uint32_t rank = slots.rank(v);
        if (!first) {
            EXPECT_EQ(rank, last_rank + 1);  // ranks in sample order, without gaps
        }
        last_rank = rank;
        first = false;
    }
}

TEST_P(SlotsOfARun, TiesEmptyQueuesAndPollingTakesAsWorkedOut) {
    // m10 and m11 are taken at one time: the first of the two is tied.
    std::size_t tied = 0;
    for (SampleIndex v = 0; v < run.samples.size(); ++v) tied += slots.is_slot(v) && slots.tied(v);
    EXPECT_EQ(tied, 1u);
    SampleIndex first = kNone, second = kNone;  // the two takes at 10.1 ms, in sample order
    for (SampleIndex v = 0; v < run.samples.size(); ++v)
        if (slots.is_slot(v) && run.samples.time_ns[v] == run.samples.time_ns[run.take(10)]) (first == kNone ? first : second) = v;
    ASSERT_NE(second, kNone);
    EXPECT_TRUE(slots.tied(first));
    // A take leaves its queue empty when every later take takes a later put:
    // before the burst each does, but the first of the tied two (the second
    // takes m11, put before it); in the backlog only the last does.
    for (int i = 0; i < 40; ++i) {
        if (i == 10 || i == 11) continue;
        EXPECT_EQ(slots.emptied_as_recorded().test(run.take(i)), i < 20 || i == 39) << "the take of m" << i;
    }
    EXPECT_FALSE(slots.emptied_as_recorded().test(first));
    EXPECT_TRUE(slots.emptied_as_recorded().test(second));
    // The take of m20 waited 10 ms past its put with its thread idle: the
    // model takes it as started by a tick (a poll), and its thread as a
    // candidate polling loop, from that take.
    EXPECT_TRUE(model.external(run.take(20)));
    EXPECT_EQ(slots.first_polling_takes(), std::vector<SampleIndex>{run.take(20)});
}

// Found in 4, 8 and 12 chunks: the same slots, queues and inputs.
INSTANTIATE_TEST_SUITE_P(Threads, SlotsOfARun, ::testing::Values(1u, 2u, 3u));

TEST(Slots, AChangedQueueHasNoSlots) {
    QueueRun run;
    const DependenceModel model(run.samples, run.graph, 1);
    const ChangeTable table(model, {parse_change("Q/Put->Q/Take*0.5")});
    const Slots slots(model, table, 2);
    EXPECT_EQ(slots.count(), 0u);  // their wait is set by the change, not served by the replay
    EXPECT_TRUE(slots.queues().empty());
}

}  // namespace
}  // namespace hashtrace::critical_path
