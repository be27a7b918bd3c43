// Built with -DHASHTRACE_DISABLE: every macro compiles to nothing.
#include <hashtrace/hashtrace.hpp>

#include <gtest/gtest.h>

namespace {
int evaluations = 0;
int counted() { return ++evaluations; }
}  // namespace

TEST(Disabled, MacrosCompileToNothingAndEvaluateNothing) {
    int unused_elsewhere = 5;  // used only in a tracepoint: must not warn as unused
    TRACEPOINT("A", hashtrace::inout("id", unused_elsewhere));
    TRACEPOINT_DEFERRED("B", hashtrace::in("id", counted()), hashtrace::none);
    TRACEPOINT_FAST("C", hashtrace::inout("id", counted()));
    EXPECT_EQ(evaluations, 0);
    hashtrace::Config config;
    config.log_dir = "/nonexistent/should-not-be-created";
    hashtrace::Session session(config);  // no writer, no file
    EXPECT_FALSE(hashtrace::running());
    EXPECT_FALSE(std::filesystem::exists("/nonexistent/should-not-be-created"));
}
