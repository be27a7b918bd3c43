// samples/msg/message.hpp - the scene-graph message every sample node exchanges,
// and its wire encoding.
//
// The sample system is the paper's "scene graph as a bus" (section 5.1): nodes
// keep their own copy of a small scene graph and exchange atomic updates of it.
// A message is one update of one object; control frames (hello, start,
// goodbye) reuse the same fixed layout so the codec has one shape to validate.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hashtrace::samples::msg {

// Who a frame comes from. The values travel on the wire and are hashed into
// the "wire" hashes of the tracepoints: never renumber.
enum class NodeId : std::uint8_t {
    haptics = 1,
    physics = 2,
    render = 3,
    router = 4,
};

std::string_view to_string(NodeId id) noexcept;  // "Haptics", "Physics", ... (the SDK node names)
bool parse_node_id(std::string_view name, NodeId& out) noexcept;  // accepts "haptics" or "Haptics"

enum class Kind : std::uint8_t {
    hello = 1,     // first frame on a connection: origin says who is speaking
    start = 2,     // router -> node: every expected node is connected, loops may start
    goodbye = 3,   // the sender has flushed everything it will ever send on this connection
    force = 10,    // haptics -> others: force the haptic device applies to `object`
    transform = 11,// physics -> others: new pose of `object`
};

struct SceneMessage {
    Kind kind = Kind::hello;
    NodeId origin = NodeId::haptics;
    std::uint16_t object = 0;        // scene-graph object the update is about
    std::uint64_t id = 0;            // unique in the run: see make_message_id
    std::uint64_t step = 0;          // the origin's loop counter when it created the message
    std::int64_t created_ns = 0;     // origin's CLOCK_REALTIME at creation: latency without tracing
    std::array<float, 7> values{};   // force: x y z; transform: position x y z, orientation w x y z

    friend bool operator==(const SceneMessage&, const SceneMessage&) = default;
};

// Message ids are unique per run without coordination: the origin in the top
// byte, the origin's own counter below.
constexpr std::uint64_t make_message_id(NodeId origin, std::uint64_t counter) noexcept {
    return (static_cast<std::uint64_t>(origin) << 56) | (counter & ((std::uint64_t{1} << 56) - 1));
}

// Wire frame: u32 little-endian body length, then the body (all fields little-endian,
// in declaration order). The length is fixed today; it is sent so a reader can
// reject garbage (a wrong port, a different program) instead of misparsing it.
inline constexpr std::size_t kBodySize = 1 + 1 + 2 + 8 + 8 + 8 + 7 * 4;
inline constexpr std::size_t kFrameSize = 4 + kBodySize;

using Frame = std::array<std::byte, kFrameSize>;

Frame encode(const SceneMessage& message) noexcept;

// A stream that is not a valid message stream: `source` names the peer, `offset`
// is the byte offset in that stream where the bad frame starts.
class FramingError : public std::runtime_error {
public:
    FramingError(std::string source, std::uint64_t offset, std::string reason);
    const std::string& source() const noexcept { return source_; }
    std::uint64_t offset() const noexcept { return offset_; }
    const std::string& reason() const noexcept { return reason_; }

private:
    std::string source_;
    std::uint64_t offset_;
    std::string reason_;
};

// Decodes one body (without the length prefix). Throws FramingError for an
// unknown kind or origin.
SceneMessage decode_body(const std::byte* body, const std::string& source, std::uint64_t offset);

}  // namespace hashtrace::samples::msg
