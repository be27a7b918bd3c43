#include "hashtrace/collectors/frame_observer.hpp"

#include <opencv2/imgproc.hpp>

#define ZX_USE_UTF8 1  // Result::text() as UTF-8 std::string
#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <stdexcept>

namespace hashtrace::collectors {

namespace {

ZXing::DecodeHints qr_hints() {
    ZXing::DecodeHints hints;
    hints.setFormats(ZXing::BarcodeFormat::QRCode);
    hints.setTryRotate(false);
    hints.setTryDownscale(false);
    hints.setTryHarder(false);
    return hints;
}

ZXing::Result decode(const cv::Mat& grey) {
    static const ZXing::DecodeHints hints = qr_hints();
    const ZXing::ImageView view(grey.data, grey.cols, grey.rows, ZXing::ImageFormat::Lum,
                                static_cast<int>(grey.step[0]));
    return ZXing::ReadBarcode(view, hints);
}

cv::Rect rect(const Region& r) { return {r.x, r.y, r.width, r.height}; }

}  // namespace

FrameObserver::FrameObserver(std::optional<Region> qr, std::optional<Region> led, ObserverOptions options)
    : qr_(qr), led_(led), options_(options) {}

FrameObservation FrameObserver::observe(const cv::Mat& grey) {
    if (grey.type() != CV_8UC1) throw std::invalid_argument("frame observer: frames must be 8-bit grey");
    FrameObservation result;
    if (led_) result.led_luminance = cv::mean(grey(rect(*led_)))[0];

    const cv::Mat code = qr_ ? grey(rect(*qr_)) : grey;
    if (options_.reuse_unchanged && qr_) {
        cv::resize(code, small_, cv::Size(std::max(1, code.cols / 4), std::max(1, code.rows / 4)), 0, 0, cv::INTER_AREA);
        if (reference_payload_ && small_.size() == reference_small_.size() &&
            cv::norm(small_, reference_small_, cv::NORM_L1) / static_cast<double>(small_.total()) <
                options_.reuse_threshold) {
            ++reused_;
            result.payload = reference_payload_;
            return result;
        }
    }
    ++decodes_;
    const ZXing::Result read = decode(code);
    if (read.isValid()) {
        result.payload = read.text();
        if (options_.reuse_unchanged && qr_) {
            small_.copyTo(reference_small_);
            reference_payload_ = result.payload;
        }
    }
    return result;
}

std::optional<FoundCode> find_qr_code(const cv::Mat& grey) {
    const ZXing::Result read = decode(grey);
    if (!read.isValid()) return std::nullopt;
    const auto& p = read.position();
    int x0 = grey.cols, y0 = grey.rows, x1 = 0, y1 = 0;
    for (const auto& corner : p) {
        x0 = std::min(x0, corner.x);
        y0 = std::min(y0, corner.y);
        x1 = std::max(x1, corner.x);
        y1 = std::max(y1, corner.y);
    }
    return FoundCode{read.text(), Region{x0, y0, x1 - x0 + 1, y1 - y0 + 1}};
}

}  // namespace hashtrace::collectors
