// hashtrace/collectors/frame_observer.hpp - reading one grey video frame: the
// QR code in its region (ZXing-C++) and the LED region's mean luminance.
//
// Speed (1000 frames/s is real time for the camera): ZXing runs on the QR
// region only, for QR codes only, without rotation or downscaling retries.
// And a code persists for many frames (a 60 Hz display filmed at 1000 fps
// shows each picture for ~17 frames), so when the region differs from the
// last successfully decoded one by less than `reuse_threshold` (mean absolute
// difference of a 4x downscaled copy, in grey levels: above sensor noise,
// below any change of the code) that decode is reused. Unreadable frames are
// never reused: each is decoded afresh.
#pragma once

#include "hashtrace/collectors/frame_observation.hpp"
#include "hashtrace/collectors/regions.hpp"

#include <opencv2/core.hpp>

#include <cstddef>
#include <optional>

namespace hashtrace::collectors {

struct ObserverOptions {
    bool reuse_unchanged = true;
    double reuse_threshold = 2.0;
};

class FrameObserver {
public:
    // `qr` nullopt: decode the whole frame (the baseline, and region finding).
    FrameObserver(std::optional<Region> qr, std::optional<Region> led, ObserverOptions options = {});

    FrameObservation observe(const cv::Mat& grey);

    std::size_t decodes() const noexcept { return decodes_; }
    std::size_t reused() const noexcept { return reused_; }

private:
    std::optional<Region> qr_;
    std::optional<Region> led_;
    ObserverOptions options_;
    cv::Mat reference_small_;  // downscaled QR region of the last successful decode
    std::optional<std::string> reference_payload_;
    cv::Mat small_;
    std::size_t decodes_ = 0;
    std::size_t reused_ = 0;
};

// Decodes the QR code anywhere in a grey image; returns its text and bounding box.
struct FoundCode {
    std::string payload;
    Region bounds;
};
std::optional<FoundCode> find_qr_code(const cv::Mat& grey);

}  // namespace hashtrace::collectors
