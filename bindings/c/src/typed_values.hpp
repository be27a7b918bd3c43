// The C API's state specs: what the C++ SDK's record path needs from an
// in()/out() spec (size, copy_to, hash), made from C values or from bytes that
// are already canonical. Typed values go through the SDK's own encode(), with
// the C++ type of the same width, so the bytes are the SDK's by construction.
#pragma once

#include "hashtrace.h"

#include <hashtrace/canonical.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hashtrace::capi {

// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
inline bool valid_utf8(const void* data, std::size_t n) noexcept {
    const auto* s = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len;
        unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
        if (c >= 0xc2 && c <= 0xdf) len = 2;
        else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            if (c == 0xe0) lo = 0xa0;
            if (c == 0xed) hi = 0x9f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            if (c == 0xf0) lo = 0x90;
            if (c == 0xf4) hi = 0x8f;
        } else {
            return false;
        }
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi) return false;
        for (std::size_t k = 2; k < len; ++k)
            if ((s[i + k] & 0xc0) != 0x80) return false;
        i += len;
    }
    return true;
}

// HASHTRACE_OK, or the status of the first bad value (its index in `bad`).
inline int validate(const hashtrace_value* values, std::size_t count, std::size_t& bad) noexcept {
    for (std::size_t i = 0; i < count; ++i) {
        const hashtrace_value& v = values[i];
        bad = i;
        if (v.type < HASHTRACE_TYPE_U8 || v.type > HASHTRACE_TYPE_BYTES) return HASHTRACE_E_INVALID_ARGUMENT;
        if (v.type == HASHTRACE_TYPE_STRING || v.type == HASHTRACE_TYPE_BYTES) {
            if (!v.as.bytes.data && v.as.bytes.size) return HASHTRACE_E_INVALID_ARGUMENT;
            if (v.as.bytes.size > UINT32_MAX) return HASHTRACE_E_INVALID_ARGUMENT;  // the length prefix is 32 bits
            if (v.type == HASHTRACE_TYPE_STRING && !valid_utf8(v.as.bytes.data, v.as.bytes.size))
                return HASHTRACE_E_INVALID_UTF8;
        }
    }
    return HASHTRACE_OK;
}

// Feeds one validated value to an SDK sink as the C++ type of its width.
template <class Sink>
void encode_value(Sink& sink, const hashtrace_value& v) noexcept {
    using detail::encode;
    switch (v.type) {
        case HASHTRACE_TYPE_U8: encode(sink, static_cast<std::uint8_t>(v.as.u)); break;
        case HASHTRACE_TYPE_U16: encode(sink, static_cast<std::uint16_t>(v.as.u)); break;
        case HASHTRACE_TYPE_U32: encode(sink, static_cast<std::uint32_t>(v.as.u)); break;
        case HASHTRACE_TYPE_U64: encode(sink, static_cast<std::uint64_t>(v.as.u)); break;
        case HASHTRACE_TYPE_I8: encode(sink, static_cast<std::int8_t>(v.as.i)); break;
        case HASHTRACE_TYPE_I16: encode(sink, static_cast<std::int16_t>(v.as.i)); break;
        case HASHTRACE_TYPE_I32: encode(sink, static_cast<std::int32_t>(v.as.i)); break;
        case HASHTRACE_TYPE_I64: encode(sink, static_cast<std::int64_t>(v.as.i)); break;
        case HASHTRACE_TYPE_F32: encode(sink, v.as.f32); break;
        case HASHTRACE_TYPE_F64: encode(sink, v.as.f64); break;
        case HASHTRACE_TYPE_BOOL: encode(sink, v.as.u != 0); break;
        case HASHTRACE_TYPE_STRING:
            encode(sink, std::string_view(static_cast<const char*>(v.as.bytes.data), v.as.bytes.size));
            break;
        case HASHTRACE_TYPE_BYTES: encode(sink, ByteView{v.as.bytes.data, v.as.bytes.size}); break;
        default: break;  // validate() rejected it
    }
}

inline std::size_t canonical_size(const hashtrace_value& v) noexcept {
    switch (v.type) {
        case HASHTRACE_TYPE_U8: case HASHTRACE_TYPE_I8: case HASHTRACE_TYPE_BOOL: return 1;
        case HASHTRACE_TYPE_U16: case HASHTRACE_TYPE_I16: return 2;
        case HASHTRACE_TYPE_U32: case HASHTRACE_TYPE_I32: case HASHTRACE_TYPE_F32: return 4;
        case HASHTRACE_TYPE_U64: case HASHTRACE_TYPE_I64: case HASHTRACE_TYPE_F64: return 8;
        case HASHTRACE_TYPE_STRING: case HASHTRACE_TYPE_BYTES: return 4 + v.as.bytes.size;
        default: return 0;
    }
}

template <class Hasher, class Feed>
Hash128 hash_fed(const Feed& feed) noexcept {
    detail::HashingSink<Hasher> sink;
    feed(sink);
    return sink.finish();
}

// Validated typed values.
struct ValuesSpec {
    const hashtrace_value* values;
    std::size_t count;

    template <class Sink>
    void feed(Sink& sink) const noexcept {
        for (std::size_t i = 0; i < count; ++i) encode_value(sink, values[i]);
    }
    std::size_t size() const noexcept {
        std::size_t n = 0;
        for (std::size_t i = 0; i < count; ++i) n += canonical_size(values[i]);
        return n;
    }
    void copy_to(unsigned char* out) const noexcept {
        detail::CopySink sink{out};
        feed(sink);
    }
    // Untyped only: the C API has no hashtrace::typed tracepoints.
    template <bool kTyped>
    Hash128 hash(HashFunction f) const noexcept {
        static_assert(!kTyped, "the C API records untyped samples");
        auto feed = [this](auto& sink) { this->feed(sink); };
        if (f == HashFunction::xxh3_128) return hash_fed<detail::Xxh3Hasher>(feed);
        return hash_fed<detail::Md5Hasher>(feed);
    }
};

// Bytes the caller already made canonical.
struct CanonicalBytesSpec {
    const void* data;
    std::size_t length;

    std::size_t size() const noexcept { return length; }
    void copy_to(unsigned char* out) const noexcept {
        detail::CopySink sink{out};
        sink.put(data, length);
    }
    // Untyped only: the C API has no hashtrace::typed tracepoints.
    template <bool kTyped>
    Hash128 hash(HashFunction f) const noexcept {
        static_assert(!kTyped, "the C API records untyped samples");
        return hash_canonical_bytes(f, data, length);
    }
};

}  // namespace hashtrace::capi
