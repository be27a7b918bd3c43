// hashtrace/collectors/camera_sim.hpp - test footage with known ground truth:
// the paper's case study 3 (section 5.4) as a simulation.
//
// The world (all times on the PPS timescale: the signal generator is the
// reference, and the software clocks are disciplined to it):
//  - Chai creates messages (ids counting up from first_message_id); Unity
//    receives and processes them. Both write software logs with a clock that
//    deviates from the PPS by a sinusoid of amplitude max_clock_deviation_ms.
//  - A display_hz display shows the QR code of the latest message processed at
//    least render_delay_ms before each refresh; with double_frame_probability
//    a refresh is missed (the old code stays for two refreshes). A new code
//    fades in over transition_ms starting scanout_ms after the refresh; its
//    true display time is the middle of that fade.
//  - An LED is lit for pps_width_ms on every second, rising linearly over
//    led_rise_ms.
//  - A camera_fps camera whose clock runs camera_drift_ppm off the PPS, frame
//    0's exposure starting at frame0_start_ns, exposes each frame for its
//    whole period: a frame is the display and LED averaged over that period,
//    blurred (blur_sigma) and with Gaussian sensor noise (noise_sigma).
#pragma once

#include "hashtrace/collectors/regions.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace hashtrace::collectors {

struct SimulationConfig {
    double duration_s = 2.5;
    int width = 640, height = 480;
    Region qr{260, 140, 220, 220};
    Region led{60, 60, 28, 28};
    double camera_fps = 1000;
    double camera_drift_ppm = 80;
    std::int64_t frame0_start_ns = 1'700'000'000'437'250'000;  // PPS phase: 0.43725 s into a second
    double display_hz = 60;
    double scanout_ms = 6.0;
    double transition_ms = 3.0;
    double render_delay_ms = 4.0;
    double double_frame_probability = 0.15;
    double message_rate_hz = 80;
    double network_ms_min = 0.5, network_ms_max = 4.0;
    double processing_ms_min = 0.2, processing_ms_max = 12.0;
    double max_clock_deviation_ms = 0.15;
    double pps_width_ms = 100;
    double led_rise_ms = 1.5;
    double noise_sigma = 3.0;
    double blur_sigma = 0.8;
    std::uint32_t first_message_id = 41000;
    std::uint64_t seed = 1;
};

struct SimulatedMessage {
    std::uint32_t id = 0;
    std::int64_t created_ns = 0, received_ns = 0, processed_ns = 0;  // true (PPS) times
    std::optional<std::int64_t> displayed_ns;  // middle of its fade-in, if it was shown
    bool double_frame = false;                 // its code was held for an extra refresh (one was missed)
};

// A code change on the display: `to` fades in over [start, start + duration).
struct DisplayTransition {
    std::int64_t start_ns = 0;
    std::int64_t duration_ns = 0;
    std::size_t from = 0, to = 0;  // indices into SimulationPlan::messages
};

struct SimulationPlan {
    std::vector<SimulatedMessage> messages;
    std::vector<DisplayTransition> transitions;  // by start time
    std::size_t initial = 0;                     // message shown when the video starts
    std::vector<std::int64_t> frame_start_ns;    // exposure start of each frame
    std::int64_t frame_period_ns = 0;            // true length of a frame (drift included), rounded
    double frame_period_exact_ns = 0;
};

// Pure and deterministic for a config (the seed drives every random choice).
SimulationPlan plan_simulation(const SimulationConfig& config);

// The average of a ramp from 0 (before start) to 1 (after start + duration) over [a, b).
double average_ramp(double a, double b, double start, double duration) noexcept;

struct SimulationOutputs {
    std::filesystem::path video;      // <dir>/footage.avi (Motion JPEG)
    std::filesystem::path logs;       // <dir>/logs/ (Chai and Unity CSV logs)
    std::filesystem::path truth_frames;    // <dir>/truth-frames.csv: frame,center_ns
    std::filesystem::path truth_messages;  // <dir>/truth-messages.csv
};

// Writes footage, software logs and ground truth into `dir` (created).
SimulationOutputs write_simulation(const SimulationConfig& config, const SimulationPlan& plan,
                                   const std::filesystem::path& dir);

}  // namespace hashtrace::collectors
