/* The least a streaming recorder with jcap's obligations can cost, as a yardstick for CPU and
 * machine time (not for losses: it does no reporting, metering or repair). It does only what
 * issue 24 asks of any recorder at this size:
 *   - a ring of 4 s (jack_capture's default buffer and jcap's), locked before the take;
 *   - the process callback copies each port's buffer into it, nothing else;
 *   - a writer thread writes the ring out around the page cache (O_DIRECT, whole 4 KiB blocks),
 *     an interleaved file gathered with jcap's own transpose (Sources/CSimd, AVX2; no meters),
 *     the writes of all files batched through io_uring from a 16 MiB pool of buffers, as jcap's;
 *   - each file's frames wait at most half a second in memory, and its header is rewritten
 *     twice a second (so a killed process leaves every file readable, as jcap's crash safety);
 *   - the space of each file is allocated once, at its final size (jcap cannot know it, so
 *     this is cheaper than any recorder can be for an open-ended take).
 * One interleaved file, or with --mono one file per channel (DIR/c0001.wav ...). The WAV header
 * fills the first block (a JUNK chunk pads it), so the audio starts at 4096.
 *
 * With --zero-copy (mono files) a file's frames go to the disk straight from the ring, where a
 * channel's frames lie one after another, whenever a pass begins and ends on whole blocks (at
 * 1024-frame periods every pass does): the floor of a recorder whose ring is laid out by channel,
 * which jcap's is not (a block of all channels a cycle).
 *
 *   floor-recorder CHANNELS SECONDS PORT-PREFIX OUTPUT.wav
 *   floor-recorder --mono [--zero-copy] CHANNELS SECONDS PORT-PREFIX DIR
 */
#define _GNU_SOURCE
#include <jack/jack.h>
#include <liburing.h>
#include "../../Sources/CSimd/shim.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { block = 4096 };

static jack_port_t **ports;
static int channels, mono, zero_copy;
static float *ring;                   /* channel c's frames at ring + c * ring_frames */
static size_t ring_frames, take_frames;
static size_t written_frames;         /* by the callback (release), read by the writer */
static int connected, armed, done;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    if (__atomic_load_n(&done, __ATOMIC_RELAXED)) return 0;
    if (!armed) { armed = __atomic_load_n(&connected, __ATOMIC_ACQUIRE); return 0; }
    size_t at = __atomic_load_n(&written_frames, __ATOMIC_RELAXED);
    size_t count = frames;
    if (at + count >= take_frames) count = take_frames - at;
    size_t slot = at % ring_frames;   /* ring_frames is a multiple of the period: no wrap inside */
    for (int c = 0; c < channels; c++)
        memcpy(ring + (size_t)c * ring_frames + slot, jack_port_get_buffer(ports[c], frames), count * sizeof(float));
    __atomic_store_n(&written_frames, at + count, __ATOMIC_RELEASE);
    if (at + count == take_frames) __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    return 0;
}

/* A float WAV header in one block: RIFF, fmt, a JUNK chunk to the block's end, the data chunk's
 * header in its last 8 bytes. */
static void header(unsigned char *h, int file_channels, int rate, uint64_t data_bytes) {
    memset(h, 0, block);
    uint32_t riff = (uint32_t)(block - 8 + data_bytes), data = (uint32_t)data_bytes;
    uint16_t format = 3, ch = (uint16_t)file_channels, bits = 32, align = (uint16_t)(4 * file_channels);
    uint32_t fmt_size = 16, srate = (uint32_t)rate, byte_rate = srate * align, junk = block - 44 - 8;
    memcpy(h, "RIFF", 4); memcpy(h + 4, &riff, 4); memcpy(h + 8, "WAVE", 4);
    memcpy(h + 12, "fmt ", 4); memcpy(h + 16, &fmt_size, 4); memcpy(h + 20, &format, 2);
    memcpy(h + 22, &ch, 2); memcpy(h + 24, &srate, 4); memcpy(h + 28, &byte_rate, 4);
    memcpy(h + 32, &align, 2); memcpy(h + 34, &bits, 2);
    memcpy(h + 36, "JUNK", 4); memcpy(h + 40, &junk, 4);
    memcpy(h + block - 8, "data", 4); memcpy(h + block - 4, &data, 4);
}

static void fail(const char *what) { perror(what); exit(1); }

/* Writes go to the kernel in batches: queued, then submitted together when the pool or the
 * submission queue is full or the pass ends, and waited for (so their buffers can be reused). */
static struct io_uring uring;
static unsigned queued;

