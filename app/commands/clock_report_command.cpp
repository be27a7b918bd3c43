// `hashtrace clock report`: how well the clocks agreed, straight after a run.
#include "command.hpp"

#include "hashtrace/clocksync/clock_quality.hpp"

#include <cstdio>
#include <limits>

namespace {

namespace hc = hashtrace::clocksync;

constexpr const char* kUsage =
    "usage: hashtrace clock report DIR|FILE...\n"
    "  Summarises clock-quality records (clock-*.htclock in each DIR, or the FILEs):\n"
    "  share of time locked / measuring / unknown, offset rms and max, drift, the\n"
    "  error bound with and without an offset+drift correction, and the spans when the\n"
    "  clock was not synchronised. Exit status 1 when a clock's error is unknown.\n";

int run_clock_report(hashtrace::cli::Args& args) {
    const auto inputs = args.positionals();
    args.finish();
    if (inputs.empty()) throw hashtrace::cli::UsageError("give log directories or clock files");
    std::vector<std::filesystem::path> files;
    for (const auto& input : inputs) {
        if (std::filesystem::is_directory(input)) {
            const auto found = hc::find_clock_files(input);
            if (found.empty()) std::fprintf(stderr, "warning: %s: no clock-*.htclock files\n", input.c_str());
            files.insert(files.end(), found.begin(), found.end());
        } else if (std::filesystem::exists(input)) {
            files.emplace_back(input);
        } else {
            throw std::runtime_error(input + ": no such file or directory");
        }
    }
    bool unknown = false;
    for (const auto& file : files) {
        for (const auto& report : hc::summarize_clock_file(file, std::numeric_limits<std::int64_t>::min(),
                                                           std::numeric_limits<std::int64_t>::max())) {
            std::printf("%s\n", hc::describe_report(report, false).c_str());
            if (report.correction && !report.is_reference)
                std::printf("    with --clock-correct: error bound %s\n",
                            hc::format_duration_ns(static_cast<double>(*report.corrected_error_bound_ns)).c_str());
            unknown = unknown || !report.error_bound_ns;
        }
    }
    return unknown ? 1 : 0;
}

}  // namespace

HASHTRACE_COMMAND("clock report", "summarise clock-quality records: each clock's sync error over the run", run_clock_report, kUsage);
