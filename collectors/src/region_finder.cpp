#include "hashtrace/collectors/region_finder.hpp"

#include "hashtrace/collectors/frame_observer.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>

namespace hashtrace::collectors {

namespace {
constexpr int kScale = 4;
}

void RegionFinder::add(const cv::Mat& grey) {
    ++frames_;
    width_ = grey.cols;
    height_ = grey.rows;
    if (!qr_) {
        if (auto code = find_qr_code(grey)) {
            const int mx = code->bounds.width / 4, my = code->bounds.height / 4;
            const int x0 = std::max(0, code->bounds.x - mx), y0 = std::max(0, code->bounds.y - my);
            const int x1 = std::min(grey.cols, code->bounds.x + code->bounds.width + mx);
            const int y1 = std::min(grey.rows, code->bounds.y + code->bounds.height + my);
            qr_ = Region{x0, y0, x1 - x0, y1 - y0};
        }
    }
    cv::resize(grey, small_, cv::Size(grey.cols / kScale, grey.rows / kScale), 0, 0, cv::INTER_AREA);
    if (min_.empty()) {
        small_.copyTo(min_);
        small_.copyTo(max_);
    } else {
        cv::min(min_, small_, min_);
        cv::max(max_, small_, max_);
    }
}

std::optional<Region> RegionFinder::led(double min_contrast) const {
    if (min_.empty()) return std::nullopt;
    cv::Mat range = max_ - min_;
    if (qr_) {
        // The code changes too; it is not the LED.
        const cv::Rect code(qr_->x / kScale, qr_->y / kScale, qr_->width / kScale + 2, qr_->height / kScale + 2);
        range(code & cv::Rect(0, 0, range.cols, range.rows)).setTo(0);
    }
    double largest = 0;
    cv::minMaxLoc(range, nullptr, &largest);
    if (largest < min_contrast) return std::nullopt;
    cv::Mat blinking;
    cv::threshold(range, blinking, largest / 2, 255, cv::THRESH_BINARY);
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(blinking, labels, stats, centroids, 8, CV_32S);
    int best = 0;
    for (int i = 1; i < count; ++i)
        if (best == 0 || stats.at<int>(i, cv::CC_STAT_AREA) > stats.at<int>(best, cv::CC_STAT_AREA)) best = i;
    if (best == 0) return std::nullopt;
    // Back to full resolution, shrunk by a pixel so the edge of the blob (mixed
    // with the background by downscaling) is left out.
    Region r{stats.at<int>(best, cv::CC_STAT_LEFT) * kScale + 1, stats.at<int>(best, cv::CC_STAT_TOP) * kScale + 1,
             std::max(1, stats.at<int>(best, cv::CC_STAT_WIDTH) * kScale - 2),
             std::max(1, stats.at<int>(best, cv::CC_STAT_HEIGHT) * kScale - 2)};
    r.width = std::min(r.width, width_ - r.x);
    r.height = std::min(r.height, height_ - r.y);
    return r;
}

}  // namespace hashtrace::collectors
