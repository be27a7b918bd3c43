// hashtrace/collectors/frame_source.hpp - grey frames from a video file or a
// camera, through OpenCV's VideoCapture.
//
// Motion-JPEG files (what high-speed cameras and our simulator write) take a
// fast path: the compressed frames are read as they are and decoded straight to
// grey, which skips colour upsampling and conversion (about 2x faster).
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace hashtrace::collectors {

class VideoError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class FrameSource {
public:
    static FrameSource open_file(const std::filesystem::path& file);  // throws VideoError
    static FrameSource open_camera(int index);                        // throws VideoError

    // The next frame as 8-bit grey; false at the end. Throws VideoError for a frame that cannot be decoded.
    bool next(cv::Mat& grey);

    // Motion-JPEG files only: frames as compressed packets, to be decoded on
    // any thread (decode_packet), so several cores can share the decoding.
    bool has_packets() const noexcept { return raw_mjpeg_; }
    bool next_packet(cv::Mat& packet);  // false at the end; counts the frame
    // Throws VideoError naming the source and the frame when the packet is not a JPEG image.
    cv::Mat decode_packet(const cv::Mat& packet, std::size_t frame) const;

    double frames_per_second() const;  // 0 when the container does not say
    const std::string& name() const noexcept { return name_; }
    std::size_t frames_read() const noexcept { return frames_read_; }

private:
    FrameSource(cv::VideoCapture capture, std::string name);
    cv::VideoCapture capture_;
    std::string name_;
    bool raw_mjpeg_ = false;
    cv::Mat packet_, colour_;
    std::size_t frames_read_ = 0;
};

}  // namespace hashtrace::collectors
