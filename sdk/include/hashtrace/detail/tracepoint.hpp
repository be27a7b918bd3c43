// hashtrace/detail/tracepoint.hpp - what a tracepoint hashes, and the hot
// path that records a sample.
#pragma once

#include "hashtrace/canonical.hpp"
#include "hashtrace/detail/call_site.hpp"
#include "hashtrace/detail/queued_sample.hpp"
#include "hashtrace/detail/runtime.hpp"

#include <atomic>
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
    void copy_to(unsigned char* out) const noexcept {
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

template <bool kTyped, class Spec>
inline bool fill_hash(const Spec& spec, HashFunction f, Hash128& out) noexcept {
    if constexpr (std::is_same_v<Spec, NoneSpec>) {
        (void)spec, (void)f, (void)out;
        return false;
    } else {
        out = spec.template hash<kTyped>(f);
        return true;
    }
}

template <class Spec>
inline std::size_t deferred_size(const Spec& spec) noexcept {
    if constexpr (std::is_same_v<Spec, NoneSpec>) {
        (void)spec;
        return 0;
    } else {
        return spec.size();
    }
}

template <class Spec>
inline void deferred_copy(const Spec& spec, unsigned char* out) noexcept {
    if constexpr (!std::is_same_v<Spec, NoneSpec>) spec.copy_to(out);
    else (void)spec, (void)out;
}

// Deferred samples of a typed tracepoint carry the state's bytes only: the
// writer prefixes the labels, which it has from the call site.
template <bool kTyped, class In, class Out>
inline void fill(QueuedSample& s, const CallSite& site, const In& in, const Out& out, bool out_is_in) noexcept {
    constexpr bool in_none = std::is_same_v<In, NoneSpec>;
    constexpr bool out_none = std::is_same_v<Out, NoneSpec>;
    s.flags = (in_none ? 0 : QueuedSample::kHasInput) | (out_none ? 0 : QueuedSample::kHasOutput);
    if (out_is_in) s.flags |= QueuedSample::kHasOutput | QueuedSample::kOutIsInput;
    if (site.deferred) {
        const std::size_t in_len = deferred_size(in);
        const std::size_t out_len = out_is_in ? 0 : deferred_size(out);
        if (in_len + out_len <= QueuedSample::kPayloadCapacity) {
            s.flags |= QueuedSample::kDeferred;
            s.input_len = static_cast<std::uint8_t>(in_len);
            s.output_len = static_cast<std::uint8_t>(out_len);
            deferred_copy(in, s.payload);
            if (!out_is_in) deferred_copy(out, s.payload + in_len);
            return;
        }
        // Too large to copy: hash here instead. The result is identical.
    }
    Hash128 in_hash, out_hash;
    fill_hash<kTyped>(in, site.hash_function, in_hash);
    if (out_is_in) out_hash = in_hash;
    else fill_hash<kTyped>(out, site.hash_function, out_hash);
    s.set_hashes(in_hash, out_hash);
}

template <bool kTyped, class In, class Out>
inline void record_sample(const CallSite& site, const In& in, const Out& out, bool out_is_in) noexcept {
    ThreadState& ts = thread_state();
    QueuedSample s;
    const bool tsc = stamp(s.time_ns);  // first: the sample marks when the tracepoint was reached
    s.site = &site;
    s.reserved = 0;
    s.input_len = s.output_len = 0;
    fill<kTyped>(s, site, in, out, out_is_in);
    if (tsc) s.flags |= QueuedSample::kTscStamp;
    enqueue(ts, s);
}

template <bool kTyped = false, class... Ts>
inline void record(const CallSite& site, const InOutSpec<Ts...>& io) noexcept {
    record_sample<kTyped>(site, io.spec, NoneSpec{}, true);
}

template <bool kTyped = false, class In, class Out, class = std::enable_if_t<!std::is_same_v<In, TypedHashing>>>
inline void record(const CallSite& site, const In& in, const Out& out) noexcept {
    record_sample<kTyped>(site, in, out, false);
}

template <class... Specs>
inline void record(const CallSite& site, TypedHashing, const Specs&... specs) noexcept {
    record<true>(site, specs...);
}

}  // namespace hashtrace::detail

#pragma GCC visibility pop
