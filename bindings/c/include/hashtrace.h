/* hashtrace.h - the C API of hashtrace (C99, stable ABI).
 *
 * The same tracepoints, canonical hashing (docs/spec.md section 2) and log files as
 * the C++ SDK, for C programs and for other languages' bindings. The library,
 * libhashtrace, is the C++ runtime built once: link -lhashtrace (pkg-config
 * hashtrace) or the CMake target hashtrace::c.
 *
 *   #include <hashtrace.h>
 *
 *   hashtrace_config config;
 *   hashtrace_config_init(&config);
 *   config.node_name = "Physics";
 *   if (hashtrace_start(&config) != HASHTRACE_OK) fprintf(stderr, "%s\n", hashtrace_last_error());
 *
 *   static hashtrace_tracepoint* received;   // define once, keep the handle
 *   received = hashtrace_tracepoint_define("MessageReceived", "messageid", "messageid", HASHTRACE_MD5, 0);
 *   hashtrace_value id = hashtrace_u64(msg.id);
 *   hashtrace_record_inout(received, &id, 1);
 *   ...
 *   hashtrace_stop();
 *
 * ABI rules: handles are opaque; structs passed in carry their own size
 * (struct_size, set by the *_init functions) so later versions can grow them;
 * enumerations are plain ints; nothing here is a C++ type. Functions return
 * HASHTRACE_OK (0) or a negative hashtrace_status; hashtrace_last_error()
 * then describes the failure on the calling thread. No function throws, and
 * none ends the process on bad input.
 */
#ifndef HASHTRACE_H
#define HASHTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(HASHTRACE_BUILDING_LIBRARY)
#define HASHTRACE_API __attribute__((visibility("default")))
#else
#define HASHTRACE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this API; hashtrace_abi_version() returns the library's. */
#define HASHTRACE_ABI_VERSION 1

typedef enum hashtrace_status {
    HASHTRACE_OK = 0,
    HASHTRACE_E_INVALID_ARGUMENT = -1, /* NULL handle, unknown type tag, bad config field */
    HASHTRACE_E_INVALID_UTF8 = -2,     /* a HASHTRACE_TYPE_STRING value is not valid UTF-8 */
    HASHTRACE_E_ALREADY_RUNNING = -3,  /* hashtrace_start while a session runs */
    HASHTRACE_E_NOT_RUNNING = -4,      /* recording with no session: nothing was recorded */
    HASHTRACE_E_IO = -5,               /* the log could not be created */
    HASHTRACE_E_BUFFER_TOO_SMALL = -6, /* hashtrace_encode: *written says how much is needed */
    HASHTRACE_E_INTERNAL = -7          /* out of memory or another unexpected failure */
} hashtrace_status;

typedef enum hashtrace_hash_function {
    HASHTRACE_MD5 = 0,      /* RFC 1321, the default and the paper's choice */
    HASHTRACE_XXH3_128 = 1  /* XXH3-128: faster, not cryptographic; links only with XXH3 samples */
} hashtrace_hash_function;

typedef enum hashtrace_log_format { HASHTRACE_FORMAT_BINARY = 0, HASHTRACE_FORMAT_CSV = 1 } hashtrace_log_format;
typedef enum hashtrace_when_full { HASHTRACE_FULL_DROP = 0, HASHTRACE_FULL_BLOCK = 1 } hashtrace_when_full;

/* The C++ Config (docs/sdk.md). Strings are copied by hashtrace_start. */
typedef struct hashtrace_config {
    uint32_t struct_size;          /* sizeof(hashtrace_config): set by hashtrace_config_init */
    const char* node_name;         /* "node" */
    const char* log_dir;           /* "." */
    int32_t format;                /* hashtrace_log_format: binary */
    uint64_t queue_capacity;       /* 16384 samples a thread */
    int32_t when_full;             /* hashtrace_when_full: drop */
    uint32_t flush_interval_ms;    /* 100 */
    int32_t install_signal_handlers; /* 1: complete the log on SIGINT/SIGTERM */
    int32_t enabled;               /* 1: start with recording on */
    int32_t read_environment;      /* 1: HASHTRACE_* variables override these fields */
} hashtrace_config;

