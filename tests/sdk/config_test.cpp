#include <hashtrace/config.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

namespace {
struct EnvGuard {
    ~EnvGuard() {
        for (const char* v : {"HASHTRACE_NODE", "HASHTRACE_LOG_DIR", "HASHTRACE_FORMAT", "HASHTRACE_QUEUE_CAPACITY",
                              "HASHTRACE_WHEN_FULL", "HASHTRACE_FLUSH_MS", "HASHTRACE_ENABLED"})
            unsetenv(v);
    }
};
}  // namespace

TEST(Config, EnvironmentOverridesCode) {
    EnvGuard g;
    hashtrace::Config code;
    code.node_name = "FromCode";
    code.log_dir = "/code";
    setenv("HASHTRACE_NODE", "FromEnv", 1);
    setenv("HASHTRACE_FORMAT", "csv", 1);
    setenv("HASHTRACE_QUEUE_CAPACITY", "1024", 1);
    setenv("HASHTRACE_WHEN_FULL", "block", 1);
    setenv("HASHTRACE_FLUSH_MS", "20", 1);
    setenv("HASHTRACE_ENABLED", "0", 1);
    const auto c = hashtrace::Config::from_env(code);
    EXPECT_EQ(c.node_name, "FromEnv");
    EXPECT_EQ(c.log_dir, "/code");  // not set in the environment: the code's value stays
    EXPECT_EQ(c.format, hashtrace::LogFormat::csv);
    EXPECT_EQ(c.queue_capacity, 1024u);
    EXPECT_EQ(c.when_full, hashtrace::FullPolicy::block);
    EXPECT_EQ(c.flush_interval.count(), 20);
    EXPECT_FALSE(c.enabled);
}

TEST(Config, BadValuesNameTheVariable) {
    EnvGuard g;
    setenv("HASHTRACE_FORMAT", "xml", 1);
    try {
        (void)hashtrace::Config::from_env();
        FAIL() << "accepted HASHTRACE_FORMAT=xml";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("HASHTRACE_FORMAT='xml'"), std::string::npos) << e.what();
    }
    unsetenv("HASHTRACE_FORMAT");
    setenv("HASHTRACE_QUEUE_CAPACITY", "12x", 1);
    EXPECT_THROW((void)hashtrace::Config::from_env(), std::invalid_argument);
    setenv("HASHTRACE_QUEUE_CAPACITY", "0", 1);
    EXPECT_THROW((void)hashtrace::Config::from_env(), std::invalid_argument);
}
