// Compiled with -std=c++17 -Wpedantic: the SDK must fit code bases that lag behind.
#include <hashtrace/hashtrace.hpp>

#include <gtest/gtest.h>

#if __cplusplus > 201703L
#error "this file must be compiled as C++17"
#endif

namespace {
struct Vec3 {
    double x, y, z;
};
}  // namespace
HASHTRACE_RAW_HASHABLE(Vec3);

TEST(Cxx17, EveryMacroFormCompilesAndRecords) {
    hashtrace::Config config;
    config.node_name = "Cxx17";
    config.log_dir = (std::filesystem::temp_directory_path() / ("hashtrace-cxx17-" + std::to_string(::getpid()))).string();
    config.install_signal_handlers = false;
    hashtrace::Session session(config);
    const Vec3 v{1, 2, 3};
    const std::string name = "n";
    const unsigned char raw[3] = {1, 2, 3};
    TRACEPOINT("A", hashtrace::inout("id", 1u));
    TRACEPOINT("B", hashtrace::in("vec", v), hashtrace::out("name", name, raw[0]));
    TRACEPOINT("C", hashtrace::none, hashtrace::out("bytes", hashtrace::bytes(raw, 3)));
    TRACEPOINT_DEFERRED("D", hashtrace::in("id", 2), hashtrace::none);
    TRACEPOINT_FAST("E", hashtrace::inout("id", 3.5f));
    TRACEPOINT_FAST_DEFERRED("F", hashtrace::inout("id", std::int64_t{4}));
    hashtrace::stop();
    EXPECT_EQ(hashtrace::stats().written, 6u);
    std::filesystem::remove_all(config.log_dir);
}
