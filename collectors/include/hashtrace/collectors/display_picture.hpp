// hashtrace/collectors/display_picture.hpp - what the display node shows: the
// QR code of the latest message id it processed, and a patch for a photodiode.
//
// The patch changes between white and black each time a new message is shown
// (flash n is white for odd n, black for even n, flash 0 - nothing shown yet -
// is black), so every shown message makes exactly one edge at the photodiode:
// flash n is the n-th edge the photodiode sees after the display started.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace hashtrace::collectors {

struct DisplayLayout {
    int width = 640, height = 480;
    int code_size = 320;   // QR side, centred
    int patch_size = 96;   // photodiode patch, top-left corner
};

struct DisplayState {
    std::optional<std::uint32_t> message_id;  // nullopt: nothing processed yet
    std::uint64_t flash = 0;                  // how many messages have been shown
};

// Grey picture of the state (the window shows it; tests decode it).
cv::Mat render_display(const DisplayState& state, const DisplayLayout& layout = {});

}  // namespace hashtrace::collectors
