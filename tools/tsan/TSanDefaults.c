// ThreadSanitizer's defaults for every program of this package built with
// `swift test --sanitize=thread` (the test runner, jcap, jcap-testsignal): the TSan runtime calls
// these when they are defined in the executable; in a build without TSan nothing calls them.
#include "TSanDefaults.h"

// Swift's TSan runtime turns on ignore_interceptors_accesses and ignore_noninstrumented_modules:
// every intercepted call (read, memcpy, ...) then runs inside an "ignore" region that the
// interceptor ends on return. libjack ends its socket thread with pthread_cancel while it is
// blocked in such a call (jack_client_close), the region never ends, and TSan aborts the process
// ("thread T.. finished with ignores enabled") at every client close. Both off: the region is
// never entered, and TSan also checks what the interceptors touch (the ring's memcpy included).
const char *__tsan_default_options(void) {
    return "ignore_interceptors_accesses=0:ignore_noninstrumented_modules=0:history_size=4:"
           "second_deadlock_stack=1";
}

// Reports that are not races in jcap, each with why; anything else TSan reports is a bug to fix.
// They come from the toolchain's own libraries, not built with TSan, which TSan sees only because
// ignore_noninstrumented_modules is off.
const char *__tsan_default_suppressions(void) {
    return
    // Swift runtime (libswiftCore, not built with TSan), not jcap: generic metadata instantiation
    // holds a metadata cache's lock while it creates an entry and takes the entry's lock, and the
    // entry's construction instantiates further metadata through the cache's lock again, so TSan's
    // lock-order graph sees both orders on one thread ("lock-order-inversion (potential deadlock)",
    // every stack inside swift::ConcurrentReadableHashMap / VariadicMetadataCacheEntryBase). TSan sees
    // these locks only because the options above turn ignore_noninstrumented_modules off.
    "deadlock:swift::VariadicMetadataCacheEntryBase\n"

    // Berkeley DB (libdb-5.3, not built with TSan), not jcap: jack2 keeps port metadata in it, and
    // jack_set_property / jack_remove_properties, called on one thread, take the database's region
    // and page locks (pthread rwlocks) in both orders as the database grows. Seen when a session
    // of 64 tracks names its ports (StudioSessionTests); every stack is inside libdb.
    "deadlock:__db_pthread_mutex_readlock\n"
    "deadlock:libdb-5.3.so\n"

    // TSan's own libdispatch support, not jcap: the block it wraps around work submitted to a queue is
    // allocated by the submitting thread (here the main thread's CFRunLoop) and destroyed by
    // libdispatch on a worker after running it; the hand-over is inside libdispatch (not built with
    // TSan). Frames named __destroy_helper_block_* are C blocks' destroy helpers, which Swift code
    // never has: only that wrapper matches.
    "race:__destroy_helper_block_\n"

    // swift-testing (libTesting.so), not jcap: the runner copies its test plan (Runner.Plan's value
    // witness "copy") on one libdispatch worker while another releases it; both inside the test
    // library, synchronized by its own task machinery that TSan does not see.
    "race:s7Testing6RunnerV4PlanVwcp\n"
    // The same library's console output: its HumanReadableOutputRecorder copies its context
    // dictionary on one worker (under the recorder's own lock) while another releases the old
    // storage; every frame is inside libTesting and libdispatch.
    "race:HumanReadableOutputRecorder\n"

    // Swift runtime (libswiftCore, not built with TSan), not jcap: the generic metadata and witness
    // table caches are lock-free concurrent maps (ConcurrentReadableHashMap) read with acquire loads
    // TSan cannot see in uninstrumented code; a reader comparing keys (MetadataCacheKey::operator==,
    // reached from swift_getWitnessTable) while another thread publishes an entry shows as a race.
    "race:swift::MetadataCacheKey\n"
    "race:swift_getWitnessTable\n"

    // libdispatch and the blocks runtime (not built with TSan), not jcap: Foundation's run loop copies
    // a dispatch source's handler block on the main thread and libdispatch releases it on a worker
    // when the source is cancelled; the reference count is atomic inside libdispatch.
    "race:_dispatch_source_handler_dispose\n"
    "race:_Block_release\n"

    // libdispatch (not built with TSan), not jcap: its continuations are allocated from the heap by
    // one thread (the main thread's CFRunLoop, _dispatch_continuation_alloc_from_heap) and handed
    // through libdispatch's own lock-free per-thread caches to a worker, whose cache is freed when
    // the worker exits (_dispatch_cache_cleanup). No jcap frame in either stack; seen in a full
    // tools/sanitize run on the commit before the host and control core too.
    "race:_dispatch_cache_cleanup\n"

    // Foundation (libFoundation, not built with TSan), not jcap: `Process` fills a CFArray on the
    // thread that launches the child (_CFArrayReplaceValues) and the thread it creates to watch
    // the child releases it (__CFArrayReleaseValues); the hand-over is inside Foundation. Seen when
    // two unit tests run tools (sndfile-info, mount) through Process at once.
    "race:__CFArrayReleaseValues\n"

    // Swift runtime (libswiftCore), not jcap: generic metadata is created once under the runtime's
    // wait-queue lock (AtomicWaitQueue, LockingConcurrentMap) and published with an atomic TSan does
    // not see; a second thread then reads the new metadata (memcpy'd by
    // swift_allocateGenericClassMetadata). Seen when swift-testing parses jcap's flags on several
    // threads at once (swift-argument-parser's generic containers).
    "deadlock:swift::AtomicWaitQueue\n"
    "race:swift::AtomicWaitQueue\n"
    "race:swift::LockingConcurrentMap\n"
    // The same for tuple metadata: its labels are copied in (_swift_strlcpy) while the entry is
    // being made, and a reader compares keys in the runtime's lock-free map.
    "race:swift::ConcurrentReadableHashMap\n"
    "race:swift_allocateGenericClassMetadata\n"

    // Swift's concurrency runtime (libswift_Concurrency, not built with TSan), not jcap: a task that
    // ran on a libdispatch worker is freed (AsyncTask::PrivateStorage::destroy) by the thread that
    // drops the last reference to it, after the task published its completion with the runtime's
    // own atomics. Seen when jcap's browser remote stops its server's task at quit.
    "race:swift::AsyncTask::PrivateStorage::destroy\n"
    // The same runtime's continuations: CheckedContinuation.resume(returning:) copies the value into
    // the waiting task's context on the resuming thread (a SwiftNIO thread-pool thread), and the
    // task reads it when its job runs on a libdispatch worker; the hand-over is the runtime's job
    // queue. Seen when the browser remote opens a take file through SwiftNIO's file system.
    // (No leading "$": in a suppression a "$" anchors the end of the name, so "$sScc..." never
    // matched anything. The reading side, in the task, is reported with this stack second:
    // EventLoopFuture.get() and _NIOFileSystem's open awaiting a thread pool.)
    "race:sScc6resume9returningyxn_tF\n"
    // Swift's runtime (libswiftCore, not built with TSan): tuple type metadata made once and
    // published through its metadata cache's own locking. Seen under swift-testing's #expect in
    // the browser remote's unit tests; no jcap frame in either stack.
    "race:TupleCacheEntry\n"
    // libdispatch (not built with TSan), not jcap: a timer source Swift's concurrency runtime
    // makes for a deadline (swift_dispatchEnqueueWithDeadline -> dispatch_after_f) is freed by
    // another libdispatch worker when it fires; every frame of both stacks is libdispatch's.
    "race:_dispatch_source_dispose\n"
    "race:_dispatch_dispose\n"
    // SwiftNIO, not jcap: an async channel's "produce more" and "did yield" closures, handed to its
    // event loop, are read there while the task that made them (a WebSocket or HTTP connection of
    // the browser remote) drops its last reference; the reference count is the Swift runtime's
    // atomic. Every frame of both stacks is in NIOCore or NIOPosix.
    "race:NIOAsyncChannelHandlerProducerDelegate\n"
    "race:NIOAsyncChannelHandlerWriterDelegate\n"
    // Swift runtime (libswiftCore, not built with TSan), not jcap: its metadata allocator takes
    // 16 KiB slabs from swift_slowAlloc (under a metadata cache entry's lock), fills them in code
    // TSan does not see, and publishes the metadata with its own atomics; a second thread reading
    // that metadata shows as racing with the slab's malloc. Seen in SwiftNIO's Selector.whenReady
    // on two event-loop threads of the browser remote. The other side of such a report is an
    // allocation itself, never a store: a store to a Swift object after its allocation is
    // instrumented, and a race with it is reported against that store, not against the malloc.
    "race:swift_slowAlloc\n"
    ;
}
