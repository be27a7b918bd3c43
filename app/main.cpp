// hashtrace: one CLI in front of every tool. Subcommands register themselves
// (command.hpp); this file finds and runs them, answers --help for them, and
// fails a run whose standard output did not take everything printed.
#include "command.hpp"
#include "output.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

namespace hashtrace::cli {
std::vector<Command>& registry() {
    static std::vector<Command> commands;
    return commands;
}
}  // namespace hashtrace::cli

namespace {

void print_commands() {
    auto commands = hashtrace::cli::registry();
    std::sort(commands.begin(), commands.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    std::printf("usage: hashtrace <command> [options]   (hashtrace <command> --help for its options)\n\ncommands:\n");
    for (const auto& c : commands)
        std::printf("  %-20.*s %.*s\n", int(c.name.size()), c.name.data(), int(c.summary.size()), c.summary.data());
}

// `status`, or 1 when standard output did not take everything printed.
int after_output(int status, const std::string& who) {
    try {
        hashtrace::cli::flush_stdout();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
        return status == 0 ? 1 : status;
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace hashtrace::cli;
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
        print_commands();
        return after_output(argc < 2 ? 2 : 0, "hashtrace");
    }
    // Longest match: "clock ptp" before "clock".
    const Command* found = nullptr;
    int consumed = 0;
    for (const auto& c : registry()) {
        if (argc > 2 && c.name == std::string(argv[1]) + " " + argv[2]) {
            found = &c;
            consumed = 2;
            break;
        }
        if (c.name == argv[1] && consumed < 2) {
            found = &c;
            consumed = 1;
        }
    }
    if (!found) {
        std::fprintf(stderr, "hashtrace: unknown command '%s'\n\n", argv[1]);
        print_commands();
        return 2;
    }
    Args args(std::string(found->name), std::vector<std::string>(argv + 1 + consumed, argv + argc));
    const std::string who = "hashtrace " + std::string(found->name);
    try {
        if (!found->usage.empty() && args.help_requested()) {
            std::fputs(found->usage.c_str(), stdout);
            return after_output(0, who);
        }
        return after_output(found->run(args), who);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: %s (see %s --help)\n", who.c_str(), e.what(), who.c_str());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
        return 1;
    }
}
