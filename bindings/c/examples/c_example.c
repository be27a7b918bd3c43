/* A plain C99 program that traces with libhashtrace: a producer hands messages
 * to a consumer, which computes a result. `hashtrace analyze <log dir>` links
 * each Produced sample to its Consumed sample by the message id's hash.
 *
 *   HASHTRACE_LOG_DIR=/tmp/logs build/bindings/c/hashtrace-c-example 1000
 *   build/app/hashtrace analyze /tmp/logs
 *
 * Installed (cmake --install build --component sdk), it is in
 * <prefix>/share/doc/hashtrace/examples; build it against that prefix with
 *   cc -std=c99 c_example.c $(pkg-config --cflags --libs hashtrace) -o c_example
 * (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig outside the system's prefixes).
 */
#include <hashtrace.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    const long count = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;

    hashtrace_config config;
    hashtrace_config_init(&config);
    config.node_name = "CExample";
    if (hashtrace_start(&config) != HASHTRACE_OK) {
        fprintf(stderr, "%s\n", hashtrace_last_error());
        return 1;
    }
    hashtrace_set_thread_name("main");

    /* Defined once; the handles stay valid until the process ends. */
    hashtrace_tracepoint* produced = hashtrace_tracepoint_define("Produced", "", "messageid", HASHTRACE_MD5, 0);
    hashtrace_tracepoint* consumed = hashtrace_tracepoint_define("Consumed", "messageid", "result", HASHTRACE_MD5, 0);
    if (!produced || !consumed) {
        fprintf(stderr, "%s\n", hashtrace_last_error());
        return 1;
    }

    double total = 0;
    for (long i = 0; i < count; ++i) {
        const hashtrace_value id = hashtrace_u64((uint64_t)i);
        hashtrace_record(produced, NULL, 0, &id, 1);

        const double result = (double)i * 0.5;
        const hashtrace_value out[2] = {hashtrace_u64((uint64_t)i), hashtrace_f64(result)};
        if (hashtrace_record(consumed, &id, 1, out, 2) != HASHTRACE_OK) fprintf(stderr, "%s\n", hashtrace_last_error());
        total += result;
    }

    hashtrace_stop();
    hashtrace_stats stats;
    hashtrace_get_stats(&stats);
    char path[4096];
    hashtrace_log_path(path, sizeof path);
    printf("%llu samples (%llu dropped) in %s; total %.1f\n", (unsigned long long)stats.written,
           (unsigned long long)stats.dropped, path, total);
    return 0;
}