static void drain(void) {
    if (!queued) return;
    if (io_uring_submit_and_wait(&uring, queued) < 0) fail("io_uring_submit_and_wait");
    while (queued) {
        struct io_uring_cqe *cqe;
        if (io_uring_wait_cqe(&uring, &cqe)) fail("io_uring_wait_cqe");
        if (cqe->res != (int)(uintptr_t)io_uring_cqe_get_data(cqe)) { fprintf(stderr, "floor: write: %d\n", cqe->res); exit(1); }
        io_uring_cqe_seen(&uring, cqe);
        queued--;
    }
}

static void queue_write(int fd, const void *bytes, size_t count, off_t offset) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&uring);
    if (!sqe) { drain(); sqe = io_uring_get_sqe(&uring); }
    io_uring_prep_write(sqe, fd, bytes, (unsigned)count, (uint64_t)offset);
    io_uring_sqe_set_data(sqe, (void *)(uintptr_t)count);
    queued++;
}

static void pwrite_all(int fd, const void *bytes, size_t count, off_t offset) {
    if (pwrite(fd, bytes, count, offset) != (ssize_t)count) fail("pwrite");
}

/* Whether a mono file's pass of `count` frames from `first` can go to the disk from the ring as
 * it lies: no partial block carried over, and every run (two where the ring wraps) starting at an
 * aligned address and ending on a whole block. The ring's memory is the kernel's to read until
 * drain(), which each pass ends with, and the callback is seconds of ring behind. */
