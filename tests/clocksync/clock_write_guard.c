/* LD_PRELOAD shim for the PTP integration test: ptp4l's clock adjustments
 * (clock_adjtime with any mode set) become reads, so a follower may run its
 * servo, lock and reach SLAVE while the host clock, which both network
 * namespaces share, is never touched. ptp4l 3.1 calls glibc's clock_adjtime
 * and nothing else to adjust CLOCK_REALTIME (checked with nm -D). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/timex.h>
#include <time.h>

typedef int (*clock_adjtime_fn)(clockid_t, struct timex*);

int clock_adjtime(clockid_t id, struct timex* tx) {
    static clock_adjtime_fn real;
    if (!real) real = (clock_adjtime_fn)dlsym(RTLD_NEXT, "clock_adjtime");
    if (!real) abort(); /* never fall back to adjusting for real */
    if (tx->modes == 0) return real(id, tx);
    const unsigned int modes = tx->modes;
    tx->modes = 0;
    const int rc = real(id, tx);
    tx->modes = modes;
    return rc;
}