typedef struct hashtrace_stats {
    uint64_t written; /* samples the writer has written */
    uint64_t dropped; /* samples a full queue dropped (logged as drop records) */
    uint64_t bytes;   /* bytes written to the log */
} hashtrace_stats;

/* A tracepoint definition (the paper's Table 1). Lives until the process ends. */
typedef struct hashtrace_tracepoint hashtrace_tracepoint;

/* A typed value to hash, encoded exactly as the C++ SDK encodes the same C++ type. */
typedef enum hashtrace_type {
    HASHTRACE_TYPE_U8 = 1, HASHTRACE_TYPE_U16, HASHTRACE_TYPE_U32, HASHTRACE_TYPE_U64,
    HASHTRACE_TYPE_I8, HASHTRACE_TYPE_I16, HASHTRACE_TYPE_I32, HASHTRACE_TYPE_I64,
    HASHTRACE_TYPE_F32, HASHTRACE_TYPE_F64,
    HASHTRACE_TYPE_BOOL,   /* one byte, 0 or 1 */
    HASHTRACE_TYPE_STRING, /* UTF-8 text (checked): uint32 length, then the bytes */
    HASHTRACE_TYPE_BYTES   /* any bytes: uint32 length, then the bytes */
} hashtrace_type;

typedef struct hashtrace_value {
    int32_t type; /* hashtrace_type */
    union {
        uint64_t u; /* U8..U64, BOOL */
        int64_t i;  /* I8..I64 */
        float f32;
        double f64;
        struct {
            const void* data;
            size_t size;
        } bytes; /* STRING, BYTES */
    } as;
} hashtrace_value;

/* ---- session ---------------------------------------------------------------- */

HASHTRACE_API int hashtrace_abi_version(void);
HASHTRACE_API void hashtrace_config_init(hashtrace_config* config);
/* NULL: the defaults and the environment. HASHTRACE_E_ALREADY_RUNNING if a session runs. */
HASHTRACE_API int hashtrace_start(const hashtrace_config* config);
/* Drains, completes and closes the log. A no-op without a session. Also runs at exit. */
HASHTRACE_API int hashtrace_stop(void);
HASHTRACE_API int hashtrace_running(void);
/* Copies the log's path (of the current or last session) with its NUL, truncated to
 * size; returns the path's length. */
HASHTRACE_API size_t hashtrace_log_path(char* buffer, size_t size);
HASHTRACE_API void hashtrace_get_stats(hashtrace_stats* out);
/* Recording on/off at run time (ignored without a session). */
HASHTRACE_API void hashtrace_set_enabled(int on);
HASHTRACE_API int hashtrace_enabled(void);
/* Names the calling thread in the log; also prepares its queue ahead of its first sample. */
HASHTRACE_API int hashtrace_set_thread_name(const char* name);
/* What the last failing call on this thread said (never NULL). */
HASHTRACE_API const char* hashtrace_last_error(void);

/* ---- tracepoints ---------------------------------------------------------------- */

/* Defines a tracepoint: name and labels are copied. Defining the same (name, labels,
 * function, deferred) again returns the same handle. deferred != 0: canonical bytes up
 * to 96 (input and output together) are copied and hashed by the writer thread.
 * NULL on bad arguments (see hashtrace_last_error). */
HASHTRACE_API hashtrace_tracepoint* hashtrace_tracepoint_define(const char* name, const char* input_type,
                                                                const char* output_type, int hash_function,
                                                                int deferred);

/* Records a sample from bytes that are already canonical. A NULL side has no hash
 * (an empty CSV field); a non-NULL side of length 0 is the hash of no bytes. */
HASHTRACE_API int hashtrace_record_bytes(const hashtrace_tracepoint* tp, const void* input, size_t input_size,
                                         const void* output, size_t output_size);
/* Records a sample from typed values. NULL values: no hash on that side. */
HASHTRACE_API int hashtrace_record(const hashtrace_tracepoint* tp, const hashtrace_value* input, size_t input_count,
                                   const hashtrace_value* output, size_t output_count);
