#include "hashtrace/collectors/sim_camera.hpp"

#include "hashtrace/collectors/qr_render.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace hashtrace::collectors {

namespace {
constexpr std::uint8_t kBackground = 70, kWhite = 230, kBlack = 25, kLedDark = 45, kLedBright = 235;
constexpr int kNoiseTiles = 8, kNoiseMargin = 32;
}  // namespace

SimulatedCamera::SimulatedCamera(const SimulationConfig& c, const SimulationPlan& plan)
    : c_(c), plan_(plan), rng_(c.seed ^ 0x5eed) {
    base_ = cv::Mat(c.height, c.width, CV_8UC1, cv::Scalar(kBackground));
    for (int i = 0; i < kNoiseTiles; ++i) {
        noise_.emplace_back(c.height + kNoiseMargin, c.width + kNoiseMargin, CV_16SC1);
        cv::randn(noise_.back(), 0, c.noise_sigma);
    }
}

void SimulatedCamera::render(std::size_t k, cv::Mat& frame) {
    // Times relative to frame 0: epoch nanoseconds in a double are 256 ns coarse.
    const double a = relative(plan_.frame_start_ns.at(k));
    const double b = a + plan_.frame_period_exact_ns;
    base_.copyTo(frame);
    draw_code(a, b, frame(cv::Rect(c_.qr.x, c_.qr.y, c_.qr.width, c_.qr.height)));
    draw_led(a, b, frame);
    const cv::Mat& tile = noise_[rng_() % kNoiseTiles];
    const cv::Mat noise = tile(cv::Rect(static_cast<int>(rng_() % kNoiseMargin), static_cast<int>(rng_() % kNoiseMargin),
                                        c_.width, c_.height));
    cv::add(frame, noise, frame, cv::noArray(), CV_8U);
}

const cv::Mat& SimulatedCamera::code_image(std::size_t message) {
    auto it = codes_.find(message);
    if (it != codes_.end()) return it->second;
    const int side = std::min(c_.qr.width, c_.qr.height);
    cv::Mat code = render_qr(std::to_string(plan_.messages[message].id), side);
    code.convertTo(code, CV_8U, (kWhite - kBlack) / 255.0, kBlack);
    cv::Mat framed(c_.qr.height, c_.qr.width, CV_8UC1, cv::Scalar(kWhite));
    code.copyTo(framed(cv::Rect((c_.qr.width - side) / 2, (c_.qr.height - side) / 2, side, side)));
    if (c_.blur_sigma > 0) cv::GaussianBlur(framed, framed, cv::Size(), c_.blur_sigma);
    return codes_.emplace(message, framed).first->second;
}

void SimulatedCamera::draw_code(double a, double b, cv::Mat region) {
    // The last code change that began before the exposure ended.
    const auto& ts = plan_.transitions;
    auto it = std::lower_bound(ts.begin(), ts.end(), b,
                               [this](const DisplayTransition& t, double v) { return relative(t.start_ns) < v; });
    if (it == ts.begin()) {
        code_image(plan_.initial).copyTo(region);
        return;
    }
    const DisplayTransition& t = *(it - 1);
    const double w = average_ramp(a, b, relative(t.start_ns), static_cast<double>(t.duration_ns));
    if (w >= 1.0) code_image(t.to).copyTo(region);
    else cv::addWeighted(code_image(t.from), 1.0 - w, code_image(t.to), w, 0.0, region);
}

void SimulatedCamera::draw_led(double a, double b, cv::Mat& frame) const {
    constexpr double second = 1e9;
    const double rise = c_.led_rise_ms * 1e6, width = c_.pps_width_ms * 1e6;
    double lit = 0;
    const double first_edge = relative(c_.frame0_start_ns - c_.frame0_start_ns % 1'000'000'000) - second;
    for (double edge = first_edge + std::floor((a - first_edge) / second) * second - second; edge < b; edge += second)
        lit += average_ramp(a, b, edge, rise) - average_ramp(a, b, edge + width, rise);
    const double level = kLedDark + (kLedBright - kLedDark) * lit;
    const cv::Point centre(c_.led.x + c_.led.width / 2, c_.led.y + c_.led.height / 2);
    cv::circle(frame, centre, std::min(c_.led.width, c_.led.height) / 2, cv::Scalar(level), cv::FILLED);
}

}  // namespace hashtrace::collectors
