// hashtrace/canonical.hpp - the canonical bytes of developer state, and the
// hashes of them (docs/spec.md section 2).
//
// A C++ tracepoint, a tracepoint in another language and an external collector
// (a QR code read off video) must agree on the hash of "message 42". They do
// because all of them hash the same canonical bytes:
//   integers        little-endian bytes of their width   uint32_t 42 -> 2a 00 00 00
//   floating point  IEEE-754 little-endian bytes
//   strings, spans  uint32 little-endian length, then the raw bytes
//   raw structs     their raw bytes, no length (opt in: HASHTRACE_RAW_HASHABLE)
//   several values  the concatenation, in the order given
//
//   hashtrace::Hash128 h = hashtrace::hash_of(hashtrace::HashFunction::md5, std::uint32_t{42});
#pragma once

#include "hashtrace/detail/hashers.hpp"
#include "hashtrace/hash128.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace hashtrace {

// A span of bytes to hash as bytes (length-prefixed), not as a string or a struct.
struct ByteView {
    const void* data;
    std::size_t size;
};
inline ByteView bytes(const void* data, std::size_t size) noexcept { return {data, size}; }

// Opt-in for hashing a struct as its raw memory. Only for trivially copyable
// types without padding you care about: padding bytes are hashed too.
template <class T>
struct is_raw_hashable : std::false_type {};

}  // namespace hashtrace

// Use at global namespace scope: HASHTRACE_RAW_HASHABLE(my::Pose);
#define HASHTRACE_RAW_HASHABLE(Type) \
    template <>                      \
    struct hashtrace::is_raw_hashable<Type> : std::true_type {}

// For the few functions a deferred tracepoint's copy is made of: a call to
// any of them would cost more than its body.
#if defined(__GNUC__)
#define HASHTRACE_ALWAYS_INLINE __attribute__((always_inline))
#else
#define HASHTRACE_ALWAYS_INLINE
#endif

