// protobuf_wire.hpp - just enough of the protobuf wire format to write
// Perfetto traces without libprotobuf: varints, fixed64 and nested messages.
// https://protobuf.dev/programming-guides/encoding/
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hashtrace::report::proto {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

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
    void bytes(std::uint32_t field, std::string_view data) {
        tag(field, kLengthDelimited);
        raw_varint(data.size());
        bytes_.append(data);
    }
    void message(std::uint32_t field, const Message& nested) { bytes(field, nested.bytes_); }

    const std::string& data() const noexcept { return bytes_; }
    void clear() noexcept { bytes_.clear(); }

private:
    void tag(std::uint32_t field, WireType type) { raw_varint(std::uint64_t{field} << 3 | type); }
    // Into a local buffer, appended at once: a push_back per byte showed as a sixth of an export.
    void raw_varint(std::uint64_t v) {
        char buffer[10];
        std::size_t n = 0;
        while (v >= 0x80) {
            buffer[n++] = static_cast<char>((v & 0x7f) | 0x80);
            v >>= 7;
        }
        buffer[n++] = static_cast<char>(v);
        bytes_.append(buffer, n);
    }

    std::string bytes_;
};

}  // namespace hashtrace::report::proto
