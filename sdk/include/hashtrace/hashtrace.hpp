// hashtrace/hashtrace.hpp - hash-based causality tracing for distributed
// real-time systems. Header-only; C++17.
//
// Quick start
//
//   #include <hashtrace/hashtrace.hpp>
//
//   int main() {
//       hashtrace::Session tracing(hashtrace::Config::from_env({.node_name = "Physics"}));  // C++20 designated init;
//       ...                                                                                  // in C++17 set fields
//       TRACEPOINT("MessageReceived", hashtrace::inout("messageid", msg.id));
//       TRACEPOINT("ForceComputed",  hashtrace::in("loop", counter), hashtrace::out("messageid", msg.id, msg.force));
//   }
//
// Each TRACEPOINT takes a time stamp, hashes the state you name into a 128-bit
// input hash and output hash, and writes the sample into its thread's ring; a
// writer thread drains the rings into one log file per process run
// (<log_dir>/<node>-<instance>.htlog, or .csv). After the run, `hashtrace
// analyze` links samples whose output hash equals another's input hash.
//
// The macros
//   TRACEPOINT(name, io)                 one spec for both hashes: inout(...)
//   TRACEPOINT(name, in, out)            in(...) / out(...) / hashtrace::none
//   TRACEPOINT_DEFERRED(name, ...)       copies the state's canonical bytes (up to
//                                        kDeferredCapacity) and hashes on the writer thread
//   TRACEPOINT_FAST(name, ...)           XXH3-128 instead of MD5 (recorded in the log;
//                                        links only with other XXH3 samples)
//   TRACEPOINT_FAST_DEFERRED(name, ...)  both
//
// Cost on the application thread (docs/benchmarks.md): the hash (or a copy of
// the state's bytes) written in place into the next slot of the thread's own
// ring, a time stamp (the TSC where the kernel keeps time with it, converted
// to CLOCK_REALTIME by the writer; else clock_gettime, a vDSO call), and one
// release store that hands the slot to the writer thread. No lock, no
// allocation (after a thread's first tracepoint, which gets its ring), no I/O.
//
// Compile with -DHASHTRACE_DISABLE to turn every macro into nothing;
// hashtrace::set_enabled(false) turns recording off at run time for the cost
// of one predictable branch per tracepoint.
//
// What a tracepoint hashes, and how (docs/spec.md section 2): see canonical.hpp.
#pragma once

#include "hashtrace/canonical.hpp"
#include "hashtrace/config.hpp"
#include "hashtrace/hash128.hpp"
#include "hashtrace/log_format.hpp"
#include "hashtrace/detail/runtime.hpp"
#include "hashtrace/detail/tracepoint.hpp"
#if HASHTRACE_RUNTIME_DEFINED_HERE
#include "hashtrace/detail/session.hpp"
#endif

#include <string>
#include <string_view>

