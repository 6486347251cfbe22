#include "AllocationProbe.h"
#include <stdatomic.h>

static _Atomic int watching = 0;
static pthread_t watched;
static _Atomic int64_t count = 0;
static _Atomic int64_t bytes = 0;

void allocation_probe_watch(pthread_t thread) {
    atomic_store(&watching, 0);
    watched = thread;
    atomic_store(&count, 0);
    atomic_store(&bytes, 0);
    atomic_store(&watching, 1);
}

void allocation_probe_unwatch(void) { atomic_store(&watching, 0); }

int64_t allocation_probe_count(void) { return atomic_load(&count); }
int64_t allocation_probe_bytes(void) { return atomic_load(&bytes); }

void allocation_probe_hook(long size) {
    if (atomic_load(&watching) && pthread_equal(pthread_self(), watched)) {
        atomic_fetch_add(&count, 1);
        atomic_fetch_add(&bytes, size);
    }
}
