// liburing (io_uring) as jcap's Swift code sees it: a ring behind an opaque pointer, and the few
// calls the direct file sink makes, so no liburing struct crosses into Swift.
#ifndef JCAP_CURING_SHIM_H
#define JCAP_CURING_SHIM_H

#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <stdlib.h>

/// A ring of `entries` submission slots, or NULL with `*error` set to the (positive) errno:
/// ENOSYS where the kernel has no io_uring, EPERM where it is turned off (kernel.io_uring_disabled).
static inline struct io_uring *jcap_uring_create(unsigned entries, int *error) {
    struct io_uring *ring = calloc(1, sizeof *ring);
    if (ring == NULL) {
        *error = ENOMEM;
        return NULL;
    }
    int result = io_uring_queue_init(entries, ring, 0);
    if (result < 0) {
        free(ring);
        *error = -result;
        return NULL;
    }
    *error = 0;
    return ring;
}

static inline void jcap_uring_destroy(struct io_uring *ring) {
    io_uring_queue_exit(ring);
    free(ring);
}

/// Queues pwrite(descriptor, buffer, length, offset) tagged `tag`, unsubmitted. Returns 0, or
/// -EBUSY when every submission slot is taken (submit first).
static inline int jcap_uring_queue_write(struct io_uring *ring, int descriptor, const void *buffer, unsigned length,
                                         uint64_t offset, uint64_t tag) {
    struct io_uring_sqe *entry = io_uring_get_sqe(ring);
    if (entry == NULL) return -EBUSY;
    io_uring_prep_write(entry, descriptor, buffer, length, offset);
    io_uring_sqe_set_data64(entry, tag);
    return 0;
}

/// Submits everything queued (one io_uring_enter), waiting for `wait` completions. Returns the
/// number submitted, or -errno.
static inline int jcap_uring_submit(struct io_uring *ring, unsigned wait) {
    return wait > 0 ? io_uring_submit_and_wait(ring, wait) : io_uring_submit(ring);
}

/// Takes one completion: its tag and result (bytes written, or -errno). With `wait`, blocks
/// until one comes. Returns 0, or -EAGAIN when none is there and `wait` is 0, or -errno.
static inline int jcap_uring_take_completion(struct io_uring *ring, int wait, uint64_t *tag, int32_t *result) {
    struct io_uring_cqe *completion = NULL;
    int status = wait ? io_uring_wait_cqe(ring, &completion) : io_uring_peek_cqe(ring, &completion);
    if (status < 0) return status;
    if (completion == NULL) return -EAGAIN;
    *tag = io_uring_cqe_get_data64(completion);
    *result = completion->res;
    io_uring_cqe_seen(ring, completion);
    return 0;
}

#endif
