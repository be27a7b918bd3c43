// hashtrace/detail/hashers.hpp - streaming wrappers of the two hash functions,
// with one interface (update, finish) so the canonical encoder serves both.
#pragma once

#include "hashtrace/hash128.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

// OpenSSL 3 deprecates the low-level MD5_* API in favour of EVP, but EVP
// fetches an algorithm object and allocates a context per digest: too slow and
// not allocation-free for a tracepoint. The low-level calls remain supported
// through OpenSSL 3.x, so we use them and silence the deprecation locally.
#include <openssl/md5.h>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL  // header-only use of libxxhash: nothing to link, and it inlines
#endif
#include <xxhash.h>

namespace hashtrace::detail {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

// Both hashers: init() before update(); oneshot() when all bytes are at hand
// (the common case: the canonical encoder gathers small state in one block).
class Md5Hasher {
public:
    // The bytes of a message of up to kPaddedMax bytes, padded in place.
    static constexpr std::size_t kPaddedMax = 119;

    static Hash128 oneshot(const void* p, std::size_t n) noexcept {
        if (n <= kPaddedMax) {
            alignas(16) unsigned char block[128];
            if (n) std::memcpy(block, p, n);
            return padded_in_place(block, n);
        }
        Hash128 h;
        MD5(static_cast<const unsigned char*>(p), n, h.bytes.data());
        return h;
    }

    // MD5 of the first n bytes of buf (n <= kPaddedMax), which has room for
    // the padding up to the next 64-byte block (128 bytes suffice): the
    // padding is written after them and the blocks compressed from the
    // initial state, the digest what MD5() gives, without MD5()'s context to
    // set up, copy into and wipe.
    static Hash128 padded_in_place(unsigned char* buf, std::size_t n) noexcept {
        const std::size_t blocks = n <= 55 ? 1 : 2;
        buf[n] = 0x80;
        std::memset(buf + n + 1, 0, blocks * 64 - 8 - (n + 1));
        const std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
        std::memcpy(buf + blocks * 64 - 8, &bits, 8);  // little-endian hosts (canonical.hpp)
        MD5_CTX ctx;
        ctx.A = 0x67452301u;
        ctx.B = 0xefcdab89u;
        ctx.C = 0x98badcfeu;
        ctx.D = 0x10325476u;
        MD5_Transform(&ctx, buf);
        if (blocks == 2) MD5_Transform(&ctx, buf + 64);
        Hash128 h;
        const std::uint32_t words[4] = {ctx.A, ctx.B, ctx.C, ctx.D};
        std::memcpy(h.bytes.data(), words, 16);
        return h;
    }
    // The same on bytes in a buffer of at least 128 bytes that may be overwritten after them.
    static Hash128 oneshot_in_place(unsigned char* buf, std::size_t n) noexcept {
        if (n <= kPaddedMax) return padded_in_place(buf, n);
        return oneshot(buf, n);
    }
    void init() noexcept { MD5_Init(&ctx_); }
    void update(const void* p, std::size_t n) noexcept {
        if (n) MD5_Update(&ctx_, p, n);
    }
    Hash128 finish() noexcept {
        Hash128 h;
        MD5_Final(h.bytes.data(), &ctx_);
        return h;
    }

private:
    MD5_CTX ctx_;
};

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

// XXH3-128 digest bytes are stored in XXH's canonical (big-endian) form, the
// form `xxhsum -H2` prints, so logs can be checked with that tool.
class Xxh3Hasher {
public:
    static Hash128 oneshot(const void* p, std::size_t n) noexcept { return from_xxh(XXH3_128bits(p, n)); }
    static Hash128 oneshot_in_place(unsigned char* buf, std::size_t n) noexcept { return oneshot(buf, n); }
    void init() noexcept { XXH3_128bits_reset(&state_); }
    void update(const void* p, std::size_t n) noexcept {
        if (n) XXH3_128bits_update(&state_, p, n);
    }
    Hash128 finish() noexcept { return from_xxh(XXH3_128bits_digest(&state_)); }

private:
    static Hash128 from_xxh(XXH128_hash_t v) noexcept {
        XXH128_canonical_t c;
        XXH128_canonicalFromHash(&c, v);
        Hash128 h;
        std::memcpy(h.bytes.data(), c.digest, 16);
        return h;
    }

    XXH3_state_t state_;
};

}  // namespace hashtrace::detail
