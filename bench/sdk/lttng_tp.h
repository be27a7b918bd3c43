/* lttng_tp.h - the LTTng-UST event the tracepoint benchmark compares with:
 * one event carrying the two 16-byte hashes a hashtrace sample records, given
 * (hashed by the caller), as an LTTng user would trace the same causality. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER hashtrace_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(HASHTRACE_BENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define HASHTRACE_BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(hashtrace_bench, sample,
    LTTNG_UST_TP_ARGS(const uint8_t*, input_hash, const uint8_t*, output_hash),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_array(uint8_t, input_hash, input_hash, 16)
        lttng_ust_field_array(uint8_t, output_hash, output_hash, 16)))

#endif

#include <lttng/tracepoint-event.h>
