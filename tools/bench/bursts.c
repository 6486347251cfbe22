/* Real-time bursts: on one CPU, at a SCHED_FIFO priority above jackd's (70), spin for a random
 * 2-25 ms every 50-400 ms, for SECONDS. Process callbacks on that CPU then run late or not at
 * all, on demand: the xrun storm a loaded studio machine has, without waiting for one.
 *
 *   bursts CPU SECONDS [PRIORITY]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: bursts CPU SECONDS [PRIORITY]\n"); return 64; }
    int cpu = atoi(argv[1]);
    double seconds = atof(argv[2]);
    int priority = argc > 3 ? atoi(argv[3]) : 90;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("bursts: sched_setaffinity");
    struct sched_param param = { .sched_priority = priority };
    if (sched_setscheduler(0, SCHED_FIFO, &param) != 0) { perror("bursts: SCHED_FIFO"); return 1; }
    srand((unsigned)(getpid() ^ (unsigned)(now() * 1e6)));
    double end = now() + seconds;
    while (now() < end) {
        usleep(50000 + rand() % 350000);
        double burst = (2 + rand() % 24) / 1000.0, start = now();
        while (now() - start < burst) {}
    }
    return 0;
}
