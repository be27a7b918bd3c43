// Shared by the `hashtrace clock ...` commands: how long to run, where to
// write, and stopping cleanly on Ctrl-C / SIGTERM (so started daemons are
// stopped and the last record is whole).
#pragma once

#include "hashtrace/cli/args.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

namespace hashtrace::clocksync::cli {

// Installs SIGINT/SIGTERM handlers; the returned predicate turns false on a
// signal or once `duration_s` (if > 0) has passed.
std::function<bool()> run_until_stopped(double duration_s);

// --log-dir (default $HASHTRACE_LOG_DIR, else "."), created if missing.
std::filesystem::path log_dir_option(hashtrace::cli::Args& args);
// --host (default the machine's host name).
std::string host_option(hashtrace::cli::Args& args);

}  // namespace hashtrace::clocksync::cli