namespace hashtrace {
namespace detail {

template <class T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T>
constexpr bool is_text_v = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                           std::is_same_v<T, const char*> || std::is_same_v<T, char*>;

// Number of canonical bytes a value encodes to. Cheap: no string is copied.
template <class T>
std::size_t canonical_size(const T& v) noexcept {
    using U = remove_cvref_t<T>;
    if constexpr (std::is_arithmetic_v<U> || std::is_enum_v<U>) {
        return sizeof(U);
    } else if constexpr (std::is_same_v<U, ByteView>) {
        return 4 + v.size;
    } else if constexpr (is_text_v<U>) {
        return 4 + std::string_view(v).size();
    } else if constexpr (std::is_array_v<U> && std::is_same_v<std::remove_extent_t<U>, char>) {
        return 4 + std::char_traits<char>::length(v);  // string literal: up to its NUL
    } else {
        static_assert(is_raw_hashable<U>::value,
                      "hashtrace cannot hash this type: pass integers, floats, strings, "
                      "hashtrace::bytes(ptr, n), or mark the struct HASHTRACE_RAW_HASHABLE");
        static_assert(std::is_trivially_copyable_v<U>, "raw-hashable types must be trivially copyable");
        return sizeof(U);
    }
}

inline void store_u32le(unsigned char* p, std::uint32_t v) noexcept {
    p[0] = static_cast<unsigned char>(v);
    p[1] = static_cast<unsigned char>(v >> 8);
    p[2] = static_cast<unsigned char>(v >> 16);
    p[3] = static_cast<unsigned char>(v >> 24);
}

// Feeds the canonical bytes of one value to a sink with `put(const void*, size_t)`.
template <class Sink, class T>
HASHTRACE_ALWAYS_INLINE inline void encode(Sink& sink, const T& v) noexcept {
    using U = remove_cvref_t<T>;
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                  "canonical encoding is written for little-endian hosts");
    if constexpr (std::is_same_v<U, bool>) {
        const unsigned char b = v ? 1 : 0;
        sink.put(&b, 1);
    } else if constexpr (std::is_arithmetic_v<U> || std::is_enum_v<U>) {
        sink.put(&v, sizeof(U));
    } else if constexpr (std::is_same_v<U, ByteView>) {
        unsigned char len[4];
        store_u32le(len, static_cast<std::uint32_t>(v.size));
        sink.put(len, 4);
        sink.put(v.data, v.size);
    } else if constexpr (is_text_v<U> || (std::is_array_v<U> && std::is_same_v<std::remove_extent_t<U>, char>)) {
        const std::string_view s(v);
        unsigned char len[4];
        store_u32le(len, static_cast<std::uint32_t>(s.size()));
        sink.put(len, 4);
        sink.put(s.data(), s.size());
    } else {
        (void)canonical_size(v);  // the static_asserts explain a wrong type
        sink.put(&v, sizeof(U));
    }
}

// Copies n bytes known only at run time, inline where n is small (a
// tracepoint's state, most often): two overlapping loads and stores per size
// class instead of a call to memcpy.
HASHTRACE_ALWAYS_INLINE inline void copy_bytes(unsigned char* d, const void* src, std::size_t n) noexcept {
    const auto* s = static_cast<const unsigned char*>(src);
    if (n > 64) {
        std::memcpy(d, s, n);
    } else if (n >= 16) {
        for (std::size_t i = 0; i + 16 < n; i += 16) std::memcpy(d + i, s + i, 16);
        std::memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8) {
        std::memcpy(d, s, 8);
        std::memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        std::memcpy(d, s, 4);
        std::memcpy(d + n - 4, s + n - 4, 4);
    } else if (n > 0) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

// Copies canonical bytes into a caller's buffer (which must be large enough).
struct CopySink {
    unsigned char* out;
    HASHTRACE_ALWAYS_INLINE void put(const void* p, std::size_t n) noexcept {
        copy_bytes(out, p, n);
        out += n;
    }
};

// Gathers small values into one stack block so the hash function is called
// once for typical tracepoint state (one MD5 block costs what the call does);
// large spans go straight to the hasher instead of being copied.
template <class Hasher>
struct HashingSink {
    static constexpr std::size_t kBuffer = 256;
    std::size_t used = 0;
    bool streaming = false;  // the hasher is initialised only once state outgrows buf
    Hasher hasher;
    unsigned char buf[kBuffer];

    void put(const void* p, std::size_t n) noexcept {
        if (used + n <= kBuffer) {
            copy_bytes(buf + used, p, n);
            used += n;
            return;
        }
        if (!streaming) {
            hasher.init();
            streaming = true;
        }
        hasher.update(buf, used);
        used = 0;
        if (n <= kBuffer) {
            std::memcpy(buf, p, n);
            used = n;
        } else {
            hasher.update(p, n);
        }
    }
    Hash128 finish() noexcept {
        static_assert(kBuffer >= 128, "oneshot_in_place pads up to 128 bytes in buf");
        if (!streaming) return Hasher::oneshot_in_place(buf, used);
        hasher.update(buf, used);
        return hasher.finish();
    }
};

template <class Hasher, class... Ts>
Hash128 hash_with(const Ts&... values) noexcept {
    HashingSink<Hasher> sink;
    (encode(sink, values), ...);
    return sink.finish();
}

}  // namespace detail

// The hash of one or more values under the given function.
template <class... Ts>
Hash128 hash_of(HashFunction f, const Ts&... values) noexcept {
    if (f == HashFunction::xxh3_128) return detail::hash_with<detail::Xxh3Hasher>(values...);
    return detail::hash_with<detail::Md5Hasher>(values...);
}

// The hash of bytes that are already canonical (e.g. copied by a deferred tracepoint).
inline Hash128 hash_canonical_bytes(HashFunction f, const void* data, std::size_t size) noexcept {
    if (f == HashFunction::xxh3_128) return detail::Xxh3Hasher::oneshot(data, size);
    return detail::Md5Hasher::oneshot(data, size);
}

namespace detail {
template <class Hasher>
Hash128 hash_labelled_bytes(std::string_view label, const void* data, std::size_t size) noexcept {
    HashingSink<Hasher> sink;
    encode(sink, label);
    sink.put(data, size);
    return sink.finish();
}
}  // namespace detail

// The same with typed hashing: the label's canonical bytes (a string) first.
inline Hash128 hash_canonical_bytes(HashFunction f, std::string_view label, const void* data, std::size_t size) noexcept {
    if (f == HashFunction::xxh3_128) return detail::hash_labelled_bytes<detail::Xxh3Hasher>(label, data, size);
    return detail::hash_labelled_bytes<detail::Md5Hasher>(label, data, size);
}

// The canonical bytes of values as a string (for tests, tools and other languages).
template <class... Ts>
std::string canonical_bytes(const Ts&... values) {
    std::string out((detail::canonical_size(values) + ... + std::size_t{0}), '\0');
    detail::CopySink sink{reinterpret_cast<unsigned char*>(out.data())};
    (detail::encode(sink, values), ...);
    return out;
}

}  // namespace hashtrace