namespace hashtrace {

// ---------------------------------------------------------------------------
// What a tracepoint hashes. The label says what the hash covers ("messageid",
// "loop", "payload"); it is the paper's input/output hash type. It is recorded,
// not hashed: out("det", id) and in("frame", id) give the same hash and link,
// unless an analysis spec's [[pair]] rules say which tracepoints may link, or
// the tracepoint hashes typed (below).

template <class... Ts>
detail::HashSpec<Ts...> in(const char* type, const Ts&... values) noexcept { return {type, {values...}}; }

template <class... Ts>
detail::HashSpec<Ts...> out(const char* type, const Ts&... values) noexcept { return {type, {values...}}; }

// The same state in and out: hashed once, stored as both hashes.
template <class... Ts>
detail::InOutSpec<Ts...> inout(const char* type, const Ts&... values) noexcept { return {{type, {values...}}}; }

// No hash (an empty CSV field): a source with no input, a sink with no output.
inline constexpr detail::NoneSpec none{};

// Typed hashing, opted into per tracepoint as its first argument:
//   TRACEPOINT("Detect", hashtrace::typed, hashtrace::in("frame", f), hashtrace::out("det", d));
// hashes each label's canonical bytes (a string) before the state, i.e.
// hash_of(f, std::string_view(label), values...), so ids of different kinds
// never link by accident. The log records it; such samples link only with
// other typed samples of the same label.
inline constexpr detail::TypedHashing typed{};

// Deferred tracepoints copy at most this many canonical bytes (input and
// output together); larger state is hashed inline, with identical results.
inline constexpr std::size_t kDeferredCapacity = detail::QueuedSample::kPayloadCapacity;

// ---------------------------------------------------------------------------
// Starting and stopping. One session per process at a time.

class Session {
public:
    explicit Session(const Config& config = Config::from_env()) { detail::runtime().start(config); }
    ~Session() { detail::runtime().stop(); }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // The file this session writes.
    std::string log_path() const { return detail::runtime().log_path(); }
    Stats stats() const { return detail::runtime().stats(); }
};

// The same without RAII. stop() also runs at normal exit (atexit) and, unless
// Config::install_signal_handlers is false, on SIGINT/SIGTERM before the
// process ends, so the log is complete.
inline void start(const Config& config = Config::from_env()) { detail::runtime().start(config); }
inline void stop() { detail::runtime().stop(); }
inline bool running() noexcept { return detail::runtime().running(); }

// Recording on/off at run time (a session starts with Config::enabled).
inline void set_enabled(bool on) noexcept { detail::set_recording(on); }
inline bool enabled() noexcept { return detail::is_recording(); }

// Names the calling thread in the log (shown by `hashtrace log` and the trace viewers).
inline void set_thread_name(std::string_view name) { detail::runtime().name_thread(name); }

// Counters of the current (or last) session.
inline Stats stats() { return detail::runtime().stats(); }

}  // namespace hashtrace

// ---------------------------------------------------------------------------
// The macros. The call site (the paper's Table 1) is a function-local static
// const: built once, on its first execution (detail/call_site.hpp).

#if defined(HASHTRACE_DISABLE)

#define HASHTRACE_TRACEPOINT_(fn, deferred, name, ...) \
    do {                                               \
        if (false) ::hashtrace::detail::discard(__VA_ARGS__); \
    } while (0)

#else

// The arguments are evaluated once, as a function's would be: the site's
// first call reads their hash types from the same values it records (an
// argument such as `id++` must not count twice). The lambda inlines away.
#define HASHTRACE_TRACEPOINT_(fn, deferred, name, ...)                                                   \
    do {                                                                                                 \
        if (::hashtrace::detail::is_recording()) {                                                       \
            [&](const auto&... hashtrace_args_) {                                                        \
                static const ::hashtrace::detail::CallSite hashtrace_site_(                              \
                    name, ::hashtrace::detail::types_of(hashtrace_args_...), fn, deferred);              \
                ::hashtrace::detail::record<fn, deferred>(hashtrace_site_, hashtrace_args_...);        \
            }(__VA_ARGS__);                                                                              \
        }                                                                                                \
    } while (0)

#endif

#define TRACEPOINT(name, ...) HASHTRACE_TRACEPOINT_(::hashtrace::HashFunction::md5, false, name, __VA_ARGS__)
#define TRACEPOINT_DEFERRED(name, ...) \
    HASHTRACE_TRACEPOINT_(::hashtrace::HashFunction::md5, true, name, __VA_ARGS__)
#define TRACEPOINT_FAST(name, ...) \
    HASHTRACE_TRACEPOINT_(::hashtrace::HashFunction::xxh3_128, false, name, __VA_ARGS__)
#define TRACEPOINT_FAST_DEFERRED(name, ...) \
    HASHTRACE_TRACEPOINT_(::hashtrace::HashFunction::xxh3_128, true, name, __VA_ARGS__)
