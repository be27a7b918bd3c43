#include "sample_trace.hpp"

#include "hashtrace/report/trace_model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace hashtrace::report {
namespace {

using test::sample_trace;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TraceModel, SliceEndsBeforeTheThreadsNextSample) {
    auto m = sample_trace();
    // Event 1 is followed 300 ns later on its thread; the last ones are not followed.
    EXPECT_THAT(slice_durations(m), ElementsAre(1000, 300, 1000, 1000, 1000, 1000));
}

TEST(TraceModel, SamplesSharingATimestampOnAThreadGetZeroLength) {
    TraceModel m;
    m.processes = {{"A", "1"}};
    m.threads = {{0, "t"}};
    m.names = {"x"};
    m.events = {{10, 0, 0, {}, {}, false, false}, {10, 0, 0, {}, {}, false, false}, {15, 0, 0, {}, {}, false, false}};
    m.slice_ns = 100;
    EXPECT_THAT(slice_durations(m), ElementsAre(0, 5, 100));
}

TEST(TraceModel, RejectsEventsOutOfTimeOrder) {
    auto m = sample_trace();
    std::swap(m.events[0], m.events[5]);
    try {
        check_trace_model(m);
        FAIL() << "accepted unsorted events";
    } catch (const std::invalid_argument& e) {
        EXPECT_THAT(e.what(), HasSubstr("event 1 is earlier than event 0"));
    }
}

TEST(TraceModel, RejectsDanglingReferences) {
    auto m = sample_trace();
    m.flows.push_back({0, 99});
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    m = sample_trace();
    m.flows.push_back({2, 2});
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    m = sample_trace();
    m.events[3].thread = 7;
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    m = sample_trace();
    m.threads[1].process = 2;
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    EXPECT_NO_THROW(check_trace_model(sample_trace()));
}

TEST(TraceModel, OverlappingCriticalPathsTakeLanesAndSegmentsNeverOverlap) {
    const auto m = test::sample_trace_with_critical_paths();
    ASSERT_NO_THROW(check_trace_model(m));
    const auto layout = layout_critical_paths(m);
    EXPECT_THAT(layout.lanes, ElementsAre(2u, 2u));
    // The third instance of "send" starts as the first ends (400 ns): its lane is free again.
    EXPECT_THAT(layout.lane, ElementsAre(0u, 1u, 0u, 1u, 0u));
    const std::int64_t base = m.events[0].time_ns;
    std::vector<std::int64_t> begin, end;
    for (std::size_t k = 0; k < m.critical_segments.size(); ++k) {
        begin.push_back(layout.begin_ns[k] - base);
        end.push_back(layout.end_ns[k] - base);
    }
    EXPECT_THAT(begin, ElementsAre(0, 400, 2'500, 700, 0, 0, 2'500, 400));
    EXPECT_THAT(end, ElementsAre(400, 2'500, 90'000, 90'000, 400, 2'500, 2'500, 2'500));  // the backward one has length 0
}

TEST(TraceModel, RejectsBrokenCriticalPaths) {
    auto m = test::sample_trace_with_critical_paths();
    m.critical_segments[6].to = 99;
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    m = test::sample_trace_with_critical_paths();
    m.critical_paths[4].count = 0;
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    m = test::sample_trace_with_critical_paths();
    m.critical_paths[4].count = 2;  // past the last segment
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    m = test::sample_trace_with_critical_paths();
    std::swap(m.critical_paths[1], m.critical_paths[2]);  // the intervals' groups interleave
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
    m = test::sample_trace_with_critical_paths();
    m.critical_paths[0].interval = 2;
    EXPECT_THROW(check_trace_model(m), std::invalid_argument);
}

TEST(TraceModel, CountsFlowsThatGoBackInTime) {
    auto m = sample_trace();
    EXPECT_EQ(count_backward_flows(m), 0u);
    m.flows.push_back({5, 0});
    EXPECT_EQ(count_backward_flows(m), 1u);
}

}  // namespace
}  // namespace hashtrace::report
