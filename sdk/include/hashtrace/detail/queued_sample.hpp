// hashtrace/detail/queued_sample.hpp - one slot of a thread's ring: what a
// tracepoint writes, in place, for the writer thread to read.
//
// Two cache lines, fixed size: a 32-byte header, then either the sample's two
// hashes (hashed on the application thread) or, for deferred tracepoints, the
// canonical bytes of its state, which the writer thread hashes.
//
// A tracepoint writes only the lines it uses: a hashed sample, or a deferred
// one of up to 32 bytes, is one cache line. Each store goes to a slot the
// writer last read (the line is fetched back for writing), so every line not
// written is time saved on the application thread; the stale rest is never read.
#pragma once

#include "hashtrace/hash128.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hashtrace::detail {

struct CallSite;

struct alignas(64) QueuedSample {
    static constexpr std::size_t kHeaderSize = 32;
    static constexpr std::size_t kPayloadCapacity = 96;

    enum Flags : std::uint8_t {
        kHasInput = 1,
        kHasOutput = 2,
        kDeferred = 4,    // payload holds canonical bytes, not hashes
        kOutIsInput = 8,  // inout(): the output hash is the input hash
        kTscStamp = 16,   // time_ns holds TSC ticks for the writer to convert (clock.hpp)
    };

    const CallSite* site;
    std::int64_t time_ns;  // CLOCK_REALTIME ns, or TSC ticks (kTscStamp)
    std::uint64_t seq;
    std::uint32_t thread;
    std::uint8_t flags;
    std::uint8_t input_len;   // deferred: canonical bytes of the input state at payload[0]
    std::uint8_t output_len;  // deferred: canonical bytes of the output state after the input's
    std::uint8_t reserved;
    // Hashed: input hash bytes at [0, 16), output at [16, 32).
    // Deferred: canonical bytes of the input state, then of the output state.
    unsigned char payload[kPayloadCapacity];

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

static_assert(sizeof(QueuedSample) == 128, "a ring slot is two cache lines");
static_assert(offsetof(QueuedSample, payload) == QueuedSample::kHeaderSize, "the header is half a cache line");
static_assert(std::is_trivially_copyable_v<QueuedSample>, "slots are plain bytes");

}  // namespace hashtrace::detail
