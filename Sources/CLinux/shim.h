// Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module does not see.
#ifndef JCAP_CLINUX_SHIM_H
#define JCAP_CLINUX_SHIM_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/// sync_file_range(2) flags (linux/fs.h).
static const unsigned int jcap_sync_file_range_wait_before = 1;
static const unsigned int jcap_sync_file_range_write = 2;
static const unsigned int jcap_sync_file_range_wait_after = 4;

/// sync_file_range(2): starts writeback of `count` bytes from `offset` (and, with the wait flags,
/// waits for it). Returns 0, or -1 with errno set.
static inline int jcap_sync_file_range(int descriptor, int64_t offset, int64_t count, unsigned int flags) {
    return (int)syscall(SYS_sync_file_range, descriptor, offset, count, flags);
}

#endif
