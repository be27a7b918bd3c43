// run_command.hpp - runs a shell command and returns its exit status and
// standard output (for protoc and chromium in the export and browser tests).
#pragma once

#include <filesystem>
#include <string>

namespace hashtrace::report::test {

struct CommandResult {
    int status = -1;  // exit status, or -1 when it did not exit normally
    std::string out;
};

CommandResult run_command(const std::string& command);

// Wraps a path in single quotes for /bin/sh.
std::string shell_quote(const std::string& text);

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& file);

}  // namespace hashtrace::report::test
