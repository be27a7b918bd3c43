// `hashtrace collect simulate`: test footage of the paper's case study 3 with
// known ground truth (collectors/include/hashtrace/collectors/camera_sim.hpp).
#include "command.hpp"
#include "video_command_names.hpp"

#include "hashtrace/collectors/camera_sim.hpp"

#include <cmath>
#include <cstdio>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace collect simulate DIR [--seconds S] [--seed N] [--fps F] [--drift-ppm P]\n"
    "         [--display-hz H] [--double-frames P] [--noise SIGMA] [--blur SIGMA]\n"
    "         [--max-deviation-ms D] [--led-rise-ms R]\n"
    "  Writes DIR/footage.avi (a 640x480 Motion JPEG video of a display showing the QR code\n"
    "  of the latest message id, and a PPS LED), DIR/logs/ (the Chai and Unity software logs)\n"
    "  and the ground truth DIR/truth-frames.csv and DIR/truth-messages.csv. Then try:\n"
    "    hashtrace collect video DIR/footage.avi --logs DIR/logs --payload int:32 \\\n"
    "      --max-deviation-ms D -o DIR/logs/Camera.csv\n";

int run_collect_simulate(hashtrace::cli::Args& args) {
    using namespace hashtrace::collectors;
    SimulationConfig c;
    c.duration_s = args.number("--seconds", c.duration_s);
    c.seed = static_cast<std::uint64_t>(args.integer("--seed", static_cast<long long>(c.seed)));
    c.camera_fps = args.number("--fps", c.camera_fps);
    c.camera_drift_ppm = args.number("--drift-ppm", c.camera_drift_ppm);
    c.display_hz = args.number("--display-hz", c.display_hz);
    c.double_frame_probability = args.number("--double-frames", c.double_frame_probability);
    c.noise_sigma = args.number("--noise", c.noise_sigma);
    c.blur_sigma = args.number("--blur", c.blur_sigma);
    c.max_clock_deviation_ms = args.number("--max-deviation-ms", c.max_clock_deviation_ms);
    c.led_rise_ms = args.number("--led-rise-ms", c.led_rise_ms);
    const auto dirs = args.positionals();
    args.finish();
    if (dirs.size() != 1) throw hashtrace::cli::UsageError("expected one output DIR");
    if (c.noise_sigma < 0 || c.blur_sigma < 0 || c.max_clock_deviation_ms < 0 || c.led_rise_ms < 0 ||
        c.double_frame_probability < 0 || c.double_frame_probability > 1)
        throw hashtrace::cli::UsageError("noise, blur, deviation and rise time must be >= 0; --double-frames in [0,1]");

    const SimulationPlan plan = plan_simulation(c);
    const SimulationOutputs out = write_simulation(c, plan, dirs[0]);
    std::size_t shown = 0;
    for (const auto& m : plan.messages) shown += m.displayed_ns.has_value();
    std::fprintf(stderr, "%s: %zu frames at %.0f fps, %zu messages, %zu code changes on the display\n",
                 out.video.c_str(), plan.frame_start_ns.size(), c.camera_fps, plan.messages.size(), shown);
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("collect simulate", hashtrace::collectors::cli_support::kCollectSimulateSummary, run_collect_simulate, kUsage);
