// hashtrace/detail/queued_sample.hpp - what a tracepoint pushes into the queue.
//
// Two cache lines, fixed size, trivially copyable: the enqueue is a 128-byte
// copy into a pre-allocated block. A sample either carries its two hashes
// (hashed on the application thread) or, for deferred tracepoints, the
// canonical bytes of its state, which the writer thread hashes.
#pragma once

#include "hashtrace/hash128.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hashtrace::detail {

struct TracepointDef;

struct QueuedSample {
    static constexpr std::size_t kPayloadCapacity = 96;

    enum Flags : std::uint8_t {
        kHasInput = 1,
        kHasOutput = 2,
        kDeferred = 4,    // payload holds canonical bytes, not hashes
        kOutIsInput = 8,  // inout(): the output hash is the input hash
    };

    TracepointDef* def;
    std::int64_t time_ns;
    std::uint64_t seq;
    std::uint32_t thread;
    std::uint8_t flags;
    std::uint8_t input_len;   // deferred: canonical bytes of the input state at payload[0]
    std::uint8_t output_len;  // deferred: canonical bytes of the output state after the input's
    std::uint8_t reserved;
    // Hashed: input hash bytes at [0, 16), output at [16, 32).
    // Deferred: canonical bytes of the input state, then of the output state.
    unsigned char payload[kPayloadCapacity];

    void set_hashes(const Hash128& in, const Hash128& out) noexcept {
        std::memcpy(payload, in.bytes.data(), 16);
        std::memcpy(payload + 16, out.bytes.data(), 16);
    }
    Hash128 input_hash() const noexcept {
        Hash128 h;
        std::memcpy(h.bytes.data(), payload, 16);
        return h;
    }
    Hash128 output_hash() const noexcept {
        Hash128 h;
        std::memcpy(h.bytes.data(), payload + 16, 16);
        return h;
    }
};

static_assert(sizeof(QueuedSample) == 128, "a queued sample is two cache lines");
static_assert(std::is_trivially_copyable_v<QueuedSample>, "queued samples are copied as bytes");

}  // namespace hashtrace::detail
