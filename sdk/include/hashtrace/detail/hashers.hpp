// hashtrace/detail/hashers.hpp - streaming wrappers of the two hash functions,
// with one interface (update, finish) so the canonical encoder serves both.
#pragma once

#include "hashtrace/hash128.hpp"

#include <cstddef>
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
    static Hash128 oneshot(const void* p, std::size_t n) noexcept {
        Hash128 h;
        MD5(static_cast<const unsigned char*>(p), n, h.bytes.data());
        return h;
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
