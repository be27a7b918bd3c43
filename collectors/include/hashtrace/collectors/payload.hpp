// hashtrace/collectors/payload.hpp - from the text an external sensor reads
// (a QR code's payload) to the 128-bit hash a software tracepoint recorded.
//
// The mapping to docs/spec.md section 2's canonical bytes is chosen by the user to
// match how the traced program hashed the same state:
//
//   text     the payload as a string: uint32 LE length + UTF-8 bytes
//            (TRACEPOINT(..., inout("messageid", std::string id)))
//   int:W    the payload as a decimal integer stored in W bits, W in
//            {8,16,32,64}: W/8 little-endian bytes, two's complement for
//            negative values (TRACEPOINT(..., inout("messageid", std::uint32_t id)))
//   hex      the payload already is the hash: 32 hex digits, used as is
//            (a display that shows the hash itself)
#pragma once

#include "hashtrace/hash128.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace hashtrace::collectors {

struct PayloadMapping {
    enum class Kind { text, integer, hex };
    Kind kind = Kind::text;
    unsigned integer_bits = 32;  // for Kind::integer
    HashFunction hash_function = HashFunction::md5;
};

// Parses "text", "int:W" or "hex"; throws std::invalid_argument with the reason.
PayloadMapping parse_payload_mapping(std::string_view spec, HashFunction function = HashFunction::md5);
std::string describe(const PayloadMapping& mapping);

// The hash of a payload, or nullopt when the payload cannot be what the mapping
// expects (a misread code: not a number, out of range, not 32 hex digits).
std::optional<Hash128> payload_hash(const PayloadMapping& mapping, std::string_view payload) noexcept;

}  // namespace hashtrace::collectors