/* The same state in and out (the C++ inout()): hashed once. */
HASHTRACE_API int hashtrace_record_inout(const hashtrace_tracepoint* tp, const hashtrace_value* values, size_t count);
HASHTRACE_API int hashtrace_record_bytes_inout(const hashtrace_tracepoint* tp, const void* state, size_t size);

/* ---- canonical bytes and hashes, as every language computes them ------------- */

/* Writes the canonical bytes of values into buffer; *written gets their length (also
 * when the buffer is too small: then HASHTRACE_E_BUFFER_TOO_SMALL). */
HASHTRACE_API int hashtrace_encode(const hashtrace_value* values, size_t count, void* buffer, size_t size,
                                   size_t* written);
HASHTRACE_API int hashtrace_hash_values(int hash_function, const hashtrace_value* values, size_t count,
                                        uint8_t digest[16]);
HASHTRACE_API int hashtrace_hash_bytes(int hash_function, const void* canonical, size_t size, uint8_t digest[16]);

/* ---- value constructors ------------------------------------------------------- */

static inline hashtrace_value hashtrace_unsigned_(int32_t type, uint64_t v) {
    hashtrace_value x;
    x.type = type;
    x.as.u = v;
    return x;
}
static inline hashtrace_value hashtrace_signed_(int32_t type, int64_t v) {
    hashtrace_value x;
    x.type = type;
    x.as.i = v;
    return x;
}
static inline hashtrace_value hashtrace_u8(uint8_t v) { return hashtrace_unsigned_(HASHTRACE_TYPE_U8, v); }
static inline hashtrace_value hashtrace_u16(uint16_t v) { return hashtrace_unsigned_(HASHTRACE_TYPE_U16, v); }
static inline hashtrace_value hashtrace_u32(uint32_t v) { return hashtrace_unsigned_(HASHTRACE_TYPE_U32, v); }
static inline hashtrace_value hashtrace_u64(uint64_t v) { return hashtrace_unsigned_(HASHTRACE_TYPE_U64, v); }
static inline hashtrace_value hashtrace_bool(int v) { return hashtrace_unsigned_(HASHTRACE_TYPE_BOOL, v != 0); }
static inline hashtrace_value hashtrace_i8(int8_t v) { return hashtrace_signed_(HASHTRACE_TYPE_I8, v); }
static inline hashtrace_value hashtrace_i16(int16_t v) { return hashtrace_signed_(HASHTRACE_TYPE_I16, v); }
static inline hashtrace_value hashtrace_i32(int32_t v) { return hashtrace_signed_(HASHTRACE_TYPE_I32, v); }
static inline hashtrace_value hashtrace_i64(int64_t v) { return hashtrace_signed_(HASHTRACE_TYPE_I64, v); }
static inline hashtrace_value hashtrace_f32(float v) {
    hashtrace_value x;
    x.type = HASHTRACE_TYPE_F32;
    x.as.f32 = v;
    return x;
}
static inline hashtrace_value hashtrace_f64(double v) {
    hashtrace_value x;
    x.type = HASHTRACE_TYPE_F64;
    x.as.f64 = v;
    return x;
}
static inline hashtrace_value hashtrace_span_(int32_t type, const void* data, size_t size) {
    hashtrace_value x;
    x.type = type;
    x.as.bytes.data = data;
    x.as.bytes.size = size;
    return x;
}
/* A NUL-terminated UTF-8 string (the NUL is not hashed), or text of a given length. */
static inline hashtrace_value hashtrace_str(const char* s) {
    return hashtrace_span_(HASHTRACE_TYPE_STRING, s, s ? strlen(s) : 0);
}
static inline hashtrace_value hashtrace_strn(const char* s, size_t n) { return hashtrace_span_(HASHTRACE_TYPE_STRING, s, n); }
static inline hashtrace_value hashtrace_bytes(const void* p, size_t n) { return hashtrace_span_(HASHTRACE_TYPE_BYTES, p, n); }

#ifdef __cplusplus
}
#endif

#endif /* HASHTRACE_H */
