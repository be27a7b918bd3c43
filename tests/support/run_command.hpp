// run_command.hpp - runs a shell command and returns its exit status and
// standard output (protoc, chromium, the hashtrace CLI in the CLI tests).
#pragma once

#include <filesystem>
#include <string>

namespace hashtrace::test {

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

// Runs the shell commands `body` that start a system's node processes in
// `dir`, with a fresh `logs` folder and `wait_port F` defined (waits for a
// node to write the port it took to F, then prints it); `timeout` ends them
// after 120 s if a lost datagram left a node waiting. Output: both streams.
CommandResult run_node_script(const std::filesystem::path& dir, const std::string& body);

}  // namespace hashtrace::test

// The report tests keep their helpers in report::test and name these beside them.
namespace hashtrace::report::test {
using namespace hashtrace::test;
}  // namespace hashtrace::report::test
