// hashtrace/collectors/qr_render.hpp - drawing QR codes (ZXing-C++'s writer),
// shared by the display program and the camera simulator so both show the
// same picture for the same message.
#pragma once

#include <opencv2/core.hpp>

#include <string_view>

namespace hashtrace::collectors {

// A size x size 8-bit grey image of `text`'s QR code: black modules on white,
// with a two-module quiet zone. Throws std::invalid_argument if text does not fit.
cv::Mat render_qr(std::string_view text, int size);

}  // namespace hashtrace::collectors
