// command.hpp - how a command becomes a `hashtrace` subcommand.
//
// Each command is one source file in app/commands/, listed in app/CMakeLists.txt,
// that registers itself:
//
//   static int run_analyze(hashtrace::cli::Args& args) { ... return 0; }
//   HASHTRACE_COMMAND("analyze", "link logs into a causality graph and print metrics", run_analyze);
//
// Names may have two words ("clock ptp", "collect video"); the longest match
// wins. So main() has no list to edit when a command is added.
#pragma once

#include "hashtrace/args/args.hpp"

#include <string_view>
#include <vector>

namespace hashtrace::cli {

using CommandFn = int (*)(Args& args);

struct Command {
    std::string_view name;
    std::string_view summary;
    CommandFn run;
};

std::vector<Command>& registry();

// Runs this command in `executable`, a companion program installed next to
// `hashtrace` (see app/CMakeLists.txt), with the same arguments; returns its
// exit status (the process is replaced: it only returns on failure to start).
int run_in_companion(const char* executable, const Args& args);

struct CommandRegistrar {
    CommandRegistrar(std::string_view name, std::string_view summary, CommandFn run) {
        registry().push_back({name, summary, run});
    }
};

}  // namespace hashtrace::cli

#define HASHTRACE_CONCAT_INNER_(a, b) a##b
#define HASHTRACE_CONCAT_(a, b) HASHTRACE_CONCAT_INNER_(a, b)
#define HASHTRACE_COMMAND(name, summary, fn) \
    static ::hashtrace::cli::CommandRegistrar HASHTRACE_CONCAT_(hashtrace_command_, __LINE__)(name, summary, fn)
