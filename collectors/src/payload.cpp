#include "hashtrace/collectors/payload.hpp"

#include "hashtrace/canonical.hpp"

#include <charconv>
#include <cstdint>
#include <stdexcept>

namespace hashtrace::collectors {

PayloadMapping parse_payload_mapping(std::string_view spec, HashFunction function) {
    PayloadMapping m;
    m.hash_function = function;
    if (spec == "text") {
        m.kind = PayloadMapping::Kind::text;
    } else if (spec == "hex") {
        m.kind = PayloadMapping::Kind::hex;
    } else if (spec.starts_with("int:")) {
        const std::string_view width = spec.substr(4);
        unsigned bits = 0;
        auto [end, ec] = std::from_chars(width.data(), width.data() + width.size(), bits);
        if (ec != std::errc{} || end != width.data() + width.size() ||
            (bits != 8 && bits != 16 && bits != 32 && bits != 64)) {
            throw std::invalid_argument("payload mapping '" + std::string(spec) +
                                        "': the integer width must be 8, 16, 32 or 64 bits");
        }
        m.kind = PayloadMapping::Kind::integer;
        m.integer_bits = bits;
    } else {
        throw std::invalid_argument("payload mapping '" + std::string(spec) + "': expected text, int:W or hex");
    }
    return m;
}

std::string describe(const PayloadMapping& m) {
    switch (m.kind) {
        case PayloadMapping::Kind::text: return "text";
        case PayloadMapping::Kind::hex: return "hex";
        case PayloadMapping::Kind::integer: return "int:" + std::to_string(m.integer_bits);
    }
    return "?";
}

namespace {

// The payload as W bits of two's complement, if it fits signed or unsigned.
std::optional<std::uint64_t> parse_integer(std::string_view text, unsigned bits) noexcept {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (text.empty()) return std::nullopt;
    if (text.front() == '-') {
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(first, last, v);
        if (ec != std::errc{} || end != last) return std::nullopt;
        const std::int64_t min = bits == 64 ? INT64_MIN : -(std::int64_t{1} << (bits - 1));
        if (v < min) return std::nullopt;
        return static_cast<std::uint64_t>(v);
    }
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(first, last, v);
    if (ec != std::errc{} || end != last) return std::nullopt;
    if (bits < 64 && v >> bits) return std::nullopt;
    return v;
}

}  // namespace

std::optional<Hash128> payload_hash(const PayloadMapping& m, std::string_view payload) noexcept {
    switch (m.kind) {
        case PayloadMapping::Kind::text:
            return hash_of(m.hash_function, payload);
        case PayloadMapping::Kind::hex: {
            Hash128 h;
            if (!from_hex(payload, h)) return std::nullopt;
            return h;
        }
        case PayloadMapping::Kind::integer: {
            const auto v = parse_integer(payload, m.integer_bits);
            if (!v) return std::nullopt;
            // Hash the value at its declared width, exactly as the SDK hashes
            // an integer of that type (low bytes of the two's complement).
            switch (m.integer_bits) {
                case 8: return hash_of(m.hash_function, static_cast<std::uint8_t>(*v));
                case 16: return hash_of(m.hash_function, static_cast<std::uint16_t>(*v));
                case 32: return hash_of(m.hash_function, static_cast<std::uint32_t>(*v));
                default: return hash_of(m.hash_function, *v);
            }
        }
    }
    return std::nullopt;
}

}  // namespace hashtrace::collectors
