#include "samples/msg/message.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace msg = hashtrace::samples::msg;

namespace {

msg::SceneMessage transform_message() {
    msg::SceneMessage m;
    m.kind = msg::Kind::transform;
    m.origin = msg::NodeId::physics;
    m.object = 3;
    m.id = msg::make_message_id(msg::NodeId::physics, 77);
    m.step = 1234;
    m.created_ns = 1'700'000'000'123'456'789;
    m.values = {1.5f, -2.f, 0.25f, 1.f, 0.f, 0.f, 0.f};
    return m;
}

}  // namespace

TEST(SampleMessage, EncodesLengthPrefixThenLittleEndianFieldsInOrder) {
    const msg::Frame f = msg::encode(transform_message());
    ASSERT_EQ(f.size(), 4 + msg::kBodySize);
    EXPECT_EQ(std::to_integer<int>(f[0]), static_cast<int>(msg::kBodySize));
    EXPECT_EQ(std::to_integer<int>(f[1]), 0);
    EXPECT_EQ(std::to_integer<int>(f[4]), 11);  // Kind::transform
    EXPECT_EQ(std::to_integer<int>(f[5]), 2);   // NodeId::physics
    EXPECT_EQ(std::to_integer<int>(f[6]), 3);   // object, low byte first
    EXPECT_EQ(std::to_integer<int>(f[7]), 0);
    EXPECT_EQ(std::to_integer<int>(f[8]), 77);  // id: counter in the low bytes...
    EXPECT_EQ(std::to_integer<int>(f[15]), 2);  // ...origin in the top byte
}

TEST(SampleMessage, DecodeInvertsEncode) {
    const msg::SceneMessage m = transform_message();
    const msg::Frame f = msg::encode(m);
    EXPECT_EQ(msg::decode_body(f.data() + 4, "peer", 0), m);
}

TEST(SampleMessage, RejectsUnknownKindNamingSourceAndOffset) {
    msg::Frame f = msg::encode(transform_message());
    f[4] = std::byte{99};
    try {
        msg::decode_body(f.data() + 4, "Physics->Haptics", 560);
        FAIL() << "expected FramingError";
    } catch (const msg::FramingError& e) {
        EXPECT_EQ(e.source(), "Physics->Haptics");
        EXPECT_EQ(e.offset(), 560u);
        EXPECT_NE(e.reason().find("unknown message kind 99"), std::string::npos) << e.what();
    }
}

TEST(SampleMessage, RejectsUnknownOrigin) {
    msg::Frame f = msg::encode(transform_message());
    f[5] = std::byte{0};
    EXPECT_THROW(msg::decode_body(f.data() + 4, "peer", 0), msg::FramingError);
}

TEST(SampleMessage, MessageIdsOfDifferentOriginsNeverCollide) {
    EXPECT_NE(msg::make_message_id(msg::NodeId::haptics, 5), msg::make_message_id(msg::NodeId::physics, 5));
    EXPECT_NE(msg::make_message_id(msg::NodeId::haptics, 5), msg::make_message_id(msg::NodeId::haptics, 6));
}

TEST(SampleMessage, NodeNamesRoundTripCaseInsensitively) {
    msg::NodeId id{};
    ASSERT_TRUE(msg::parse_node_id("render", id));
    EXPECT_EQ(id, msg::NodeId::render);
    ASSERT_TRUE(msg::parse_node_id("Router", id));
    EXPECT_EQ(msg::to_string(id), "Router");
    EXPECT_FALSE(msg::parse_node_id("renderer", id));
    EXPECT_FALSE(msg::parse_node_id("", id));
}
