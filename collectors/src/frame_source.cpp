#include "hashtrace/collectors/frame_source.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace hashtrace::collectors {

FrameSource::FrameSource(cv::VideoCapture capture, std::string name) : capture_(std::move(capture)), name_(std::move(name)) {
    const int fourcc = static_cast<int>(capture_.get(cv::CAP_PROP_FOURCC));
    if (fourcc == cv::VideoWriter::fourcc('M', 'J', 'P', 'G') && capture_.set(cv::CAP_PROP_FORMAT, -1))
        raw_mjpeg_ = true;
}

FrameSource FrameSource::open_file(const std::filesystem::path& file) {
    if (!std::filesystem::exists(file)) throw VideoError(file.string() + ": no such file");
    cv::VideoCapture capture(file.string(), cv::CAP_FFMPEG);
    if (!capture.isOpened()) throw VideoError(file.string() + ": not a video OpenCV can read");
    return FrameSource(std::move(capture), file.string());
}

FrameSource FrameSource::open_camera(int index) {
    cv::VideoCapture capture(index);
    if (!capture.isOpened()) throw VideoError("camera " + std::to_string(index) + ": cannot be opened");
    return FrameSource(std::move(capture), "camera " + std::to_string(index));
}

bool FrameSource::next_packet(cv::Mat& packet) {
    if (!raw_mjpeg_) throw VideoError(name_ + ": frames are not readable as packets");
    if (!capture_.read(packet_) || packet_.empty()) return false;
    packet_.copyTo(packet);  // the capture reuses its buffer
    ++frames_read_;
    return true;
}

cv::Mat FrameSource::decode_packet(const cv::Mat& packet, std::size_t frame) const {
    cv::Mat grey = cv::imdecode(packet, cv::IMREAD_GRAYSCALE);
    if (grey.empty()) throw VideoError(name_ + ": frame " + std::to_string(frame) + " cannot be decoded");
    return grey;
}

bool FrameSource::next(cv::Mat& grey) {
    if (raw_mjpeg_) {
        if (!capture_.read(packet_) || packet_.empty()) return false;
        grey = decode_packet(packet_, frames_read_);
    } else {
        if (!capture_.read(colour_) || colour_.empty()) return false;
        if (colour_.channels() == 1)
            grey = colour_;
        else
            cv::cvtColor(colour_, grey, cv::COLOR_BGR2GRAY);
    }
    if (grey.empty()) throw VideoError(name_ + ": frame " + std::to_string(frames_read_) + " cannot be decoded");
    ++frames_read_;
    return true;
}

double FrameSource::frames_per_second() const { return capture_.get(cv::CAP_PROP_FPS); }

}  // namespace hashtrace::collectors
