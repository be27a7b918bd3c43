// hashtrace/collectors/region_finder.hpp - finding the QR and LED regions on
// the first frames of a video when the user did not give them.
//
//  - QR: the first frame where ZXing finds a code in the whole picture; the
//    region is the code's bounding box grown by a quarter of its size on
//    each side (room for blur and a shaky mount).
//  - LED: the PPS LED is the only thing that blinks outside the code, so it is
//    the largest blob of pixels whose brightness range (max - min over the
//    frames seen, on a 4x downscaled copy) exceeds half the largest range
//    seen outside the QR region. The frames must span at least one edge
//    (give more than a second of footage).
#pragma once

#include "hashtrace/collectors/regions.hpp"

#include <opencv2/core.hpp>

#include <optional>

namespace hashtrace::collectors {

class RegionFinder {
public:
    void add(const cv::Mat& grey);

    std::optional<Region> qr() const { return qr_; }
    // nullopt when no blinking area outside the code reaches `min_contrast` grey levels.
    std::optional<Region> led(double min_contrast = 12.0) const;
    std::size_t frames() const noexcept { return frames_; }

private:
    std::optional<Region> qr_;
    cv::Mat min_, max_, small_;
    int width_ = 0, height_ = 0;
    std::size_t frames_ = 0;
};

}  // namespace hashtrace::collectors
