/* The probe of lttng_tp.h's event, compiled once (LTTng-UST's provider pattern). */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_tp.h"