static int straight_from_ring(int f, size_t first, size_t count, size_t carried) {
    if (carried || (count * 4) % block) return 0;
    size_t slot = first % ring_frames;
    size_t head = ring_frames - slot < count ? ring_frames - slot : count;
    uintptr_t start = (uintptr_t)(ring + (size_t)f * ring_frames + slot), wrapped = (uintptr_t)(ring + (size_t)f * ring_frames);
    return start % block == 0 && (head * 4) % block == 0 && (head == count || wrapped % block == 0);
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--mono")) mono = 1;
        else if (!strcmp(argv[a], "--zero-copy")) zero_copy = 1;
        else break;
    }
    if (argc - a != 4 || (zero_copy && !mono)) {
        fprintf(stderr, "usage: %s [--mono [--zero-copy]] CHANNELS SECONDS PORT-PREFIX OUTPUT\n", argv[0]);
        return 64;
    }
    channels = atoi(argv[a]);
    jack_client_t *client = jack_client_open("floor", JackNoStartServer, NULL);
    if (!client) { fprintf(stderr, "floor: no JACK server\n"); return 10; }
    int rate = (int)jack_get_sample_rate(client);
    size_t period = jack_get_buffer_size(client);
    take_frames = (size_t)(atof(argv[a + 1]) * rate);
    ring_frames = (4 * (size_t)rate + period - 1) / period * period;
    size_t ring_bytes = ring_frames * channels * sizeof(float);
    ring = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ring == MAP_FAILED) fail("mmap");
    if (mlock(ring, ring_bytes)) fail("mlock");

    int files = mono ? channels : 1, file_channels = mono ? 1 : channels;
    uint64_t file_data_bytes = (uint64_t)take_frames * 4 * file_channels;
    int *fds = calloc(files, sizeof *fds);
    for (int f = 0; f < files; f++) {
        char path[4096];
        if (mono) snprintf(path, sizeof path, "%s/c%04d.wav", argv[a + 3], f + 1);
        else snprintf(path, sizeof path, "%s", argv[a + 3]);
        fds[f] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
        if (fds[f] < 0) fail(path);
        uint64_t whole = block + (file_data_bytes + block - 1) / block * block;
        if (fallocate(fds[f], 0, 0, (off_t)whole)) fail("fallocate");
    }
    /* Each file's unwritten partial block is carried in its own block-sized tail. */
    size_t chunk_bytes = mono ? ((size_t)rate / 2 * 4 + 2 * block) / block * block : 2 << 20;
    size_t pool_bytes = 16 << 20, pool_used = 0;
    unsigned char *pool, *tails, *heads;
    if (posix_memalign((void **)&pool, block, pool_bytes)) fail("pool");
    if (posix_memalign((void **)&tails, block, (size_t)block * files)) fail("tails");
    if (posix_memalign((void **)&heads, block, (size_t)block * files)) fail("heads");
    if (io_uring_queue_init(256, &uring, 0)) fail("io_uring_queue_init");
    const float **sources = calloc(channels, sizeof *sources);
    size_t *tail_bytes = calloc(files, sizeof *tail_bytes);
    uint64_t *file_bytes = calloc(files, sizeof *file_bytes);   /* data bytes on the disk or in the tail */

    ports = calloc(channels, sizeof *ports);
    for (int c = 0; c < channels; c++) {
        char name[32];
        snprintf(name, sizeof name, "in_%d", c + 1);
        ports[c] = jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
        if (!ports[c]) { fprintf(stderr, "floor: cannot register %s\n", name); return 11; }
    }
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client)) { fprintf(stderr, "floor: cannot activate\n"); return 18; }
    for (int c = 0; c < channels; c++) {
        char source[256];
        snprintf(source, sizeof source, "%s%d", argv[a + 2], c + 1);
        if (jack_connect(client, source, jack_port_name(ports[c]))) { fprintf(stderr, "floor: cannot connect %s\n", source); return 11; }
    }
    __atomic_store_n(&connected, 1, __ATOMIC_RELEASE);

    /* The writer: every 20 ms, whatever is due. One file: 2 MiB of interleaved frames at a time
     * (or all that is there at a header rewrite or the end). Mono: every half second, each
     * channel's frames since, in one write a file. */
    size_t read_frames = 0;
    double last_header = now();
    size_t least = mono ? (size_t)rate / 2 : (chunk_bytes - block) / (4 * (size_t)channels);
    for (;;) {
        int finished = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
        size_t available = __atomic_load_n(&written_frames, __ATOMIC_ACQUIRE) - read_frames;
        int header_due = now() - last_header >= 0.5;
        if (available > 0 && (available >= least || header_due || finished)) {
            while (available > 0) {
                size_t most = mono ? (chunk_bytes - block) / 4 : least;
                size_t count = available < most ? available : most;
                for (int f = 0; f < files; f++) {
                    if (zero_copy && straight_from_ring(f, read_frames, count, tail_bytes[f])) {
                        for (size_t done_frames = 0; done_frames < count;) {
                            size_t slot = (read_frames + done_frames) % ring_frames;
                            size_t run = ring_frames - slot < count - done_frames ? ring_frames - slot : count - done_frames;
                            queue_write(fds[f], ring + (size_t)f * ring_frames + slot, run * 4,
                                        block + (off_t)(file_bytes[f] + done_frames * 4));
                            done_frames += run;
                        }
                        file_bytes[f] += count * 4;
                        continue;
                    }
                    if (pool_used + chunk_bytes > pool_bytes) { drain(); pool_used = 0; }
                    unsigned char *out = pool + pool_used;
                    pool_used += chunk_bytes;
                    memcpy(out, tails + (size_t)f * block, tail_bytes[f]);
                    size_t bytes = tail_bytes[f];
                    for (size_t done_frames = 0; done_frames < count;) {
                        size_t slot = (read_frames + done_frames) % ring_frames;
                        size_t run = ring_frames - slot < count - done_frames ? ring_frames - slot : count - done_frames;
                        if (mono) {
                            memcpy(out + bytes, ring + (size_t)f * ring_frames + slot, run * 4);
                        } else {
                            /* jcap's own transpose (8 x 8 AVX2 tiles), measuring nothing:
                             * the floor of everything but the gather, which costs the same. */
                            for (int c = 0; c < channels; c++) sources[c] = ring + (size_t)c * ring_frames + slot;
                            jcap_interleave_avx2(sources, channels, 0, (long)run, (float *)(out + bytes), NULL, NULL);
                        }
                        bytes += run * 4 * file_channels;
                        done_frames += run;
                    }
                    size_t whole = bytes / block * block;
                    off_t offset = block + (off_t)(file_bytes[f] - tail_bytes[f]);
                    if (whole) queue_write(fds[f], out, whole, offset);
                    tail_bytes[f] = bytes - whole;
                    memcpy(tails + (size_t)f * block, out + whole, tail_bytes[f]);
                    file_bytes[f] += count * 4 * file_channels;
                }
                read_frames += count;
                available -= count;
            }
        }
        if (header_due || finished) {
            for (int f = 0; f < files; f++) {
                header(heads + (size_t)f * block, file_channels, rate, file_bytes[f] - tail_bytes[f]);
                queue_write(fds[f], heads + (size_t)f * block, block, 0);
            }
            last_header = now();
        }
        drain();
        pool_used = 0;
        if (finished && read_frames == take_frames) break;
        usleep(20000);
    }
    jack_deactivate(client);
    jack_client_close(client);
    /* The last partial block, padded, then the true length. */
    for (int f = 0; f < files; f++) {
        if (tail_bytes[f]) {
            unsigned char *tail = tails + (size_t)f * block;
            memset(tail + tail_bytes[f], 0, block - tail_bytes[f]);
            pwrite_all(fds[f], tail, block, block + (off_t)(file_bytes[f] - tail_bytes[f]));
        }
        header(heads + (size_t)f * block, file_channels, rate, file_bytes[f]);
        pwrite_all(fds[f], heads + (size_t)f * block, block, 0);
        if (ftruncate(fds[f], block + (off_t)file_bytes[f])) fail("ftruncate");
        close(fds[f]);
    }
    munmap(ring, ring_bytes);
    return 0;
}
