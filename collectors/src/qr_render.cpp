#include "hashtrace/collectors/qr_render.hpp"

#include <opencv2/imgproc.hpp>

#include <ZXing/BitMatrix.h>
#include <ZXing/MultiFormatWriter.h>

#include <stdexcept>
#include <string>

namespace hashtrace::collectors {

cv::Mat render_qr(std::string_view text, int size) {
    ZXing::BitMatrix modules;
    try {
        // One pixel per module, scaled by us with nearest-neighbour: sharp
        // module edges at any requested size.
        modules = ZXing::MultiFormatWriter(ZXing::BarcodeFormat::QRCode).setMargin(2).encode(std::string(text), 0, 0);
    } catch (const std::exception& e) {
        throw std::invalid_argument("cannot encode '" + std::string(text) + "' as a QR code: " + e.what());
    }
    cv::Mat natural(modules.height(), modules.width(), CV_8UC1);
    for (int y = 0; y < modules.height(); ++y)
        for (int x = 0; x < modules.width(); ++x) natural.at<std::uint8_t>(y, x) = modules.get(x, y) ? 0 : 255;
    cv::Mat out;
    cv::resize(natural, out, cv::Size(size, size), 0, 0, cv::INTER_NEAREST);
    return out;
}

}  // namespace hashtrace::collectors
