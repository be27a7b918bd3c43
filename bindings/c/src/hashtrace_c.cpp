// libhashtrace: the C API (hashtrace.h) over the C++ SDK's runtime. Every
// entry point catches what the C++ side may throw and turns it into a status
// and a message, so no C caller (or Python or other FFI user) ever sees an
// exception or a crash from bad input.
#include "hashtrace.h"

#include "typed_values.hpp"

#include <hashtrace/hashtrace.hpp>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>

using hashtrace::HashFunction;
using hashtrace::capi::CanonicalBytesSpec;
using hashtrace::capi::ValuesSpec;

// Definitions live as long as the process: the writer walks them (drop
// counts) until the last session's log is closed, at exit at the latest.
struct hashtrace_tracepoint {
    hashtrace_tracepoint(const char* name, const char* in, const char* out, HashFunction fn, bool deferred)
        : def(name, {in, out}, fn, deferred) {}
    const hashtrace::detail::CallSite def;
};

namespace {

thread_local char t_last_error[512] = "no error";

int fail(int status, const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(t_last_error, sizeof t_last_error, format, args);
    va_end(args);
    return status;
}

// Whether a session started through this API is open: tells "recording is
// switched off" (fine) from "there is no session" (an error) on the slow path.
std::atomic<bool> g_session_open{false};
std::mutex g_session_mutex;

bool parse_function(int f, HashFunction& out) {
    if (f == HASHTRACE_MD5) out = HashFunction::md5;
    else if (f == HASHTRACE_XXH3_128) out = HashFunction::xxh3_128;
    else return false;
    return true;
}

// The recording gate every record call passes first, as the C++ macros do.
int not_recording() {
    if (g_session_open.load(std::memory_order_relaxed)) return HASHTRACE_OK;  // switched off: nothing to do
    return fail(HASHTRACE_E_NOT_RUNNING, "hashtrace: no session is running (hashtrace_start first); sample not recorded");
}

template <class In, class Out>
int record_now(const hashtrace_tracepoint* tp, const In& in, const Out& out, bool out_is_in) {
    hashtrace::detail::record_sample<false>(tp->def, in, out, out_is_in);
    return HASHTRACE_OK;
}

template <class Spec>
int record_sides(const hashtrace_tracepoint* tp, const Spec* in, const Spec* out) {
    using hashtrace::detail::NoneSpec;
    if (in && out) return record_now(tp, *in, *out, false);
    if (in) return record_now(tp, *in, NoneSpec{}, false);
    if (out) return record_now(tp, NoneSpec{}, *out, false);
    return record_now(tp, NoneSpec{}, NoneSpec{}, false);
}

int check_values(const hashtrace_value* values, std::size_t count, const char* side) {
    if (!values && count) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: %s values are NULL with count %zu", side, count);
    std::size_t bad = 0;
    const int status = hashtrace::capi::validate(values, count, bad);
    if (status == HASHTRACE_E_INVALID_UTF8)
        return fail(status, "hashtrace: %s value %zu is a string that is not valid UTF-8 (use HASHTRACE_TYPE_BYTES for bytes)", side, bad);
    if (status != HASHTRACE_OK)
        return fail(status, "hashtrace: %s value %zu has an unknown type tag %d or a NULL pointer with a size", side, bad,
                    values[bad].type);
    return HASHTRACE_OK;
}

int check_bytes(const void* p, std::size_t n, const char* side) {
    if (!p && n) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: %s bytes are NULL with size %zu", side, n);
    return HASHTRACE_OK;
}

int check_tracepoint(const hashtrace_tracepoint* tp) {
    if (!tp) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: the tracepoint handle is NULL");
    return HASHTRACE_OK;
}

}  // namespace

