// Linux calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module does not see,
// and ThreadSanitizer's annotations.
#ifndef JCAP_CLINUX_SHIM_H
#define JCAP_CLINUX_SHIM_H

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
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

/// fallocate(2) with no flags: allocates `count` bytes of the file from `offset`, moving its end
/// there if that is past it. Returns 0, or -1 with errno set.
static inline int jcap_allocate(int descriptor, int64_t offset, int64_t count) {
    return (int)syscall(SYS_fallocate, descriptor, 0, offset, count);
}

/// Where the file on `descriptor`, `size` bytes long, ends in space allocated and never written:
/// the start of the run of unwritten extents (FIEMAP_EXTENT_UNWRITTEN) that reaches its end,
/// looked for in its last `window` bytes; `size` when it does not end in one; -1 with errno set
/// when the file system cannot say (no FS_IOC_FIEMAP). Dirty pages are written first
/// (FIEMAP_FLAG_SYNC), so bytes written through the page cache count as written. Unlike SEEK_HOLE,
/// which takes unwritten space whose zeros a read has put in the page cache for data.
static inline int64_t jcap_unwritten_tail(int descriptor, int64_t size, int64_t window) {
    struct {
        struct fiemap map;
        struct fiemap_extent extents[32];
    } request;
    int64_t next = size > window ? size - window : 0, run = -1, end = next;
    while (next < size) {
        memset(&request, 0, sizeof request);
        request.map.fm_start = (uint64_t)next;
        request.map.fm_length = (uint64_t)(size - next);
        request.map.fm_flags = FIEMAP_FLAG_SYNC;
        request.map.fm_extent_count = 32;
        if (ioctl(descriptor, FS_IOC_FIEMAP, &request.map) != 0) return -1;
        if (request.map.fm_mapped_extents == 0) break;
        for (unsigned index = 0; index < request.map.fm_mapped_extents; index++) {
            const struct fiemap_extent *extent = &request.extents[index];
            int64_t start = (int64_t)extent->fe_logical;
            // A hole before it, or data in it, ends the run.
            if (!(extent->fe_flags & FIEMAP_EXTENT_UNWRITTEN) || start > end) run = -1;
            if ((extent->fe_flags & FIEMAP_EXTENT_UNWRITTEN) && run < 0) run = start;
            end = start + (int64_t)extent->fe_length;
        }
        next = end;
        if (request.extents[request.map.fm_mapped_extents - 1].fe_flags & FIEMAP_EXTENT_LAST) break;
    }
    return run >= 0 && end >= size ? (run < size ? run : size) : size;
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
