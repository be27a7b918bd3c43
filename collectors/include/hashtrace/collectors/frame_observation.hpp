// hashtrace/collectors/frame_observation.hpp - what the collector reads off one
// video frame. The image stages (frame_observer.hpp) produce these; every
// later stage (edges, clock, samples) works on them alone, without images.
#pragma once

#include <optional>
#include <string>

namespace hashtrace::collectors {

struct FrameObservation {
    std::optional<std::string> payload;  // the QR code's text; nullopt when unreadable
    double led_luminance = 0;            // mean grey level of the LED region (0 without one)
};

}  // namespace hashtrace::collectors
