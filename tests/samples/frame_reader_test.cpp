#include "samples/msg/frame_reader.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace msg = hashtrace::samples::msg;

namespace {

msg::SceneMessage force(std::uint64_t n) {
    msg::SceneMessage m;
    m.kind = msg::Kind::force;
    m.origin = msg::NodeId::haptics;
    m.id = msg::make_message_id(msg::NodeId::haptics, n);
    m.step = n;
    m.values[0] = static_cast<float>(n);
    return m;
}

std::vector<std::byte> stream_of(std::uint64_t count) {
    std::vector<std::byte> out;
    for (std::uint64_t i = 0; i < count; ++i) {
        const msg::Frame f = msg::encode(force(i));
        out.insert(out.end(), f.begin(), f.end());
    }
    return out;
}

}  // namespace

TEST(FrameReader, ReassemblesFramesSplitAtEveryPossibleChunkSize) {
    const std::vector<std::byte> stream = stream_of(10);
    for (std::size_t chunk = 1; chunk <= stream.size(); chunk += 7) {
        msg::FrameReader reader("peer");
        std::vector<msg::SceneMessage> got;
        for (std::size_t pos = 0; pos < stream.size(); pos += chunk) {
            reader.append(stream.data() + pos, std::min(chunk, stream.size() - pos));
            while (auto m = reader.next()) got.push_back(*m);
        }
        ASSERT_EQ(got.size(), 10u) << "chunk " << chunk;
        for (std::uint64_t i = 0; i < 10; ++i) EXPECT_EQ(got[i], force(i));
        EXPECT_EQ(reader.pending(), 0u);
    }
}

TEST(FrameReader, WaitsForTheRestOfAPartialFrame) {
    const std::vector<std::byte> stream = stream_of(1);
    msg::FrameReader reader("peer");
    reader.append(stream.data(), stream.size() - 1);
    EXPECT_FALSE(reader.next().has_value());
    EXPECT_EQ(reader.pending(), stream.size() - 1);
    reader.append(stream.data() + stream.size() - 1, 1);
    EXPECT_TRUE(reader.next().has_value());
}

TEST(FrameReader, RejectsAWrongLengthWithTheStreamOffsetOfTheBadFrame) {
    std::vector<std::byte> stream = stream_of(2);
    stream[msg::kFrameSize] = std::byte{0xff};  // second frame's length
    msg::FrameReader reader("Router->Render");
    reader.append(stream.data(), stream.size());
    ASSERT_TRUE(reader.next().has_value());
    try {
        reader.next();
        FAIL() << "expected FramingError";
    } catch (const msg::FramingError& e) {
        EXPECT_EQ(e.source(), "Router->Render");
        EXPECT_EQ(e.offset(), msg::kFrameSize);
        EXPECT_NE(e.reason().find("frame length"), std::string::npos) << e.what();
    }
}

TEST(FrameReader, RejectsTextFromAForeignProgram) {
    const std::string http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    msg::FrameReader reader("peer");
    reader.append(reinterpret_cast<const std::byte*>(http.data()), http.size());
    EXPECT_THROW(reader.next(), msg::FramingError);
}
