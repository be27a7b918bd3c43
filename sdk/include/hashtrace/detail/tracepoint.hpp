// hashtrace/detail/tracepoint.hpp - what a tracepoint hashes, and the hot
// path that records a sample.
#pragma once

#include "hashtrace/canonical.hpp"
#include "hashtrace/detail/call_site.hpp"
#include "hashtrace/detail/queued_sample.hpp"
#include "hashtrace/detail/runtime.hpp"

#include <atomic>
#include <cstring>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#pragma GCC visibility push(default)  // one runtime per process: see runtime.hpp

namespace hashtrace::detail {

// ---- what to hash -----------------------------------------------------------

template <class... Ts>
struct HashSpec {
    const char* type;
    std::tuple<const Ts&...> values;

    std::size_t size() const noexcept {
        return std::apply([](const auto&... v) { return (canonical_size(v) + ... + std::size_t{0}); }, values);
    }
    HASHTRACE_ALWAYS_INLINE void copy_to(unsigned char* out) const noexcept {
        CopySink sink{out};
        std::apply([&](const auto&... v) { (encode(sink, v), ...); }, values);
    }
    template <bool kTyped>
    Hash128 hash(HashFunction f) const noexcept {
        if constexpr (kTyped)
            return std::apply([this, f](const auto&... v) { return hash_of(f, std::string_view(type), v...); }, values);
        else
            return std::apply([f](const auto&... v) { return hash_of(f, v...); }, values);
    }
};

template <class... Ts>
struct InOutSpec {
    HashSpec<Ts...> spec;
};

struct NoneSpec {
    static constexpr const char* type = "";
};

// The first argument of a tracepoint with typed hashing (hashtrace::typed).
struct TypedHashing {};

template <class... Ts>
HashTypes types_of(const InOutSpec<Ts...>& io) noexcept { return {io.spec.type, io.spec.type}; }
template <class In, class Out, class = std::enable_if_t<!std::is_same_v<In, TypedHashing>>>
HashTypes types_of(const In& in, const Out& out) noexcept { return {in.type, out.type}; }
template <class... Specs>
HashTypes types_of(TypedHashing, const Specs&... specs) noexcept {
    HashTypes t = types_of(specs...);
    t.typed = true;
    return t;
}

template <class... Ts>
void discard(const Ts&...) noexcept {}

// ---- the hot path -----------------------------------------------------------
// A sample is written in place into the next slot of the thread's ring
// (prepare), then published with one release store (commit). Which hash function, whether deferred and whether the output is the
// input are template arguments, so a call site compiles to its one path.

template <class Spec>
inline constexpr bool kIsNone = std::is_same_v<Spec, NoneSpec>;

template <HashFunction kFn, bool kTyped, class Spec>
inline void hash_into(const Spec& spec, unsigned char* out) noexcept {
    if constexpr (!kIsNone<Spec>) {
        const Hash128 h = spec.template hash<kTyped>(kFn);
        std::memcpy(out, h.bytes.data(), 16);
    } else {
        (void)spec, (void)out;
    }
}

template <class Spec>
inline std::size_t deferred_size(const Spec& spec) noexcept {
    if constexpr (kIsNone<Spec>) {
        (void)spec;
        return 0;
    } else {
        return spec.size();
    }
}

template <class Spec>
inline void deferred_copy(const Spec& spec, unsigned char* out) noexcept {
    if constexpr (!kIsNone<Spec>) spec.copy_to(out);
    else (void)spec, (void)out;
}

template <class In, class Out, bool kOutIsIn>
inline constexpr std::uint8_t kSideFlags = (kIsNone<In> ? 0 : QueuedSample::kHasInput) |
                                           (kIsNone<Out> && !kOutIsIn ? 0 : QueuedSample::kHasOutput) |
                                           (kOutIsIn ? QueuedSample::kOutIsInput : 0);

// Hashed on this thread: stamped first (the sample marks when the tracepoint
// was reached, not when a long hash ended), the hashes straight into the slot.
template <HashFunction kFn, bool kTyped, bool kOutIsIn, class In, class Out>
inline void record_hashed(const CallSite& site, const In& in, const Out& out) noexcept {
    ThreadState& ts = thread_state();
    std::int64_t t;
    const bool tsc = stamp(t);
    QueuedSample* s = prepare(ts, site);
    if (!s) return;
    hash_into<kFn, kTyped>(in, s->payload);
    if constexpr (kOutIsIn) std::memcpy(s->payload + 16, s->payload, 16);
    else hash_into<kFn, kTyped>(out, s->payload + 16);
    s->site = &site;
    s->seq = ts.seq++;
    s->thread = ts.id;
    s->flags = static_cast<std::uint8_t>(kSideFlags<In, Out, kOutIsIn> | (tsc ? QueuedSample::kTscStamp : 0));
    s->time_ns = t;
    commit(ts);
}

// Deferred: the state's canonical bytes copied into the slot, the writer
// hashes them. Stamped once the slot is ready, before the copy: the copy's few
// stores then run while the TSC read completes (its ~9 ns are most of the
// tracepoint on our machines), which measured 1.1x the floor at 10 B where
// stamping after the copy measured 1.3x. Deferred samples of a typed tracepoint carry the state's bytes
// only: the writer prefixes the labels, which it has from the call site.
template <HashFunction kFn, bool kTyped, bool kOutIsIn, class In, class Out>
inline void record_deferred(const CallSite& site, const In& in, const Out& out) noexcept {
    const std::size_t in_len = deferred_size(in);
    const std::size_t out_len = kOutIsIn ? 0 : deferred_size(out);
    if (__builtin_expect(in_len + out_len > QueuedSample::kPayloadCapacity, 0))
        return record_hashed<kFn, kTyped, kOutIsIn>(site, in, out);  // too large to copy: the same hashes, here
    ThreadState& ts = thread_state();
    QueuedSample* s = prepare(ts, site);
    if (!s) return;
    std::int64_t t;
    const bool tsc = stamp(t);
    deferred_copy(in, s->payload);
    if constexpr (!kOutIsIn) deferred_copy(out, s->payload + in_len);
    s->input_len = static_cast<std::uint8_t>(in_len);
    s->output_len = static_cast<std::uint8_t>(out_len);
    s->site = &site;
    s->seq = ts.seq++;
    s->thread = ts.id;
    s->flags = static_cast<std::uint8_t>(kSideFlags<In, Out, kOutIsIn> | QueuedSample::kDeferred | (tsc ? QueuedSample::kTscStamp : 0));
    s->time_ns = t;
    commit(ts);
}

template <HashFunction kFn, bool kDeferred, bool kTyped, bool kOutIsIn, class In, class Out>
inline void record_as(const CallSite& site, const In& in, const Out& out) noexcept {
    if constexpr (kDeferred) record_deferred<kFn, kTyped, kOutIsIn>(site, in, out);
    else record_hashed<kFn, kTyped, kOutIsIn>(site, in, out);
}

// The same with the call site's choices read at run time (the C binding).
template <bool kTyped, class In, class Out>
inline void record_sample(const CallSite& site, const In& in, const Out& out, bool out_is_in) noexcept {
    constexpr auto md5 = HashFunction::md5, xxh3 = HashFunction::xxh3_128;
    const bool fast = site.hash_function == xxh3;
    if (out_is_in) {
        if (site.deferred) fast ? record_as<xxh3, true, kTyped, true>(site, in, out) : record_as<md5, true, kTyped, true>(site, in, out);
        else fast ? record_as<xxh3, false, kTyped, true>(site, in, out) : record_as<md5, false, kTyped, true>(site, in, out);
    } else {
        if (site.deferred) fast ? record_as<xxh3, true, kTyped, false>(site, in, out) : record_as<md5, true, kTyped, false>(site, in, out);
        else fast ? record_as<xxh3, false, kTyped, false>(site, in, out) : record_as<md5, false, kTyped, false>(site, in, out);
    }
}

template <HashFunction kFn, bool kDeferred, bool kTyped = false, class... Ts>
inline void record(const CallSite& site, const InOutSpec<Ts...>& io) noexcept {
    record_as<kFn, kDeferred, kTyped, true>(site, io.spec, NoneSpec{});
}

template <HashFunction kFn, bool kDeferred, bool kTyped = false, class In, class Out,
          class = std::enable_if_t<!std::is_same_v<In, TypedHashing>>>
inline void record(const CallSite& site, const In& in, const Out& out) noexcept {
    record_as<kFn, kDeferred, kTyped, false>(site, in, out);
}

template <HashFunction kFn, bool kDeferred, class... Specs>
inline void record(const CallSite& site, TypedHashing, const Specs&... specs) noexcept {
    record<kFn, kDeferred, true>(site, specs...);
}

}  // namespace hashtrace::detail

#pragma GCC visibility pop
