// hashtrace/detail/queued_sample.hpp - what a tracepoint pushes into the queue.
//
// Two cache lines, fixed size: a 32-byte header, then either the sample's two
// hashes (hashed on the application thread) or, for deferred tracepoints, the
// canonical bytes of its state, which the writer thread hashes.
//
// Copies move only the lines in use: a hashed sample, or a deferred one of up
// to 32 bytes, is one cache line. The enqueue's cost is mostly the stores into
// a queue slot the writer thread last read (the line must be fetched back for
// writing), so every line not written is ~10 ns saved on the application
// thread; the stale second line is never read.
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

    const CallSite* site;  // null: a ring filler, no sample (thread_queues.hpp)
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

    QueuedSample() noexcept = default;
    QueuedSample(const QueuedSample& other) noexcept { copy_from(other); }
    QueuedSample& operator=(const QueuedSample& other) noexcept {
        copy_from(other);
        return *this;
    }

    // Payload bytes in use: the hashes, or the deferred canonical bytes.
    std::size_t payload_size() const noexcept {
        return (flags & kDeferred) ? std::size_t{input_len} + output_len : 2 * sizeof(Hash128);
    }

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

private:
    // Fixed sizes, so the copies compile to a few vector moves.
    void copy_from(const QueuedSample& other) noexcept {
        if (other.payload_size() <= 64 - kHeaderSize) std::memcpy(static_cast<void*>(this), &other, 64);
        else std::memcpy(static_cast<void*>(this), &other, sizeof(QueuedSample));
    }
};

static_assert(sizeof(QueuedSample) == 128, "a queued sample is two cache lines");
static_assert(offsetof(QueuedSample, payload) == QueuedSample::kHeaderSize, "the header is half a cache line");
static_assert(std::is_trivially_destructible_v<QueuedSample>, "the queue destroys samples for free");

}  // namespace hashtrace::detail
