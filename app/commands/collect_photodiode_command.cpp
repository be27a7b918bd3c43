// `hashtrace collect photodiode`: display brightness edges from a photodiode on
// a GPIO line (or a replay file) as samples (docs/collectors.md has the wiring).
#include "command.hpp"
#include "output_log.hpp"

#include "hashtrace/collectors/photodiode.hpp"
#include "hashtrace/logio/writer.hpp"
#include "hashtrace/sensors/edge_source.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace collect photodiode (--replay FILE | --chip CHIP --line N [--active-low])\n"
    "         -o OUT.csv|OUT.htlog [--seconds S] [--edges N] [--first-flash K] [--instance ID]\n"
    "  Records every edge of the photodiode comparator as a sample of node Photodiode:\n"
    "  DisplayBright (rising) and DisplayDark (falling), input hash = the flash number (uint64),\n"
    "  which the display node's PatchFlashed tracepoint outputs. Stops after --seconds or\n"
    "  --edges, at the end of a replay, or on Ctrl-C. The first edge recorded is flash K\n"
    "  (default 1: start recording before the display node).\n";

std::atomic<bool> interrupted{false};
void on_interrupt(int) { interrupted.store(true); }

int run_collect_photodiode(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    using hashtrace::cli::UsageError;
    const auto replay = args.option("--replay");
    const auto chip = args.option("--chip");
    const long long line = args.integer("--line", -1);
    const bool active_low = args.flag("--active-low");
    const auto out = args.option("-o");
    const double seconds = args.number("--seconds", 0.0);
    const long long max_edges = args.integer("--edges", 0);
    const long long first_flash = args.integer("--first-flash", 1);
    const auto instance = args.option_or("--instance", "1");
    args.positionals();
    args.finish();
    if (!out) throw UsageError("-o OUT is required");
    if (replay.has_value() == chip.has_value()) throw UsageError("give --replay FILE or --chip CHIP --line N");
    if (chip && line < 0) throw UsageError("--chip needs --line N");
    if (seconds < 0 || max_edges < 0 || first_flash < 0) throw UsageError("--seconds, --edges and --first-flash must be >= 0");

    std::unique_ptr<sensors::EdgeSource> source;
    if (replay) {
        source = sensors::make_replay_edges(sensors::load_edge_replay(*replay), sensors::EdgeFilter::both, *replay);
    } else {
        sensors::GpioLineSpec spec;
        spec.chip = *chip;
        spec.line = static_cast<unsigned>(line);
        spec.edges = sensors::EdgeFilter::both;
        spec.active_low = active_low;
        spec.consumer = "hashtrace photodiode";
        source = sensors::open_gpio_edges(spec);
    }
    collectors::PhotodiodeOptions options;
    options.instance = instance;
    options.first_flash = static_cast<std::uint64_t>(first_flash);
    const auto writer = logio::open_writer(*out, collectors::cli_support::output_format(*out),
                                           {{"node", options.node_name}, {"instance", options.instance},
                                            {"clock_source", "CLOCK_REALTIME (" + source->describe() + ")"}});
    collectors::PhotodiodeRecorder recorder(*writer, options);

    interrupted.store(false);
    const auto previous = std::signal(SIGINT, on_interrupt);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!interrupted.load() && !source->finished()) {
        if (seconds > 0 && std::chrono::steady_clock::now() >= deadline) break;
        if (max_edges > 0 && recorder.stats().edges >= static_cast<std::uint64_t>(max_edges)) break;
        if (auto edge = source->next(std::chrono::milliseconds(200))) recorder.record(*edge);
    }
    std::signal(SIGINT, previous);
    writer->close();
    const auto& s = recorder.stats();
    std::fprintf(stderr, "%s: %llu edges from %s (%llu lost, %llu with the wrong direction for their flash)\n",
                 out->c_str(), static_cast<unsigned long long>(s.edges), source->describe().c_str(),
                 static_cast<unsigned long long>(s.lost_edges), static_cast<unsigned long long>(s.parity_mismatches));
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("collect photodiode", "samples from a photodiode watching the display (GPIO edges)", run_collect_photodiode, kUsage);
