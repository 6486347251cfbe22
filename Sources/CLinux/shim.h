// Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module does not see,
// and ThreadSanitizer's annotations.
#ifndef JCAP_CLINUX_SHIM_H
#define JCAP_CLINUX_SHIM_H

#include <fcntl.h>
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

/// fallocate(2) with FALLOC_FL_KEEP_SIZE: allocates `count` bytes of the file from `offset`
/// without changing its size, so later appends there need no new blocks. Returns 0, or -1 with
/// errno set.
static inline int jcap_allocate_keeping_size(int descriptor, int64_t offset, int64_t count) {
    return (int)syscall(SYS_fallocate, descriptor, 1 /* FALLOC_FL_KEEP_SIZE */, offset, count);
}

/// O_DIRECT for open(2): glibc names it only under _GNU_SOURCE, which Swift's Glibc module does
/// not see; its value is per architecture, so it comes from glibc's own definition.
static const int jcap_open_direct = __O_DIRECT;

/// syncfs(2): writes everything of the file system holding `descriptor` to the disk, its
/// journal committed. Returns 0, or -1 with errno set.
static inline int jcap_sync_file_system(int descriptor) {
    return (int)syscall(SYS_syncfs, descriptor);
}

/// madvise(2) with MADV_POPULATE_WRITE (Linux 5.14): faults in `count` bytes of a mapping as if
/// written, without writing them. Returns 0, or -1 with errno set (EINVAL on an older kernel).
static inline int jcap_populate_for_writing(void *address, size_t count) {
    return (int)syscall(SYS_madvise, address, count, 23 /* MADV_POPULATE_WRITE */);
}

/// ThreadSanitizer's annotations (compiler-rt's tsan_interface.h), for a lock TSan cannot see:
/// weak, so in a build without TSan they are null and the wrappers do nothing.
void __tsan_acquire(void *address) __attribute__((weak));
void __tsan_release(void *address) __attribute__((weak));

/// Tells TSan this thread has acquired the lock at `address` (everything done before its release
/// on another thread happened before what follows here).
static inline void jcap_tsan_acquire(void *address) {
    if (__tsan_acquire) __tsan_acquire(address);
}

/// Tells TSan this thread releases the lock at `address`.
static inline void jcap_tsan_release(void *address) {
    if (__tsan_release) __tsan_release(address);
}

#endif
