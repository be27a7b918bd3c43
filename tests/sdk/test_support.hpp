// Helpers shared by the SDK tests: a fresh log directory per test.
#pragma once

#include <hashtrace/hashtrace.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace hashtrace::testing {

inline std::filesystem::path fresh_dir(const std::string& name) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    auto dir = std::filesystem::temp_directory_path() /
               ("hashtrace-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" + name + "-" +
                std::to_string(::getpid()));
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
