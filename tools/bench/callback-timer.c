/* LD_PRELOAD=callback-timer.so CALLBACK_TIMES=out.txt some-jack-recorder ...
 *
 * Times a JACK client's process callback without touching the client: jack_set_process_callback
 * is interposed to install a wrapper that reads CLOCK_MONOTONIC (vDSO, no system call) around the
 * real callback and stores the duration into an array allocated and touched beforehand. At exit
 * it writes "cycles mean_us max_us p99_us" to $CALLBACK_TIMES. The same wrapper times every
 * recorder, so their numbers compare. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jack/jack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAPACITY (1 << 20)
static JackProcessCallback original;
static void *original_argument;
static unsigned *durations;   /* nanoseconds */
static volatile size_t count;

static int timed(jack_nframes_t frames, void *argument) {
    (void)argument;
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    int result = original(frames, original_argument);
    clock_gettime(CLOCK_MONOTONIC, &after);
    if (count < CAPACITY)
        durations[count++] = (unsigned)((after.tv_sec - before.tv_sec) * 1000000000L + (after.tv_nsec - before.tv_nsec));
    return result;
}

int jack_set_process_callback(jack_client_t *client, JackProcessCallback callback, void *argument) {
    static int (*real)(jack_client_t *, JackProcessCallback, void *);
    if (!real) real = (int (*)(jack_client_t *, JackProcessCallback, void *))dlsym(RTLD_NEXT, "jack_set_process_callback");
    if (original) return real(client, callback, argument);   /* time the first client only */
    durations = malloc(CAPACITY * sizeof *durations);
    memset(durations, 0, CAPACITY * sizeof *durations);
    original = callback;
    original_argument = argument;
    return real(client, timed, NULL);
}

static int ascending(const void *a, const void *b) {
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("CALLBACK_TIMES");
    if (!path || !durations) return;
    size_t n = count;
    double total = 0;
    unsigned maximum = 0;
    for (size_t i = 0; i < n; i++) { total += durations[i]; if (durations[i] > maximum) maximum = durations[i]; }
    qsort(durations, n, sizeof *durations, ascending);
    FILE *out = fopen(path, "w");
    if (!out) return;
    fprintf(out, "%zu %.2f %.2f %.2f\n", n, n ? total / n / 1000 : 0, maximum / 1000.0,
            n ? durations[(size_t)(n * 0.99)] / 1000.0 : 0);
    fclose(out);
}