extern "C" {

int hashtrace_abi_version(void) { return HASHTRACE_ABI_VERSION; }

void hashtrace_config_init(hashtrace_config* c) {
    if (!c) return;
    const hashtrace::Config d;
    std::memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    c->node_name = "node";
    c->log_dir = ".";
    c->format = HASHTRACE_FORMAT_BINARY;
    c->queue_capacity = d.queue_capacity;
    c->when_full = HASHTRACE_FULL_DROP;
    c->flush_interval_ms = static_cast<std::uint32_t>(d.flush_interval.count());
    c->install_signal_handlers = 1;
    c->enabled = 1;
    c->read_environment = 1;
}

int hashtrace_start(const hashtrace_config* in) {
    hashtrace_config c;
    hashtrace_config_init(&c);
    if (in) {
        if (in->struct_size < sizeof c)
            return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: config.struct_size %u is not sizeof(hashtrace_config) %zu "
                        "(call hashtrace_config_init)", in->struct_size, sizeof c);
        c = *in;
    }
    if (!c.node_name || !*c.node_name) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: config.node_name is empty");
    if (!c.log_dir || !*c.log_dir) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: config.log_dir is empty");
    if (c.format != HASHTRACE_FORMAT_BINARY && c.format != HASHTRACE_FORMAT_CSV)
        return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: config.format %d is neither binary (0) nor csv (1)", c.format);
    if (c.when_full != HASHTRACE_FULL_DROP && c.when_full != HASHTRACE_FULL_BLOCK)
        return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: config.when_full %d is neither drop (0) nor block (1)", c.when_full);
    std::lock_guard<std::mutex> lock(g_session_mutex);
    if (hashtrace::running())
        return fail(HASHTRACE_E_ALREADY_RUNNING, "hashtrace: a session is already running (%s)",
                    hashtrace::detail::runtime().log_path().c_str());
    try {
        hashtrace::Config config;
        config.node_name = c.node_name;
        config.log_dir = c.log_dir;
        config.format = c.format == HASHTRACE_FORMAT_CSV ? hashtrace::LogFormat::csv : hashtrace::LogFormat::binary;
        config.queue_capacity = static_cast<std::size_t>(c.queue_capacity);
        config.when_full = c.when_full == HASHTRACE_FULL_BLOCK ? hashtrace::FullPolicy::block : hashtrace::FullPolicy::drop;
        config.flush_interval = std::chrono::milliseconds(c.flush_interval_ms);
        config.install_signal_handlers = c.install_signal_handlers != 0;
        config.enabled = c.enabled != 0;
        if (c.read_environment) config = hashtrace::Config::from_env(config);
        hashtrace::start(config);
    } catch (const std::invalid_argument& e) {
        return fail(HASHTRACE_E_INVALID_ARGUMENT, "%s", e.what());
    } catch (const std::filesystem::filesystem_error& e) {
        return fail(HASHTRACE_E_IO, "hashtrace: %s", e.what());
    } catch (const std::runtime_error& e) {
        return fail(HASHTRACE_E_IO, "%s", e.what());
    } catch (const std::exception& e) {
        return fail(HASHTRACE_E_INTERNAL, "hashtrace: %s", e.what());
    }
    g_session_open.store(true, std::memory_order_relaxed);
    return HASHTRACE_OK;
}

int hashtrace_stop(void) {
    std::lock_guard<std::mutex> lock(g_session_mutex);
    g_session_open.store(false, std::memory_order_relaxed);
    hashtrace::stop();
    return HASHTRACE_OK;
}

int hashtrace_running(void) { return g_session_open.load(std::memory_order_relaxed) ? 1 : 0; }

size_t hashtrace_log_path(char* buffer, size_t size) {
    try {
        const std::string path = hashtrace::detail::runtime().log_path();
        if (buffer && size) {
            const std::size_t n = path.size() < size - 1 ? path.size() : size - 1;
            std::memcpy(buffer, path.data(), n);
            buffer[n] = '\0';
        }
        return path.size();
    } catch (const std::exception&) {
        if (buffer && size) buffer[0] = '\0';
        return 0;
    }
}

void hashtrace_get_stats(hashtrace_stats* out) {
    if (!out) return;
    const hashtrace::Stats s = hashtrace::stats();
    out->written = s.written;
    out->dropped = s.dropped;
    out->bytes = s.bytes;
}

void hashtrace_set_enabled(int on) { hashtrace::set_enabled(on != 0); }
int hashtrace_enabled(void) { return hashtrace::enabled() ? 1 : 0; }

int hashtrace_set_thread_name(const char* name) {
    if (!name) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: thread name is NULL");
    if (!hashtrace::capi::valid_utf8(name, std::strlen(name)))
        return fail(HASHTRACE_E_INVALID_UTF8, "hashtrace: thread name is not valid UTF-8");
    try {
        hashtrace::set_thread_name(name);
    } catch (const std::exception& e) {
        return fail(HASHTRACE_E_INTERNAL, "hashtrace: %s", e.what());
    }
    return HASHTRACE_OK;
}

const char* hashtrace_last_error(void) { return t_last_error; }

