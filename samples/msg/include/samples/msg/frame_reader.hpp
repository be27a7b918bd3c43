// samples/msg/frame_reader.hpp - reassembles messages from a TCP byte stream.
//
// TCP delivers bytes, not frames: one recv may hold half a frame or three and a
// half. The reader buffers what it is given and hands out whole messages.
#pragma once

#include "samples/msg/message.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hashtrace::samples::msg {

class FrameReader {
public:
    explicit FrameReader(std::string source) : source_(std::move(source)) {}

    void append(const std::byte* data, std::size_t size);

    // The next complete message, or nullopt until more bytes arrive.
    // Throws FramingError (naming the source and stream offset) for a bad frame.
    std::optional<SceneMessage> next();

    // Bytes received that do not yet form a whole frame.
    std::size_t pending() const noexcept { return buffer_.size() - read_pos_; }

private:
    std::string source_;
    std::vector<std::byte> buffer_;
    std::size_t read_pos_ = 0;       // start of the first unread frame in buffer_
    std::uint64_t stream_offset_ = 0; // stream offset of buffer_[read_pos_]
};

}  // namespace hashtrace::samples::msg
