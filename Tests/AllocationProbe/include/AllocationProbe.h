#ifndef JCAP_ALLOCATION_PROBE_H
#define JCAP_ALLOCATION_PROBE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/// Chooses the thread whose allocations are counted, and zeroes the count.
void allocation_probe_watch(pthread_t thread);
/// Stops counting any thread.
void allocation_probe_unwatch(void);
/// Allocations counted on the watched thread since allocation_probe_watch.
int64_t allocation_probe_count(void);
/// Bytes requested by those allocations.
int64_t allocation_probe_bytes(void);
/// The hook to install with MallocInterposerSwift.setAllocationHook: counts the allocation when
/// it happens on the watched thread. It runs inside the allocator, so it only reads
/// pthread_self() and does atomic adds.
void allocation_probe_hook(long size);

#endif
