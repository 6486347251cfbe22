import Atomics

/// A lock-free single-producer, single-consumer ring of bytes.
///
/// The producer is the JACK process callback, the consumer the disk writer. Each side owns one
/// index and only reads the other's, so the two never wait for each other: the producer learns how
/// much room there is, copies a whole block, then publishes it with one releasing store; the
/// consumer learns how much is published, copies it out, then frees the room with one releasing
/// store. The indices count bytes since the start and never wrap (a 64-bit count of bytes outlives
/// any recording); a position in storage is the index modulo the capacity.
///
/// The ring is a plain struct of pointers, so the real-time side reaches it without reference
/// counting. `deallocate()` must be called once, after both threads are done with it.
package struct RingBuffer: @unchecked Sendable {
    /// Bytes the ring holds when full.
    package let capacity: Int
    @usableFromInline let storage: UnsafeMutableRawPointer
    let pages: ResidentPages
    @usableFromInline let writeIndex: UnsafeAtomic<Int>
    @usableFromInline let readIndex: UnsafeAtomic<Int>

    /// Maps `capacity` bytes of zeroed pages, every one resident (locked where the process may),
    /// so that the real-time thread never takes a page fault on first use.
    /// A capacity above zero is a precondition; whether this machine can hold it is checked
    /// before (`MemoryBudget`, as CaptureClient does): an allocation that fails aborts.
    package init(capacity: Int) {
        precondition(capacity > 0, "a ring buffer needs room for at least one byte")
        self.capacity = capacity
        // Ordinary pages. Transparent huge pages (MADV_HUGEPAGE) were measured and cost more here:
        // 2 MiB pages come from the free blocks a virtual machine's host has taken back, so the
        // first touch of a 393 MB ring took 0.9 to 1.1 s of system time instead of 0.3 to 0.4 s
        // (BENCHMARKS.md).
        pages = ResidentPages(byteCount: capacity)
        storage = pages.start
        writeIndex = .create(0)
        readIndex = .create(0)
    }

    package func deallocate() {
        pages.release()
        writeIndex.destroy()
        readIndex.destroy()
    }

    // MARK: Producer side

    /// Bytes the producer may write now.
    @inlinable
    @_noAllocation @_noLocks
    package func writableByteCount() -> Int {
        capacity - (writeIndex.load(ordering: .relaxed) - readIndex.load(ordering: .acquiring))
    }

    /// Copies `byteCount` bytes to `offset` bytes past the write index, without publishing them.
    /// The caller has checked `writableByteCount()` covers `offset + byteCount`.
    @inlinable
    @_noAllocation @_noLocks
    package func stage(from source: UnsafeRawPointer, byteCount: Int, at offset: Int) {
        let start = (writeIndex.load(ordering: .relaxed) + offset) % capacity
        let first = min(byteCount, capacity - start)
        (storage + start).copyMemory(from: source, byteCount: first)
        if first < byteCount {
            storage.copyMemory(from: source + first, byteCount: byteCount - first)
        }
    }

    /// Where `byteCount` bytes staged at `offset` bytes past the write index go: one piece, or
    /// two when they wrap around the end (the second then starts at the storage's start). For a
    /// caller that copies with work of its own on the way; the caller has checked the room.
    @inlinable
    @_noAllocation @_noLocks
    package func stagingPieces(byteCount: Int, at offset: Int)
        -> (first: UnsafeMutableRawPointer, firstByteCount: Int, second: UnsafeMutableRawPointer) {
        let start = (writeIndex.load(ordering: .relaxed) + offset) % capacity
        return (storage + start, min(byteCount, capacity - start), storage)
    }

    /// Writes `byteCount` zero bytes at `offset` bytes past the write index, like `stage`.
    @inlinable
    @_noAllocation @_noLocks
    package func stageZeros(byteCount: Int, at offset: Int) {
        let start = (writeIndex.load(ordering: .relaxed) + offset) % capacity
        let first = min(byteCount, capacity - start)
        (storage + start).initializeMemory(as: UInt8.self, repeating: 0, count: first)
        if first < byteCount {
            storage.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount - first)
        }
    }

    /// Publishes the first `byteCount` staged bytes to the consumer.
    @inlinable
    @_noAllocation @_noLocks
    package func commitWrite(byteCount: Int) {
        writeIndex.store(writeIndex.load(ordering: .relaxed) + byteCount, ordering: .releasing)
    }

    // MARK: Consumer side

    /// Bytes published and not yet consumed.
    @inlinable
    @_noAllocation @_noLocks
    package func readableByteCount() -> Int {
        writeIndex.load(ordering: .acquiring) - readIndex.load(ordering: .relaxed)
    }

    /// Copies `byteCount` published bytes, starting `offset` bytes past the read index, without
    /// consuming them. The caller has checked `readableByteCount()` covers `offset + byteCount`.
    @inlinable
    @_noAllocation @_noLocks
    package func peek(into destination: UnsafeMutableRawPointer, byteCount: Int, at offset: Int) {
        let start = (readIndex.load(ordering: .relaxed) + offset) % capacity
        let first = min(byteCount, capacity - start)
        destination.copyMemory(from: storage + start, byteCount: first)
        if first < byteCount {
            (destination + first).copyMemory(from: storage, byteCount: byteCount - first)
        }
    }

    /// Where `byteCount` published bytes starting `offset` bytes past the read index lie, when
    /// they lie in one piece (nil when they wrap around the end: `peek` copies those). Valid until
    /// `commitRead` frees them.
    @inlinable
    @_noAllocation @_noLocks
    package func readPointer(at offset: Int, byteCount: Int) -> UnsafeRawPointer? {
        let start = (readIndex.load(ordering: .relaxed) + offset) % capacity
        guard byteCount <= capacity - start else { return nil }
        return UnsafeRawPointer(storage + start)
    }

    /// Frees `byteCount` bytes for the producer.
    @inlinable
    @_noAllocation @_noLocks
    package func commitRead(byteCount: Int) {
        readIndex.store(readIndex.load(ordering: .relaxed) + byteCount, ordering: .releasing)
    }
}
