// hashtrace/hash128.hpp - the 128-bit hash value every sample carries, and the
// names of the hash functions that may produce it.
//
// Part of the public surface: the log readers, the graph builder and the
// collectors all speak in Hash128, so it lives apart from the tracepoint code.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hashtrace {

// The 16 digest bytes in the order the hash function emits them: for MD5 this
// is the byte order `md5sum` prints, so the hex text in a CSV log can be
// checked with ordinary tools (docs/spec.md section 1).
struct Hash128 {
    std::array<std::uint8_t, 16> bytes{};

    friend bool operator==(const Hash128& a, const Hash128& b) noexcept {
        return std::memcmp(a.bytes.data(), b.bytes.data(), 16) == 0;
    }
    friend bool operator!=(const Hash128& a, const Hash128& b) noexcept { return !(a == b); }

    // The first 8 bytes as an integer: digests are uniformly distributed, so
    // this is already a good key for hash tables.
    std::uint64_t prefix64() const noexcept {
        std::uint64_t v;
        std::memcpy(&v, bytes.data(), 8);
        return v;
    }
};

// Which function made a sample's hashes. Two samples link only when both were
// made with the same function (docs/spec.md section 2). The numeric values are
// stored in binary logs: never renumber.
enum class HashFunction : std::uint8_t {
    md5 = 0,       // RFC 1321 via OpenSSL: the default, and the paper's choice
    xxh3_128 = 1,  // XXH3-128 from libxxhash: ~20x faster, not cryptographic
};

inline constexpr std::string_view to_string(HashFunction f) noexcept {
    switch (f) {
        case HashFunction::md5: return "md5";
        case HashFunction::xxh3_128: return "xxh3_128";
    }
    return "unknown";
}

inline constexpr bool parse_hash_function(std::string_view text, HashFunction& out) noexcept {
    if (text == "md5" || text.empty()) { out = HashFunction::md5; return true; }
    if (text == "xxh3_128") { out = HashFunction::xxh3_128; return true; }
    return false;
}

// 32 lowercase hex digits, no terminator written.
inline void to_hex(const Hash128& h, char* out32) noexcept {
    constexpr char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; ++i) {
        out32[2 * i] = digits[h.bytes[i] >> 4];
        out32[2 * i + 1] = digits[h.bytes[i] & 0xf];
    }
}

inline std::array<char, 32> to_hex(const Hash128& h) noexcept {
    std::array<char, 32> s{};
    to_hex(h, s.data());
    return s;
}

// Accepts exactly 32 hex digits (either case, as md5sum users may paste).
inline bool from_hex(std::string_view text, Hash128& out) noexcept {
    if (text.size() != 32) return false;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    for (int i = 0; i < 16; ++i) {
        int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out.bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return true;
}

}  // namespace hashtrace
