// hashtrace/detail/varint.hpp - LEB128 integers for the binary log format.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hashtrace::detail {

inline unsigned char* put_varint(unsigned char* p, std::uint64_t v) noexcept {
    while (v >= 0x80) {
        *p++ = static_cast<unsigned char>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<unsigned char>(v);
    return p;
}

inline std::uint64_t zigzag(std::int64_t v) noexcept {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) noexcept {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Reads a varint from [p, end). Returns nullptr when the bytes run out or the
// value does not fit 64 bits (a torn or corrupt record).
inline const unsigned char* get_varint(const unsigned char* p, const unsigned char* end, std::uint64_t& out) noexcept {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p == end) return nullptr;
        const unsigned char b = *p++;
        if (shift == 63 && b > 1) return nullptr;
        v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            out = v;
            return p;
        }
    }
    return nullptr;
}

}  // namespace hashtrace::detail
