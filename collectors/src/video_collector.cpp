#include "hashtrace/collectors/video_collector.hpp"

#include "hashtrace/collectors/region_finder.hpp"
#include "hashtrace/logio/reader.hpp"

#include "hashtrace/collectors/decode_ahead.hpp"

namespace hashtrace::collectors {

namespace {

Regions find_regions(const std::function<FrameSource()>& open, const VideoScanOptions& options) {
    Regions regions = options.regions;
    FrameSource source = open();
    RegionFinder finder;
    cv::Mat grey;
    while (finder.frames() < options.find_frames && source.next(grey)) finder.add(grey);
    if (!regions.qr) {
        regions.qr = finder.qr();
        if (!regions.qr)
            throw std::invalid_argument(source.name() + ": no QR code found in the first " +
                                        std::to_string(finder.frames()) + " frames; give --roi-qr x,y,w,h");
    }
    if (!regions.led) regions.led = finder.led();  // may stay empty: then only --start-time can date frames
    return regions;
}

}  // namespace

VideoScan scan_video(const std::function<FrameSource()>& open, const VideoScanOptions& options) {
    VideoScan scan;
    scan.regions = (options.regions.qr && options.regions.led) ? options.regions : find_regions(open, options);
    FrameSource source = open();
    scan.frames_per_second = source.frames_per_second();
    FrameObserver observer(scan.regions.qr, scan.regions.led, options.observer);
    DecodeAhead frames(source, options.decoder_threads);
    cv::Mat grey;
    while (frames.next(grey)) {
        if (scan.frames.empty()) {
            scan.width = grey.cols;
            scan.height = grey.rows;
            if (scan.regions.qr) check_region_inside(*scan.regions.qr, grey.cols, grey.rows, "QR");
            if (scan.regions.led) check_region_inside(*scan.regions.led, grey.cols, grey.rows, "LED");
        }
        scan.frames.push_back(observer.observe(grey));
    }
    scan.decodes = observer.decodes();
    scan.reused = observer.reused();
    return scan;
}

logio::SampleLog collect_from_scan(const VideoScan& scan, const TimingOptions& timing, const CameraLogOptions& log,
                                   const SoftwareTimes* software, CollectReport& report) {
    const double fps = timing.frames_per_second > 0 ? timing.frames_per_second : scan.frames_per_second;
    if (!(fps > 0)) throw CollectError("the video does not state its frame rate; give --fps");

    std::vector<double> luminance;
    luminance.reserve(scan.frames.size());
    for (const auto& f : scan.frames) luminance.push_back(f.led_luminance);
    PpsEdgeOptions edge_options = timing.edges;
    edge_options.rise_frames = timing.led_rise_ms * 1e-3 * fps;
    report.edges = scan.regions.led ? detect_pps_edges(luminance, edge_options) : PpsEdgeResult{};

    std::optional<FrameClock> clock;
    if (software) {
        report.sync = sync_to_software(report.edges.edges, scan.frames, log.mapping, *software, fps,
                                       timing.max_clock_deviation_ns);
        if (report.sync.clock) {
            clock = report.sync.clock;
            report.timing = "PPS edges dated from the software logs (" + std::to_string(report.sync.edges_agreeing) +
                            " of " + std::to_string(report.sync.edges_with_match) + " matched edges agree)";
        }
    }
    if (!clock && timing.start_time_ns) {
        clock = clock_from_start_time(*timing.start_time_ns, fps);
        report.timing = "start time " + logio::format_time_ns(*timing.start_time_ns) + " and " + std::to_string(fps) + " frames/s";
    }
    if (!clock) {
        std::string why;
        if (!scan.regions.led) why = "no PPS LED region was given or found";
        else if (!report.edges.has_signal) why = "the LED region shows no PPS (too little contrast)";
        else if (report.edges.edges.empty()) why = "no complete PPS rising edge was found";
        else if (!software) why = "no software logs were given (--logs)";
        else why = "no code shown before a PPS edge matches a software sample";
        throw CollectError("cannot date the frames: " + why + "; give --start-time");
    }
    const auto roles = classify_appearances(scan.frames, log.mapping);
    return build_camera_log(scan.frames, roles, report.edges.edges, *clock, log, report.stats);
}

}  // namespace hashtrace::collectors
