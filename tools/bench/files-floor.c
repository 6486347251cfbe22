// The kernel's floor for a session's files: what creating FILES mono files and writing SECONDS of
// 48 kHz float audio into each costs, written as jcap's direct path writes them (O_DIRECT, through
// io_uring, the files in turns, WRITE bytes a turn, and a 4 KiB header block rewritten every
// HEADER seconds), with no JACK, no ring and no copy. What a recorder of FILES files cannot go
// below on this machine, whatever it does in user space. With AHEAD 1 (the default), space is
// allocated ahead of the writes as jcap does (fallocate, 1 MiB doubling to 64 MiB, moving the
// file's end), so the writes are not appends; with 0 each write appends.
//
//   gcc -O2 -o files-floor tools/bench/files-floor.c -luring
//   files-floor DIR FILES SECONDS WRITE HEADER [AHEAD]
//
// Prints the CPU seconds of creating the files, the process's in all (user + system, io_uring's
// workers included), the whole
// machine's busy seconds over the run with a sync after it (/proc/stat, as tools/bench/run
// measures a take), and the write requests the disk completed (/sys/block/*/stat of DIR's disk).
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static double process_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static double machine_seconds(void) {
    unsigned long long user, nice, system, idle, iowait, irq, softirq;
    FILE *stat = fopen("/proc/stat", "r");
    if (!stat || fscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle, &iowait, &irq, &softirq) != 7) exit(2);
    fclose(stat);
    return (double)(user + nice + system + irq + softirq) / sysconf(_SC_CLK_TCK);
}

// Write requests completed by the disk holding `path` (its whole disk's stat, or the partition's).
static long long disk_writes(const char *path) {
    struct stat status;
    if (stat(path, &status) != 0) return -1;
    char name[256];
    snprintf(name, sizeof name, "/sys/dev/block/%u:%u/stat", major(status.st_dev), minor(status.st_dev));
    FILE *file = fopen(name, "r");
    long long fields[5] = {0};
    if (!file || fscanf(file, "%lld %lld %lld %lld %lld", &fields[0], &fields[1], &fields[2], &fields[3], &fields[4]) != 5) return -1;
    fclose(file);
    return fields[4];
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: files-floor DIR FILES SECONDS WRITE HEADER [AHEAD]\n");
        return 64;
    }
    const char *folder = argv[1];
    int files = atoi(argv[2]);
    double seconds = atof(argv[3]), header_seconds = atof(argv[5]);
    long write_bytes = atol(argv[4]) / 4096 * 4096;
    long file_bytes = (long)(seconds * 48000 * 4) / 4096 * 4096;
    if (files < 1 || write_bytes < 4096 || file_bytes < write_bytes || header_seconds <= 0) return 64;
    long header_every = (long)(header_seconds * 48000 * 4);
    int ahead = argc == 7 ? atoi(argv[6]) : 1;
    const int depth = 128;

    long long writes_before = disk_writes(folder);
    double machine_before = machine_seconds(), process_before = process_seconds();
    int *descriptors = malloc(files * sizeof *descriptors);
    long *allocated = calloc(files, sizeof *allocated);
    char path[4096];
    for (int i = 0; i < files; i++) {
        snprintf(path, sizeof path, "%s/floor-%04d.wav", folder, i);
        descriptors[i] = open(path, O_WRONLY | O_CREAT | O_EXCL | O_DIRECT, 0644);
        if (descriptors[i] < 0) { perror(path); return 1; }
    }
    double created = process_seconds() - process_before;
    void *buffers;
    if (posix_memalign(&buffers, 4096, (size_t)write_bytes * depth)) return 1;
    memset(buffers, 0x3f, (size_t)write_bytes * depth);
    struct io_uring ring;
    if (io_uring_queue_init(2 * depth, &ring, 0)) return 1;
    int in_flight = 0, slot = 0;
    long since_header = 0;
    for (long offset = 4096; offset < file_bytes; offset += write_bytes) {
        long length = offset + write_bytes <= file_bytes ? write_bytes : file_bytes - offset;
        since_header += length;
        int header = since_header >= header_every;
        if (header) since_header = 0;
        for (int i = 0; i < files; i++) {
            for (int part = 0; part <= header; part++) {
                while (in_flight >= depth) {
                    struct io_uring_cqe *completion;
                    io_uring_submit(&ring);
                    io_uring_wait_cqe(&ring, &completion);
                    if (completion->res < 0) { fprintf(stderr, "write: %s\n", strerror(-completion->res)); return 1; }
                    io_uring_cqe_seen(&ring, completion);
                    in_flight--;
                }
                struct io_uring_sqe *entry = io_uring_get_sqe(&ring);
                char *buffer = (char *)buffers + (size_t)write_bytes * slot;
                if (part == 0 && ahead && offset + length > allocated[i]) {
                    long step = allocated[i] < (1L << 20) ? 1L << 20 : allocated[i] > (64L << 20) ? 64L << 20 : allocated[i];
                    long end = (offset + length + step) / 4096 * 4096;
                    if (fallocate(descriptors[i], 0, allocated[i], end - allocated[i]) != 0) { perror("fallocate"); return 1; }
                    allocated[i] = end;
                }
                if (part == 0) io_uring_prep_write(entry, descriptors[i], buffer, length, offset);
                else io_uring_prep_write(entry, descriptors[i], buffer, 4096, 0);
                slot = (slot + 1) % depth;
                in_flight++;
            }
        }
        io_uring_submit(&ring);
    }
    while (in_flight > 0) {
        struct io_uring_cqe *completion;
        io_uring_wait_cqe(&ring, &completion);
        io_uring_cqe_seen(&ring, completion);
        in_flight--;
    }
    for (int i = 0; i < files; i++) {
        if (ftruncate(descriptors[i], file_bytes) != 0) return 1;
        close(descriptors[i]);
    }
    double process = process_seconds() - process_before;
    sync();
    double machine = machine_seconds() - machine_before;
    printf("files=%d seconds=%g write_kib=%ld header_s=%g ahead=%d create_s=%.3f process_s=%.3f machine_s=%.2f disk_writes=%lld\n",
           files, seconds, write_bytes / 1024, header_seconds, ahead, created, process, machine, disk_writes(folder) - writes_before);
    return 0;
}
