// hashtrace/clocksync/subprocess.hpp - running the linuxptp tools.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace hashtrace::clocksync {

class SubprocessError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct CommandResult {
    int exit_code = -1;    // -1 when killed for the timeout or by a signal
    bool timed_out = false;
    std::string output;    // stdout and stderr, interleaved
};

// Runs argv[0] (searched in PATH) to completion or the timeout (then SIGKILL).
// Throws SubprocessError when the program cannot be started.
CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// A long-running child (ptp4l, phc2sys) whose output goes to a log file. The
// destructor stops it: SIGTERM, then SIGKILL if it has not exited in 2 s.
class Daemon {
public:
    Daemon(const std::vector<std::string>& argv, const std::filesystem::path& log_file);
    ~Daemon();
    Daemon(const Daemon&) = delete;
    Daemon& operator=(const Daemon&) = delete;

    // False once the child has exited; exit_status() then tells how.
    bool running();
    int exit_status() const noexcept { return status_; }
    pid_t pid() const noexcept { return pid_; }
    const std::string& name() const noexcept { return name_; }
    void stop();

private:
    std::string name_;
    pid_t pid_ = -1;
    int status_ = 0;
    bool reaped_ = false;
};

}  // namespace hashtrace::clocksync
