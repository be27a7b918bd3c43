// hashtrace/collectors/video_collector.hpp - `hashtrace collect video` as a
// pipeline:
//
//   scan_video      frames -> FrameObservation per frame (the image stage)
//   detect_pps_edges, classify_appearances        (pps_edges.hpp, camera_log.hpp)
//   date_frames     edges + codes + software logs -> FrameClock (pps_sync.hpp)
//   build_camera_log                               (camera_log.hpp)
//
// Only scan_video touches images; everything after it is a pure function of
// the observations, tested without video.
#pragma once

#include "hashtrace/collectors/camera_log.hpp"
#include "hashtrace/collectors/frame_observer.hpp"
#include "hashtrace/collectors/frame_source.hpp"
#include "hashtrace/collectors/pps_edges.hpp"
#include "hashtrace/collectors/pps_sync.hpp"
#include "hashtrace/collectors/regions.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hashtrace::collectors {

struct VideoScanOptions {
    Regions regions;
    ObserverOptions observer;
    std::size_t find_frames = 1500;  // frames looked at to find missing regions
    unsigned decoder_threads = 2;    // decode ahead on these threads while codes are read (0: inline)
};

struct VideoScan {
    std::vector<FrameObservation> frames;
    Regions regions;            // as used (given or found)
    double frames_per_second = 0;  // as the container says (0: unknown)
    int width = 0, height = 0;
    std::size_t decodes = 0, reused = 0;
};

// `open` gives a fresh source each call (it is called twice when a region has
// to be found first). Throws VideoError / std::invalid_argument.
VideoScan scan_video(const std::function<FrameSource()>& open, const VideoScanOptions& options);

// How frames get their absolute times.
struct TimingOptions {
    double frames_per_second = 0;              // 0: the video's own rate
    std::optional<std::int64_t> start_time_ns;  // frame 0's exposure start, when not dated from logs
    std::int64_t max_clock_deviation_ns = 0;    // of the software clocks from the PPS
    double led_rise_ms = 0;                     // becomes edges.rise_frames at the frame rate
    PpsEdgeOptions edges;
};

struct CollectReport {
    CameraLogStats stats;
    PpsEdgeResult edges;
    PpsSyncResult sync;
    std::string timing;  // how the frames were dated, in words
};

class CollectError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Dates the frames (from `software` when given and an edge matches, else
// from the start time) and renders the Camera log. Throws CollectError when
// the frames cannot be dated.
logio::SampleLog collect_from_scan(const VideoScan& scan, const TimingOptions& timing, const CameraLogOptions& log,
                                   const SoftwareTimes* software, CollectReport& report);

}  // namespace hashtrace::collectors
