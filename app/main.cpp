// hashtrace: one CLI in front of every tool. Subcommands register themselves
// (command.hpp); this file only finds and runs them.
#include "command.hpp"

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

}  // namespace

int main(int argc, char** argv) {
    using namespace hashtrace::cli;
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
        print_commands();
        return argc < 2 ? 2 : 0;
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
    try {
        return found->run(args);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "hashtrace %s: %s (see hashtrace %s --help)\n", std::string(found->name).c_str(), e.what(),
                     std::string(found->name).c_str());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hashtrace %s: %s\n", std::string(found->name).c_str(), e.what());
        return 1;
    }
}
