// command.hpp - how a command becomes a `hashtrace` subcommand.
//
// Each command is one source file in app/commands/, listed in app/CMakeLists.txt,
// that registers itself:
//
//   static int run_analyze(hashtrace::cli::Args& args) { ... return 0; }
//   HASHTRACE_COMMAND("analyze", "link logs into a causality graph and print metrics", run_analyze,
//                     kUsage, cli::kPipelineOptionsHelp);
//
// Names may have two words ("clock ptp", "collect video"); the longest match
// wins. So main() has no list to edit when a command is added. The texts
// after the function are its usage, joined: main() prints them for --help
// (a command registered without them answers --help itself), and checks
// that standard output took everything a command printed (output.hpp writes
// files the same way).
#pragma once

#include "hashtrace/cli/args.hpp"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::cli {

using CommandFn = int (*)(Args& args);

struct Command {
    std::string_view name;
    std::string_view summary;
    CommandFn run;
    std::string usage;  // printed for --help; empty: the command handles --help itself
};

std::vector<Command>& registry();

// Runs this command in `executable`, a companion program installed next to
// `hashtrace` (see app/CMakeLists.txt), with the same arguments; returns its
// exit status (the process is replaced: it only returns on failure to start).
int run_in_companion(const char* executable, const Args& args);

struct CommandRegistrar {
    CommandRegistrar(std::string_view name, std::string_view summary, CommandFn run, std::initializer_list<std::string_view> usage) {
        std::string text;
        for (const std::string_view part : usage) text += part;
        registry().push_back({name, summary, run, std::move(text)});
    }
};

}  // namespace hashtrace::cli

#define HASHTRACE_CONCAT_INNER_(a, b) a##b
#define HASHTRACE_CONCAT_(a, b) HASHTRACE_CONCAT_INNER_(a, b)
#define HASHTRACE_COMMAND(name, summary, fn, ...) \
    static ::hashtrace::cli::CommandRegistrar HASHTRACE_CONCAT_(hashtrace_command_, __LINE__)(name, summary, fn, {__VA_ARGS__})
