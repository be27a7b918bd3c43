#include "samples/msg/message.hpp"

#include <bit>
#include <cstring>

namespace hashtrace::samples::msg {

static_assert(std::endian::native == std::endian::little,
              "the wire format is little-endian and encoded by memcpy");

std::string_view to_string(NodeId id) noexcept {
    switch (id) {
        case NodeId::haptics: return "Haptics";
        case NodeId::physics: return "Physics";
        case NodeId::render: return "Render";
        case NodeId::router: return "Router";
    }
    return "Unknown";
}

bool parse_node_id(std::string_view name, NodeId& out) noexcept {
    for (NodeId id : {NodeId::haptics, NodeId::physics, NodeId::render, NodeId::router}) {
        const std::string_view canonical = to_string(id);
        if (name.size() != canonical.size()) continue;
        bool same = true;
        for (std::size_t i = 0; i < name.size() && same; ++i) {
            same = (name[i] | 0x20) == (canonical[i] | 0x20);
        }
        if (same) {
            out = id;
            return true;
        }
    }
    return false;
}

FramingError::FramingError(std::string source, std::uint64_t offset, std::string reason)
    : std::runtime_error(source + ": byte " + std::to_string(offset) + ": " + reason),
      source_(std::move(source)),
      offset_(offset),
      reason_(std::move(reason)) {}

namespace {

template <class T>
std::byte* put(std::byte* out, const T& value) noexcept {
    std::memcpy(out, &value, sizeof(T));
    return out + sizeof(T);
}

template <class T>
const std::byte* get(const std::byte* in, T& value) noexcept {
    std::memcpy(&value, in, sizeof(T));
    return in + sizeof(T);
}

bool known_kind(std::uint8_t k) noexcept {
    switch (static_cast<Kind>(k)) {
        case Kind::hello:
        case Kind::start:
        case Kind::goodbye:
        case Kind::force:
        case Kind::transform: return true;
    }
    return false;
}

}  // namespace

Frame encode(const SceneMessage& m) noexcept {
    Frame frame{};
    std::byte* out = frame.data();
    out = put(out, static_cast<std::uint32_t>(kBodySize));
    out = put(out, static_cast<std::uint8_t>(m.kind));
    out = put(out, static_cast<std::uint8_t>(m.origin));
    out = put(out, m.object);
    out = put(out, m.id);
    out = put(out, m.step);
    out = put(out, m.created_ns);
    for (float v : m.values) out = put(out, v);
    return frame;
}

SceneMessage decode_body(const std::byte* body, const std::string& source, std::uint64_t offset) {
    SceneMessage m;
    std::uint8_t kind = 0, origin = 0;
    const std::byte* in = get(body, kind);
    in = get(in, origin);
    if (!known_kind(kind)) {
        throw FramingError(source, offset, "unknown message kind " + std::to_string(kind));
    }
    m.kind = static_cast<Kind>(kind);
    m.origin = static_cast<NodeId>(origin);
    if (to_string(m.origin) == "Unknown") {
        throw FramingError(source, offset, "unknown origin node " + std::to_string(origin));
    }
    in = get(in, m.object);
    in = get(in, m.id);
    in = get(in, m.step);
    in = get(in, m.created_ns);
    for (float& v : m.values) in = get(in, v);
    return m;
}

}  // namespace hashtrace::samples::msg
