// protobuf_wire.hpp - just enough of the protobuf wire format to write
// Perfetto traces without libprotobuf: varints, fixed64 and nested messages.
// https://protobuf.dev/programming-guides/encoding/
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hashtrace::report::proto {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

// Into a local buffer, appended at once: a push_back per byte showed as a sixth of an export.
inline void append_varint(std::string& out, std::uint64_t v) {
    char buffer[10];
    std::size_t n = 0;
    while (v >= 0x80) {
        buffer[n++] = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    buffer[n++] = static_cast<char>(v);
    out.append(buffer, n);
}

inline std::size_t varint_size(std::uint64_t v) {
    std::size_t n = 1;
    for (; v >= 0x80; v >>= 7) ++n;
    return n;
}

// A length-delimited field (bytes, string or a message already encoded).
inline void append_field(std::string& out, std::uint32_t field, std::string_view data) {
    append_varint(out, std::uint64_t{field} << 3 | kLengthDelimited);
    append_varint(out, data.size());
    out.append(data);
}

// Builds one message into a byte string. Nested messages are built in their
// own Message and appended with message(): the length prefix needs the size.
class Message {
public:
    void varint(std::uint32_t field, std::uint64_t v) {
        tag(field, kVarint);
        raw_varint(v);
    }
    void fixed64(std::uint32_t field, std::uint64_t v) {
        tag(field, kFixed64);
        char little_endian[8];
        for (int i = 0; i < 8; ++i) little_endian[i] = static_cast<char>((v >> (8 * i)) & 0xff);
        bytes_.append(little_endian, 8);
    }
    void bytes(std::uint32_t field, std::string_view data) { append_field(bytes_, field, data); }
    void message(std::uint32_t field, const Message& nested) { bytes(field, nested.bytes_); }

    const std::string& data() const noexcept { return bytes_; }
    void clear() noexcept { bytes_.clear(); }

private:
    void tag(std::uint32_t field, WireType type) { raw_varint(std::uint64_t{field} << 3 | type); }
    void raw_varint(std::uint64_t v) { append_varint(bytes_, v); }

    std::string bytes_;
};

}  // namespace hashtrace::report::proto
