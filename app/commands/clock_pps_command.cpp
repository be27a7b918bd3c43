// `hashtrace clock pps` (measure, or discipline, the system clock from a PPS
// signal) and `hashtrace clock pps-led` (drive an LED at each second).
#include "command.hpp"
#include "output.hpp"
#include "run_control.hpp"

#include "hashtrace/clocksync/pps_led.hpp"
#include "hashtrace/clocksync/pps_loop.hpp"
#include "hashtrace/clocksync/simulated_pps.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace {

namespace hc = hashtrace::clocksync;
namespace hs = hashtrace::sensors;
using hashtrace::cli::UsageError;

constexpr const char* kPpsUsage =
    "usage: hashtrace clock pps (--gpio CHIP:LINE | --device /dev/ppsN | --replay FILE | --simulate) [options]\n"
    "  Estimates the system clock's phase error to the PPS second boundary and its drift,\n"
    "  with their jitter, and appends a clock-quality record per edge to\n"
    "  <log-dir>/clock-<host>.htclock. Measures only, unless --discipline is given.\n"
    "  --edge rising|falling     which edge marks the second (default rising)\n"
    "  --active-low              GPIO: the line is inverted (opto-coupler, inverting buffer)\n"
    "  --discipline              slew the clock with the PI servo (needs CAP_SYS_TIME;\n"
    "                            stop chronyd/ntpd/ptp4l on this clock first)\n"
    "  --step-threshold-us N     step instead of slewing beyond this phase (default 1000)\n"
    "  --window N                edges in the phase/drift fit (default 16)\n"
    "  --record-edges FILE       also write the edges to FILE (replay format, for --replay later)\n"
    "  --simulate-drift-ppb X, --simulate-jitter-ns X, --simulate-offset-ns X, --edges N\n"
    "                            --simulate: a simulated clock and PPS (default 10000, 50000, 0, 120)\n"
    "  --log-dir DIR, --host NAME, --duration S (default: at Ctrl-C or end of input)\n";

constexpr const char* kLedUsage =
    "usage: hashtrace clock pps-led --gpio CHIP:LINE [--pulse-ms N] [--active-low] [--duration S] [--pulses N]\n"
    "  Drives the GPIO line high at each second boundary of the system clock for\n"
    "  --pulse-ms (default 100), for an LED a camera films. Prints how late the edges were.\n";

hs::EdgeFilter parse_edge(const std::string& text) {
    if (text == "rising") return hs::EdgeFilter::rising;
    if (text == "falling") return hs::EdgeFilter::falling;
    throw UsageError("--edge '" + text + "' is neither rising nor falling");
}

// "gpiochip0:17" -> chip "gpiochip0", line 17.
std::pair<std::string, unsigned> parse_gpio(const std::string& text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
        throw UsageError("--gpio '" + text + "' is not CHIP:LINE (e.g. gpiochip0:17)");
    try {
        std::size_t used = 0;
        const unsigned long line = std::stoul(text.substr(colon + 1), &used);
        if (used != text.size() - colon - 1 || line > 1023) throw std::invalid_argument("range");
        return {text.substr(0, colon), static_cast<unsigned>(line)};
    } catch (const std::exception&) {
        throw UsageError("--gpio '" + text + "': the line must be a number (e.g. gpiochip0:17)");
    }
}

// Where the edges come from: one of the GPIO line, the PPS device, a replay
// file and a simulated clock with its PPS.
struct EdgeInput {
    std::optional<std::string> gpio, device, replay;
    bool simulate = false;
    hs::EdgeFilter edge = hs::EdgeFilter::rising;
    bool active_low = false;
    double sim_drift = 0, sim_jitter = 0, sim_offset = 0;
    long long sim_edges = 0;
};

// The opened edge source, and the simulated clock when --simulate made one.
struct OpenedEdges {
    std::unique_ptr<hc::SimulatedClock> simulated_clock;
    std::unique_ptr<hs::EdgeSource> source;
};

OpenedEdges open_edges(const EdgeInput& in) {
    OpenedEdges opened;
    if (in.gpio) {
        const auto [chip, line] = parse_gpio(*in.gpio);
        hs::GpioLineSpec spec;
        spec.chip = chip;
        spec.line = line;
        spec.edges = in.edge;
        spec.active_low = in.active_low;
        opened.source = hs::open_gpio_edges(spec);
    } else if (in.device) {
        opened.source = hs::open_pps_edges(*in.device, in.edge);
    } else if (in.replay) {
        opened.source = hs::make_replay_edges(hs::load_edge_replay(*in.replay), in.edge, *in.replay);
    } else {
        if (in.sim_edges <= 0) throw UsageError("--edges must be positive");
        opened.simulated_clock = std::make_unique<hc::SimulatedClock>(1'700'000'000'000'000'000, in.sim_offset, in.sim_drift);
        opened.source =
            std::make_unique<hc::SimulatedPpsEdges>(*opened.simulated_clock, in.sim_jitter, static_cast<std::uint64_t>(in.sim_edges), 1);
    }
    return opened;
}

