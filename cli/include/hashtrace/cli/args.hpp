// hashtrace/cli/args.hpp - the command-line arguments of one subcommand.
//
//   auto json = args.option("--json");            // std::optional<std::string>
//   bool lenient = args.flag("--lenient");
//   double tol = args.number("--tolerance-ms", 0.0);
//   auto inputs = args.positionals();             // call after all options
//   args.finish();                                // rejects anything not asked for
//
// Options take "--name value" or "--name=value" and may repeat (option_all).
// Mistakes throw UsageError; main() prints it with the command's usage.
#pragma once

#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hashtrace::cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The whole of `text` as a number (std::nullopt when it is not one, or out
// of range): for values inside an option's own syntax ("apply=0.5").
std::optional<double> parse_number(std::string_view text);

class Args {
public:
    Args(std::string command, std::vector<std::string> argv) : command_(std::move(command)), argv_(std::move(argv)), used_(argv_.size(), false) {}

    const std::string& command() const noexcept { return command_; }
    // The arguments after the command's name, as given.
    const std::vector<std::string>& arguments() const noexcept { return argv_; }
    bool help_requested() const;

    bool flag(std::string_view name);
    std::optional<std::string> option(std::string_view name);
    // A flag that may be followed by one of a few words ("--clock-correct" or
    // "--clock-correct edges"): nullopt when absent, "" when given alone.
    std::optional<std::string> flag_or_word(std::string_view name, std::initializer_list<std::string_view> words);
    std::vector<std::string> option_all(std::string_view name);
    std::string option_or(std::string_view name, std::string fallback);
    double number(std::string_view name, double fallback);
    long long integer(std::string_view name, long long fallback);

    // Everything not consumed by an option, in order; "--" ends options.
    std::vector<std::string> positionals();
    // Throws UsageError naming the first argument nobody asked for.
    void finish() const;

private:
    std::optional<std::size_t> find(std::string_view name) const;

    std::string command_;
    std::vector<std::string> argv_;
    std::vector<bool> used_;
};

}  // namespace hashtrace::cli
