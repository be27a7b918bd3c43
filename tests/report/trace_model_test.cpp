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

TEST(TraceModel, CountsFlowsThatGoBackInTime) {
    auto m = sample_trace();
    EXPECT_EQ(count_backward_flows(m), 0u);
    m.flows.push_back({5, 0});
    EXPECT_EQ(count_backward_flows(m), 1u);
}

}  // namespace
}  // namespace hashtrace::report
