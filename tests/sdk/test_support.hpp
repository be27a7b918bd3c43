// Helpers shared by the SDK tests: a fresh log directory per test.
#pragma once

#include <hashtrace/hashtrace.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace hashtrace::testing {

// All of a test program's logs go under one directory, removed when the
// program's tests end (a gtest environment: forked children never tear it down).
inline std::filesystem::path test_root() {
    static const std::filesystem::path root = [] {
        auto r = std::filesystem::temp_directory_path() / ("hashtrace-sdk-test-" + std::to_string(::getpid()));
        struct Cleanup : ::testing::Environment {
            std::filesystem::path dir;
            explicit Cleanup(std::filesystem::path d) : dir(std::move(d)) {}
            void TearDown() override { std::filesystem::remove_all(dir); }
        };
        ::testing::AddGlobalTestEnvironment(new Cleanup(r));
        return r;
    }();
    return root;
}

inline std::filesystem::path fresh_dir(const std::string& name) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    auto dir = test_root() / (std::string(info->test_suite_name()) + "-" + info->name() + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

inline Config test_config(const std::filesystem::path& dir, LogFormat format = LogFormat::binary) {
    Config c;
    c.node_name = "Test";
    c.log_dir = dir.string();
    c.format = format;
    c.install_signal_handlers = false;
    return c;
}

}  // namespace hashtrace::testing
