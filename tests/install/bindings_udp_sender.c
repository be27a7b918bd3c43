/* The C half of the cross-language install test: sends COUNT message ids over
 * UDP to 127.0.0.1:PORT, tracing each send ("Sent", output hash: the id as a
 * uint64_t), as a C user's program does with the installed libhashtrace.
 *   bindings_udp_sender PORT COUNT
 */
#define _POSIX_C_SOURCE 200809L /* sockets and nanosleep under -std=c99 */

#include <hashtrace.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PORT COUNT\n", argv[0]);
        return 2;
    }
    const int port = atoi(argv[1]);
    const long count = strtol(argv[2], NULL, 10);

    hashtrace_config config;
    hashtrace_config_init(&config);
    config.node_name = "CSender";
    if (hashtrace_start(&config) != HASHTRACE_OK) {
        fprintf(stderr, "%s\n", hashtrace_last_error());
        return 1;
    }
    hashtrace_tracepoint* sent = hashtrace_tracepoint_define("Sent", "", "messageid", HASHTRACE_MD5, 0);
    if (!sent) {
        fprintf(stderr, "%s\n", hashtrace_last_error());
        return 1;
    }

    const int sock = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons((uint16_t)port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (long i = 0; i < count; ++i) {
        /* Ids above 2^32, so a receiver hashing them at the wrong width cannot link. */
        const uint64_t id = 5000000000ull + (uint64_t)i;
        unsigned char wire[8];
        for (int b = 0; b < 8; ++b) wire[b] = (unsigned char)(id >> (8 * b)); /* little-endian on the wire */
        const hashtrace_value v = hashtrace_u64(id);
        if (hashtrace_record(sent, NULL, 0, &v, 1) != HASHTRACE_OK) fprintf(stderr, "%s\n", hashtrace_last_error());
        if (sendto(sock, wire, sizeof wire, 0, (const struct sockaddr*)&to, sizeof to) != (ssize_t)sizeof wire) {
            perror("sendto");
            return 1;
        }
        if (i % 50 == 49) { /* paced: loopback UDP drops what a busy receiver cannot take */
            const struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
    }
    close(sock);
    hashtrace_stop();
    hashtrace_stats stats;
    hashtrace_get_stats(&stats);
    printf("sent %ld, written %llu\n", count, (unsigned long long)stats.written);
    return 0;
}
