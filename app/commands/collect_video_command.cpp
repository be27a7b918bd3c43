// `hashtrace collect video`: samples from high-speed video of a display showing
// QR codes and a PPS LED (docs/collectors.md).
#include "command.hpp"
#include "output_log.hpp"
#include "video_command_names.hpp"

#include "hashtrace/canonical.hpp"
#include "hashtrace/collectors/video_collector.hpp"
#include "hashtrace/logio/reader.hpp"
#include "hashtrace/logio/writer.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: hashtrace collect video FILE|--camera N -o OUT.csv|OUT.htlog\n"
    "         [--roi-qr x,y,w,h] [--roi-led x,y,w,h] [--logs DIR|FILE]... [--start-time T]\n"
    "         [--payload text|int:W|hex] [--hash md5|xxh3_128] [--hash-type messageid]\n"
    "         [--max-deviation-ms D] [--fps F] [--led-window N] [--led-rise-ms R]\n"
    "         [--display-time gap-middle|first-frame] [--instance ID] [--no-reuse]\n"
    "  Reads the QR code and the PPS LED's brightness in every frame, dates the frames from\n"
    "  the PPS edges and the software logs (or from --start-time: frame 0's exposure start),\n"
    "  and writes node Camera's samples: QrDisplayed (first frame of each code), QrPersisting\n"
    "  (later frames of it) and PpsRisingEdge. Regions not given are found on the first frames.\n"
    "  A code's display time is the middle of the unreadable gap before it (gap-middle), or its\n"
    "  first readable frame (first-frame, the paper's method: late by the unreadable time).\n"
    "  --payload says how the code's text maps to the software's hash (default text);\n"
    "  --max-deviation-ms is the largest recorded offset of the software clocks from the PPS;\n"
    "  --led-rise-ms the LED's rise time (edges are dated at the start of the rise);\n"
    "  --led-window N frames either side of an edge must be steady dark / bright (default 8).\n";

// The command line, read and checked: the video or camera, where the
// samples go, and the scan's, the log's and the dating's options.
struct VideoJob {
    std::optional<std::string> camera, start_time;
    std::vector<std::string> inputs, logs;
    std::string out, source_name;
    hashtrace::HashFunction function{};
    hashtrace::collectors::VideoScanOptions scan_options;
    hashtrace::collectors::CameraLogOptions log_options;
    hashtrace::collectors::TimingOptions timing;
};

