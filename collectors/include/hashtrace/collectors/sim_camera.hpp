// hashtrace/collectors/sim_camera.hpp - the camera simulator's pictures: frame
// k of a SimulationPlan as the camera would record it (camera_sim.hpp).
#pragma once

#include "hashtrace/collectors/camera_sim.hpp"

#include <opencv2/core.hpp>

#include <map>
#include <random>
#include <vector>

namespace hashtrace::collectors {

class SimulatedCamera {
public:
    // Both must outlive the camera.
    SimulatedCamera(const SimulationConfig& config, const SimulationPlan& plan);

    // Frame k, 8-bit grey, config.width x config.height.
    void render(std::size_t k, cv::Mat& frame);

private:
    double relative(std::int64_t t) const noexcept { return static_cast<double>(t - c_.frame0_start_ns); }
    const cv::Mat& code_image(std::size_t message);
    void draw_code(double exposure_start, double exposure_end, cv::Mat region);
    void draw_led(double exposure_start, double exposure_end, cv::Mat& frame) const;

    const SimulationConfig& c_;
    const SimulationPlan& plan_;
    std::mt19937_64 rng_;
    cv::Mat base_;
    std::vector<cv::Mat> noise_;            // tiles larger than a frame; a frame takes a random crop
    std::map<std::size_t, cv::Mat> codes_;  // message index -> blurred picture of its code
};

}  // namespace hashtrace::collectors