hashtrace_tracepoint* hashtrace_tracepoint_define(const char* name, const char* input_type, const char* output_type,
                                                  int hash_function, int deferred) {
    HashFunction fn;
    if (!name || !*name) {
        fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: tracepoint name is NULL or empty");
        return nullptr;
    }
    if (!parse_function(hash_function, fn)) {
        fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: tracepoint '%s': unknown hash function %d", name, hash_function);
        return nullptr;
    }
    if (!input_type) input_type = "";
    if (!output_type) output_type = "";
    for (const char* text : {name, input_type, output_type}) {
        // Table 1's strings are CSV fields: no commas, no line breaks (docs/spec.md section 1).
        if (std::strpbrk(text, ",\r\n") || !hashtrace::capi::valid_utf8(text, std::strlen(text))) {
            fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: tracepoint '%s': '%s' must be UTF-8 without commas or line breaks",
                 name, text);
            return nullptr;
        }
    }
    try {
        using Key = std::tuple<std::string, std::string, std::string, int, bool>;
        static std::mutex mutex;
        static auto* defined = new std::map<Key, hashtrace_tracepoint*>;  // never destroyed, like the definitions
        std::lock_guard<std::mutex> lock(mutex);
        hashtrace_tracepoint*& tp = (*defined)[Key{name, input_type, output_type, hash_function, deferred != 0}];
        if (!tp) tp = new hashtrace_tracepoint(name, input_type, output_type, fn, deferred != 0);
        return tp;
    } catch (const std::exception& e) {
        fail(HASHTRACE_E_INTERNAL, "hashtrace: %s", e.what());
        return nullptr;
    }
}

int hashtrace_record_bytes(const hashtrace_tracepoint* tp, const void* input, size_t input_size, const void* output,
                           size_t output_size) {
    if (int s = check_tracepoint(tp)) return s;
    if (!hashtrace::detail::is_recording()) return not_recording();
    if (int s = check_bytes(input, input_size, "input")) return s;
    if (int s = check_bytes(output, output_size, "output")) return s;
    const CanonicalBytesSpec in{input, input_size}, out{output, output_size};
    return record_sides(tp, input ? &in : nullptr, output ? &out : nullptr);
}

int hashtrace_record(const hashtrace_tracepoint* tp, const hashtrace_value* input, size_t input_count,
                     const hashtrace_value* output, size_t output_count) {
    if (int s = check_tracepoint(tp)) return s;
    if (!hashtrace::detail::is_recording()) return not_recording();
    if (int s = check_values(input, input_count, "input")) return s;
    if (int s = check_values(output, output_count, "output")) return s;
    const ValuesSpec in{input, input_count}, out{output, output_count};
    return record_sides(tp, input ? &in : nullptr, output ? &out : nullptr);
}

int hashtrace_record_inout(const hashtrace_tracepoint* tp, const hashtrace_value* values, size_t count) {
    if (int s = check_tracepoint(tp)) return s;
    if (!hashtrace::detail::is_recording()) return not_recording();
    if (int s = check_values(values, count, "state")) return s;
    return record_now(tp, ValuesSpec{values, count}, hashtrace::detail::NoneSpec{}, true);
}

int hashtrace_record_bytes_inout(const hashtrace_tracepoint* tp, const void* state, size_t size) {
    if (int s = check_tracepoint(tp)) return s;
    if (!hashtrace::detail::is_recording()) return not_recording();
    if (int s = check_bytes(state, size, "state")) return s;
    return record_now(tp, CanonicalBytesSpec{state, size}, hashtrace::detail::NoneSpec{}, true);
}

int hashtrace_encode(const hashtrace_value* values, size_t count, void* buffer, size_t size, size_t* written) {
    if (int s = check_values(values, count, "")) return s;
    const ValuesSpec spec{values, count};
    const std::size_t n = spec.size();
    if (written) *written = n;
    if (n > size || (!buffer && n))
        return fail(HASHTRACE_E_BUFFER_TOO_SMALL, "hashtrace: the canonical bytes need %zu bytes, the buffer has %zu", n, size);
    spec.copy_to(static_cast<unsigned char*>(buffer));
    return HASHTRACE_OK;
}

int hashtrace_hash_values(int hash_function, const hashtrace_value* values, size_t count, uint8_t digest[16]) {
    HashFunction fn;
    if (!parse_function(hash_function, fn)) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: unknown hash function %d", hash_function);
    if (!digest) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: digest is NULL");
    if (int s = check_values(values, count, "")) return s;
    const hashtrace::Hash128 h = ValuesSpec{values, count}.hash<false>(fn);
    std::memcpy(digest, h.bytes.data(), 16);
    return HASHTRACE_OK;
}

int hashtrace_hash_bytes(int hash_function, const void* canonical, size_t size, uint8_t digest[16]) {
    HashFunction fn;
    if (!parse_function(hash_function, fn)) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: unknown hash function %d", hash_function);
    if (!digest) return fail(HASHTRACE_E_INVALID_ARGUMENT, "hashtrace: digest is NULL");
    if (int s = check_bytes(canonical, size, "")) return s;
    const hashtrace::Hash128 h = hashtrace::hash_canonical_bytes(fn, canonical, size);
    std::memcpy(digest, h.bytes.data(), 16);
    return HASHTRACE_OK;
}

}  // extern "C"
