#include "hashtrace/collectors/display_picture.hpp"

#include "hashtrace/collectors/qr_render.hpp"

#include <opencv2/imgproc.hpp>

namespace hashtrace::collectors {

cv::Mat render_display(const DisplayState& state, const DisplayLayout& layout) {
    cv::Mat picture(layout.height, layout.width, CV_8UC1, cv::Scalar(128));
    const cv::Rect code((layout.width - layout.code_size) / 2, (layout.height - layout.code_size) / 2, layout.code_size,
                        layout.code_size);
    if (state.message_id) render_qr(std::to_string(*state.message_id), layout.code_size).copyTo(picture(code));
    else picture(code).setTo(255);  // a blank quiet zone until the first message
    const bool bright = state.flash % 2 == 1;
    picture(cv::Rect(0, 0, layout.patch_size, layout.patch_size)).setTo(bright ? 255 : 0);
    return picture;
}

}  // namespace hashtrace::collectors