// Runs the PPS loop until the input ends or the run is stopped: each record
// written and printed (with the true phase when the clock is simulated),
// then the counts and the simulated true phase's rms.
void track_and_print(hs::EdgeSource& source, hc::PpsTracker& tracker, hc::ClockRecordWriter& writer,
                     const hc::SimulatedClock* simulated_clock, double duration) {
    hc::PpsLoopOptions options;
    options.keep_running = hashtrace::clocksync::cli::run_until_stopped(duration);
    double true_sq = 0;
    std::uint64_t true_n = 0;
    const auto counts = hc::run_pps_loop(source, tracker, [&](const hc::ClockRecord& r) {
        writer.write(r);
        const auto show = [](const auto& v) { return v ? std::to_string(*v) : std::string("-"); };
        std::printf("%lld %-9s phase_ns %9s drift_ppb %12s jitter_ns %7s", static_cast<long long>(r.time_ns), r.state.c_str(),
                    show(r.offset_ns).c_str(), show(r.freq_ppb).c_str(), show(r.jitter_ns).c_str());
        if (simulated_clock) {
            // The simulation knows the truth: show it, and keep its rms.
            std::printf(" true_phase_ns %9.0f", simulated_clock->offset_ns());
            true_sq += simulated_clock->offset_ns() * simulated_clock->offset_ns();
            ++true_n;
        }
        std::printf("\n");
        hashtrace::cli::flush_stdout();
    }, options);
    std::fprintf(stderr, "%llu edges, %llu glitches, %llu steps, %llu timeouts\n", static_cast<unsigned long long>(counts.edges),
                 static_cast<unsigned long long>(counts.glitches), static_cast<unsigned long long>(counts.steps),
                 static_cast<unsigned long long>(counts.timeouts));
    if (true_n > 0) std::fprintf(stderr, "simulated true phase rms over the run: %.0f ns\n", std::sqrt(true_sq / static_cast<double>(true_n)));
}

int run_clock_pps(hashtrace::cli::Args& args) {
    EdgeInput in;
    in.gpio = args.option("--gpio");
    in.device = args.option("--device");
    in.replay = args.option("--replay");
    in.simulate = args.flag("--simulate");
    in.edge = parse_edge(args.option_or("--edge", "rising"));
    in.active_low = args.flag("--active-low");
    const bool discipline = args.flag("--discipline");
    hc::PpsTrackerConfig config;
    config.servo.step_threshold_ns = std::llround(args.number("--step-threshold-us", 1000) * 1000);
    config.window = static_cast<std::size_t>(args.integer("--window", 16));
    in.sim_drift = args.number("--simulate-drift-ppb", 10'000);
    in.sim_jitter = args.number("--simulate-jitter-ns", 50'000);
    in.sim_offset = args.number("--simulate-offset-ns", 0);
    in.sim_edges = args.integer("--edges", 120);
    const auto record_edges = args.option("--record-edges");
    const double duration = args.number("--duration", 0);
    const auto log_dir = hashtrace::clocksync::cli::log_dir_option(args);
    config.host = hashtrace::clocksync::cli::host_option(args);
    args.finish();
    if (int(in.gpio.has_value()) + int(in.device.has_value()) + int(in.replay.has_value()) + int(in.simulate) != 1)
        throw UsageError("give exactly one of --gpio, --device, --replay, --simulate");
    if (config.window < 3) throw UsageError("--window must be at least 3");
    if (config.servo.step_threshold_ns <= 0) throw UsageError("--step-threshold-us must be positive");
    if (in.replay && discipline) throw UsageError("--discipline cannot act on replayed edges (the clock did not produce them)");

    OpenedEdges opened = open_edges(in);
    const std::unique_ptr<hc::SimulatedClock>& simulated_clock = opened.simulated_clock;
    std::unique_ptr<hs::EdgeSource>& source = opened.source;
    if (record_edges) source = hs::make_recording_edges(std::move(source), *record_edges);

    std::unique_ptr<hc::SystemClock> system_clock;
    hc::AdjustableClock* disciplined = nullptr;
    if (discipline) {
        if (simulated_clock) {
            disciplined = simulated_clock.get();
        } else {
            system_clock = std::make_unique<hc::SystemClock>();
            disciplined = system_clock.get();
        }
    }
    hc::PpsTracker tracker(config, disciplined);
    hc::ClockRecordWriter writer(hc::clock_file_path(log_dir, config.host));
    std::fprintf(stderr, "%s %s from %s; recording to %s\n", discipline ? "disciplining" : "measuring",
                 simulated_clock ? "a simulated clock" : "the system clock", source->describe().c_str(), writer.path().c_str());
    track_and_print(*source, tracker, writer, simulated_clock.get(), duration);
    return 0;
}

int run_clock_pps_led(hashtrace::cli::Args& args) {
    const auto gpio = args.option("--gpio");
    const long long pulse_ms = args.integer("--pulse-ms", 100);
    const bool active_low = args.flag("--active-low");
    const double duration = args.number("--duration", 0);
    const long long pulses = args.integer("--pulses", 0);
    args.finish();
    if (!gpio) throw UsageError("--gpio CHIP:LINE is required");
    if (pulse_ms <= 0 || pulse_ms >= 1000) throw UsageError("--pulse-ms must be 1..999");
    if (pulses < 0) throw UsageError("--pulses must not be negative");
    const auto [chip, line] = parse_gpio(*gpio);
    hs::GpioOutputSpec spec;
    spec.chip = chip;
    spec.line = line;
    spec.active_low = active_low;
    const auto output = hs::open_gpio_output(spec);
    hc::PpsLedOptions options;
    options.pulse_width = std::chrono::milliseconds(pulse_ms);
    options.keep_running = hashtrace::clocksync::cli::run_until_stopped(duration);
    options.pulses = static_cast<std::uint64_t>(pulses);
    const auto stats = hc::run_pps_led(*output, options);
    std::printf("%llu pulses on %s; rising edge late by mean %.0f ns, max %lld ns\n",
                static_cast<unsigned long long>(stats.pulses), output->describe().c_str(), stats.mean_lateness_ns,
                static_cast<long long>(stats.max_lateness_ns));
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("clock pps", "measure (or discipline) the clock against a PPS signal (GPIO or /dev/pps)", run_clock_pps, kPpsUsage);
HASHTRACE_COMMAND("clock pps-led", "drive a GPIO line high at each second boundary (LED for a camera)", run_clock_pps_led, kLedUsage);
