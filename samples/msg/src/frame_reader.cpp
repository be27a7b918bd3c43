#include "samples/msg/frame_reader.hpp"

#include <cstring>

namespace hashtrace::samples::msg {

void FrameReader::append(const std::byte* data, std::size_t size) {
    // Compact before growing, so a long-lived connection's buffer stays at a
    // few frames instead of holding everything ever received.
    if (read_pos_ > 0 && read_pos_ == buffer_.size()) {
        buffer_.clear();
        read_pos_ = 0;
    } else if (read_pos_ > 4096) {
        buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(read_pos_));
        read_pos_ = 0;
    }
    buffer_.insert(buffer_.end(), data, data + size);
}

std::optional<SceneMessage> FrameReader::next() {
    if (pending() < 4) return std::nullopt;
    std::uint32_t length = 0;
    std::memcpy(&length, buffer_.data() + read_pos_, 4);
    if (length != kBodySize) {
        throw FramingError(source_, stream_offset_,
                           "frame length " + std::to_string(length) + ", expected " + std::to_string(kBodySize) +
                               " (not a hashtrace sample-system peer?)");
    }
    if (pending() < kFrameSize) return std::nullopt;
    SceneMessage m = decode_body(buffer_.data() + read_pos_ + 4, source_, stream_offset_);
    read_pos_ += kFrameSize;
    stream_offset_ += kFrameSize;
    return m;
}

}  // namespace hashtrace::samples::msg
