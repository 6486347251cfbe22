/* Runs a recorder and measures it without disturbing the machine it measures: CPU (user, system)
 * and peak RSS from wait4, peak private and shared resident memory from /proc/PID/status and the
 * most /proc/meminfo's Cached rose above its level before the take, sampled every 250 ms; and the
 * whole machine's CPU over the take, from its start until half a second after the recorder ends
 * and a sync(2) (so that writeback still to come is counted), measured two ways:
 *
 * - busy: /proc/stat's user, nice, system, irq and softirq ticks of every CPU. The kernel samples
 *   these on its tick (250 Hz here), and a JACK cycle is 16/3 ticks at 1024 frames and 48 kHz: the
 *   cycles keep one phase against the tick for as long as the server runs, so work in short bursts
 *   on each cycle (every client's callback) is counted too much or too little, by up to half a
 *   second in a 10 s take, the same way for every take on that server.
 * - run: the run time the scheduler itself keeps for every thread (/proc/PID/task/TID/schedstat,
 *   nanoseconds): of threads alive before and after, what they ran in between; of threads born
 *   since, all they ran; of the recorder (gone by then), its CPU from wait4; of this process, what
 *   sync(2) cost it. An interrupt counts with the thread it interrupted (not at all on an idle CPU).
 *
 *   sampler RESULT COMMAND [ARGUMENT...]
 *
 * RESULT gets one line: user_s sys_s maxrss_kb rss_anon_kb rss_shmem_kb page_cache_peak_kb
 * machine_busy_s machine_run_s. The exit status is the command's. One process, a few reads a
 * sample: the shell loop it replaces forked about 16 processes a second, 0.5 s of machine time a
 * 10 s take charged to every recorder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The value in kB of the line starting with `key` in a /proc file, or -1. */
static long field(const char *path, const char *key) {
    char text[8192];
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return -1;
    text[length] = 0;
    size_t keyLength = strlen(key);
    for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, key, keyLength) == 0) return strtol(line + keyLength, NULL, 10);
    return -1;
}

/* Busy ticks of every CPU: user, nice, system, irq, softirq (/proc/stat's first line). */
static long long busyTicks(void) {
    char text[512];
    int fd = open("/proc/stat", O_RDONLY);
    if (fd < 0) return 0;
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return 0;
    text[length] = 0;
    long long user, nice, system, idle, iowait, irq, softirq;
    if (sscanf(text, "cpu %lld %lld %lld %lld %lld %lld %lld", &user, &nice, &system, &idle, &iowait, &irq, &softirq) != 7)
        return 0;
    return user + nice + system + irq + softirq;
}

/* Every thread's run time in nanoseconds, but this process's. */
struct ThreadTime { long tid; long long runtime; };
static struct ThreadTime *threadTimes(size_t *count) {
    size_t capacity = 1024, n = 0;
    struct ThreadTime *times = malloc(capacity * sizeof *times);
    pid_t self = getpid();
    DIR *processes = opendir("/proc");
    struct dirent *process;
    while (processes && (process = readdir(processes))) {
        long pid = strtol(process->d_name, NULL, 10);
        if (pid <= 0 || pid == self) continue;
        char path[96];
        snprintf(path, sizeof path, "/proc/%ld/task", pid);
        DIR *threads = opendir(path);
        struct dirent *thread;
        while (threads && (thread = readdir(threads))) {
            long tid = strtol(thread->d_name, NULL, 10);
            if (tid <= 0) continue;
            snprintf(path, sizeof path, "/proc/%ld/task/%ld/schedstat", pid, tid);
            char text[128];
            int fd = open(path, O_RDONLY);
            if (fd < 0) continue;
            ssize_t length = read(fd, text, sizeof text - 1);
            close(fd);
            if (length <= 0) continue;
            text[length] = 0;
            if (n == capacity) times = realloc(times, (capacity *= 2) * sizeof *times);
            times[n++] = (struct ThreadTime){tid, strtoll(text, NULL, 10)};
        }
        if (threads) closedir(threads);
    }
    if (processes) closedir(processes);
    *count = n;
    return times;
}

/* What the threads of `after` ran since `before`: the difference where a thread is in both, all
 * of it where it is new (or its number was reused). */
static long long ranBetween(const struct ThreadTime *before, size_t beforeCount, const struct ThreadTime *after,
                            size_t afterCount) {
    long long total = 0;
    for (size_t i = 0; i < afterCount; i++) {
        long long earlier = 0;
        for (size_t j = 0; j < beforeCount; j++)
            if (before[j].tid == after[i].tid) { earlier = before[j].runtime; break; }
        total += after[i].runtime >= earlier ? after[i].runtime - earlier : after[i].runtime;
    }
    return total;
}

static double threadSeconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: sampler RESULT COMMAND [ARGUMENT...]\n");
        return 64;
    }
    long cachedBefore = field("/proc/meminfo", "Cached:");
    size_t beforeCount;
    struct ThreadTime *before = threadTimes(&beforeCount);
    long long busyBefore = busyTicks();
    pid_t child = fork();
    if (child < 0) { perror("sampler: fork"); return 71; }
    if (child == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "sampler: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    char statusPath[64];
    snprintf(statusPath, sizeof statusPath, "/proc/%d/status", (int)child);
    long anon = 0, shmem = 0, cachePeak = 0;
    int status = 0;
    struct rusage usage;
    for (;;) {
        pid_t done = wait4(child, &status, WNOHANG, &usage);
        if (done == child) break;
        if (done < 0 && errno != EINTR) { perror("sampler: wait4"); return 71; }
        long value = field(statusPath, "RssAnon:");
        if (value > anon) anon = value;
        value = field(statusPath, "RssShmem:");
        if (value > shmem) shmem = value;
        value = field("/proc/meminfo", "Cached:") - cachedBefore;
        if (value > cachePeak) cachePeak = value;
        nanosleep(&(struct timespec){.tv_nsec = 250000000}, NULL);
    }
    nanosleep(&(struct timespec){.tv_nsec = 500000000}, NULL);
    double syncStart = threadSeconds();
    sync();
    double syncCost = threadSeconds() - syncStart;
    long long busyAfter = busyTicks();
    size_t afterCount;
    struct ThreadTime *after = threadTimes(&afterCount);
    double user = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
    double system = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    double run = ranBetween(before, beforeCount, after, afterCount) / 1e9 + user + system + syncCost;
    FILE *result = fopen(argv[1], "w");
    if (!result) { perror("sampler: result file"); return 73; }
    fprintf(result, "%.2f %.2f %ld %ld %ld %ld %.2f %.2f\n", user, system, usage.ru_maxrss, anon, shmem, cachePeak,
            (busyAfter - busyBefore) / (double)sysconf(_SC_CLK_TCK), run);
    fclose(result);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