// The options that map a code's text to a log sample: the payload mapping,
// the display time, and the instance (by default one stable per video, so
// that re-running replaces, not duplicates).
hashtrace::collectors::CameraLogOptions log_options_of(const std::string& payload, hashtrace::HashFunction function,
                                                       const std::string& hash_type, const std::string& display_time,
                                                       const std::optional<std::string>& instance, const std::string& source_name) {
    using namespace hashtrace;
    using namespace hashtrace::collectors;
    using hashtrace::cli::UsageError;
    CameraLogOptions log_options;
    try {
        log_options.mapping = parse_payload_mapping(payload, function);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    log_options.input_hash_type = hash_type;
    if (display_time == "first-frame") log_options.display_time = DisplayTime::first_frame;
    else if (display_time != "gap-middle") throw UsageError("--display-time takes gap-middle or first-frame");
    log_options.instance = instance ? *instance : [&] {
        const auto h = to_hex(hash_of(HashFunction::md5, source_name));
        return std::string(h.data(), 8);  // stable per video, so re-running replaces, not duplicates
    }();
    return log_options;
}

VideoJob parse_video_job(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    using namespace hashtrace::collectors;
    using hashtrace::cli::UsageError;
    VideoJob job;
    job.camera = args.option("--camera");
    const auto out = args.option("-o");
    const auto roi_qr = args.option("--roi-qr");
    const auto roi_led = args.option("--roi-led");
    job.logs = args.option_all("--logs");
    job.start_time = args.option("--start-time");
    const auto payload = args.option_or("--payload", "text");
    const auto hash_name = args.option_or("--hash", "md5");
    const auto hash_type = args.option_or("--hash-type", "messageid");
    const double max_dev_ms = args.number("--max-deviation-ms", 0.0);
    const double fps = args.number("--fps", 0.0);
    const long long led_window = args.integer("--led-window", 8);
    const double led_rise_ms = args.number("--led-rise-ms", 0.0);
    const auto instance = args.option("--instance");
    const bool no_reuse = args.flag("--no-reuse");
    const auto display_time = args.option_or("--display-time", "gap-middle");
    job.inputs = args.positionals();
    args.finish();

    if (!out) throw UsageError("-o OUT is required");
    job.out = *out;
    if (job.camera.has_value() == (job.inputs.size() == 1)) throw UsageError("give one video FILE or --camera N");
    if (job.inputs.size() > 1) throw UsageError("expected one video FILE");
    if (!parse_hash_function(hash_name, job.function)) throw UsageError("--hash takes md5 or xxh3_128");
    if (max_dev_ms < 0 || led_rise_ms < 0 || led_window < 1)
        throw UsageError("--max-deviation-ms and --led-rise-ms must be >= 0, --led-window >= 1");

    try {
        if (roi_qr) job.scan_options.regions.qr = parse_region(*roi_qr);
        if (roi_led) job.scan_options.regions.led = parse_region(*roi_led);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    job.scan_options.observer.reuse_unchanged = !no_reuse;
    job.source_name = job.camera ? "camera " + *job.camera : job.inputs[0];
    job.log_options = log_options_of(payload, job.function, hash_type, display_time, instance, job.source_name);
    job.timing.frames_per_second = fps;
    job.timing.max_clock_deviation_ns = std::llround(max_dev_ms * 1e6);
    job.timing.edges.window = static_cast<std::size_t>(led_window);
    job.timing.led_rise_ms = led_rise_ms;
    return job;
}

// The software logs' samples the frames are dated by (none without --logs);
// a re-run's own output among them is skipped.
std::optional<hashtrace::collectors::SoftwareTimes> load_software_times(const VideoJob& job) {
    using namespace hashtrace;
    std::optional<collectors::SoftwareTimes> software;
    if (job.logs.empty()) return software;
    software.emplace(job.function);
    std::vector<std::filesystem::path> paths(job.logs.begin(), job.logs.end());
    for (const auto& file : logio::find_logs(paths)) {
        if (std::filesystem::absolute(file) == std::filesystem::absolute(job.out)) continue;  // a re-run's own output
        software->add(logio::load_log(file));
    }
    std::fprintf(stderr, "software logs: %zu samples\n", software->samples());
    return software;
}

int run_collect_video(hashtrace::cli::Args& args) {
    using namespace hashtrace;
    using namespace hashtrace::collectors;
    using hashtrace::cli::UsageError;
    VideoJob job = parse_video_job(args);
    if (job.start_time) job.timing.start_time_ns = cli_support::parse_time_option("--start-time", *job.start_time);
    const LogFormat format = cli_support::output_format(job.out);

    if (job.camera && !(job.scan_options.regions.qr && job.scan_options.regions.led))
        throw UsageError("--camera needs --roi-qr and --roi-led (regions are found by re-reading a file)");
    const auto open = [&]() -> FrameSource {
        if (job.camera) return FrameSource::open_camera(static_cast<int>(std::stol(*job.camera)));
        return FrameSource::open_file(job.inputs[0]);
    };
    const VideoScan scan = scan_video(open, job.scan_options);
    std::fprintf(stderr, "%s: %zu frames, QR region %s, LED region %s, %zu decodes (%zu unchanged frames reused)\n",
                 job.source_name.c_str(), scan.frames.size(), format_region(*scan.regions.qr).c_str(),
                 scan.regions.led ? format_region(*scan.regions.led).c_str() : "none", scan.decodes, scan.reused);

    const std::optional<SoftwareTimes> software = load_software_times(job);
    CollectReport report;
    const auto log = collect_from_scan(scan, job.timing, job.log_options, software ? &*software : nullptr, report);
    logio::write_log(job.out, format, log);
    const auto& s = report.stats;
    std::fprintf(stderr,
                 "PPS: %zu rising edges (LED dark %.1f, bright %.1f); frames dated by %s\n"
                 "%s: %zu codes displayed, %zu persisting frames, %zu unreadable, %zu misread\n",
                 report.edges.edges.size(), report.edges.levels.dark, report.edges.levels.bright, report.timing.c_str(),
                 job.out.c_str(), s.appearances, s.persisting, s.unreadable, s.misread);
    return 0;
}

}  // namespace

HASHTRACE_COMMAND("collect video", hashtrace::collectors::cli_support::kCollectVideoSummary, run_collect_video, kUsage);
