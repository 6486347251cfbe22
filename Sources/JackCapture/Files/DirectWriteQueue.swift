import Atomics
import CUring
import Glibc

/// A page-aligned buffer of a `DirectWriteQueue`'s pool, lent to one file at a time.
struct DirectBuffer {
    let index: Int
    let bytes: UnsafeMutableRawPointer
}

/// Where the direct writes of a group of files (a take's, or a segment's) go to the kernel, and
/// the aligned buffers they are written from.
///
/// io_uring, so the aligned blocks of 1024 files cost one system call per pass of the disk
/// writer, not one each. Where the kernel has no io_uring or refuses it (a container's seccomp
/// profile, `kernel.io_uring_disabled`), each block is written with pwrite(2) as it is queued:
/// the same files, more calls.
///
/// The buffers are one pool for all the files, not two for each: the disk writer takes the files
/// one at a time (`DiskWriter`), so a file holds a buffer only while it is being written to and
/// while its blocks are on their way to the disk; between its turns it keeps its last partial
/// block alone (`DirectFile`). The memory is the pool's, whatever the number of files: 16 MiB
/// (BENCHMARKS.md: two buffers of 64 KiB for each of 1024 files were 128 MiB).
///
/// Used by one thread at a time: the thread that creates the take's files, then its disk writer.
/// A write stays the queue's until its completion is taken (`submit`, `wait`), which tells its
/// file (`DirectFile.completed`) and puts its buffer back in the pool.
package final class DirectWriteQueue: @unchecked Sendable {
    // @unchecked: a C ring, a pool and unlocked counters, used by one thread at a time (see above).
    private let ring: UnsafeMutablePointer<io_uring>?
    /// Writes queued and not yet handed to the kernel.
    private var queued = 0
    /// Writes handed over (or queued) whose completion has not been taken, by tag.
    private var pending: [PendingWrite?] = []
    private var freeTags: [Int] = []
    private var outstanding = 0
    /// Submission slots: a pass of the writer queues far fewer between its submits.
    static let entries: UInt32 = 256
    /// The most writes outstanding at once: the kernel's completion ring (twice `entries`) never
    /// overflows, and a queue of 1024 files waits for the disk rather than run ahead of it.
    static let mostOutstanding = 512

    /// Bytes in each buffer of the pool: a multiple of `DirectFile.blockSize`.
    let bufferSize: Int
    /// Buffers the pool grows to (it allocates them as they are first needed).
    let poolSize: Int
    private var buffers: [UnsafeMutableRawPointer] = []
    private var freeBuffers: [Int] = []
    /// Writes on their way from each buffer: it is back in the pool when the last one ends.
    private var buffersWrites: [Int] = []

    /// The memory all the buffers of a queue take, whatever the number of files.
    static let poolBytes = 16 << 20

    /// Bytes in each buffer for `files` files written at once: 2 MiB for a few files (so that a
    /// wide interleaved file goes to the disk in large writes, several in flight), down to
    /// 128 KiB for many (room for one turn of a mono track, half a second of float
    /// (`DiskWriter.directWriteMinimum`), and its partial block), whole blocks.
    static func bufferSize(files: Int) -> Int {
        let share = poolBytes / max(1, files) / DirectFile.blockSize * DirectFile.blockSize
        return min(2 << 20, max(128 << 10, share))
    }

    /// Disk space the files hold allocated ahead of what they have sent to the disk, in bytes:
    /// space the take fills as it goes, so free for it, though the file system counts it used. A
    /// disk watch adds it to the free space (`Take.bytesAllocatedAhead`); the queues of a take's
    /// segments share one count. Written by the writer's thread, read by any.
    package let allocatedAhead: ManagedAtomic<Int64>

    /// The most space one file of the queue allocates ahead of its writes: 64 MiB for a few
    /// files, a share of 256 MiB for many (at least 1 MiB), so that a take of many files does not
    /// hold gigabytes another program on the disk cannot have (1024 tracks could hold 64 GiB).
    let mostAllocatedAhead: Int64

    static func mostAllocatedAhead(files: Int) -> Int64 {
        max(DirectFile.leastAllocatedAhead, min(64 << 20, (256 << 20) / Int64(max(1, files))))
    }

    /// Whether the files' file system reports space allocated ahead as unwritten (FIEMAP), which
    /// is how a repair tells it from audio: found by the first file to allocate, nil until then.
    /// Where it does not, no file of the queue allocates ahead (`DirectFile.allocateAhead`).
    var reportsUnwrittenSpace: Bool?

    /// Why io_uring is not used, when it is not (the errno of io_uring_setup).
    package let ringRefusal: Int32?

    /// A queue for `files` files written at once, through io_uring where the kernel allows it;
    /// not `batched`, through pwrite(2).
    package init(batched: Bool = true, files: Int = 1, allocatedAhead: ManagedAtomic<Int64> = ManagedAtomic(0)) {
        self.allocatedAhead = allocatedAhead
        mostAllocatedAhead = Self.mostAllocatedAhead(files: files)
        var error: Int32 = 0
        ring = batched ? jcap_uring_create(Self.entries, &error) : nil
        ringRefusal = ring == nil ? (batched ? error : 0) : nil
        bufferSize = Self.bufferSize(files: files)
        poolSize = max(8, Self.poolBytes / bufferSize)
    }

    deinit {
        // Every write's file waits for it before closing, so nothing is outstanding here;
        // should a file have been dropped unfinished, its writes still end before the ring does
        // (and before their buffers are freed).
        waitForAll()
        if let ring { jcap_uring_destroy(ring) }
        for buffer in buffers { buffer.deallocate() }
    }

    /// Whether writes are batched through io_uring.
    package var isBatched: Bool { ring != nil }

    /// Buffers the pool has allocated so far (its memory is this many `bufferSize`s).
    package var buffersAllocated: Int { buffers.count }
    /// Writes made from the pool's buffers, and their bytes: the files' audio (not their head
    /// rewrites or padded last blocks).
    package private(set) var bufferWrites = 0
    package private(set) var bufferBytesWritten = 0
    /// Every write made, the files' head rewrites and padded last blocks too.
    package private(set) var writesMade = 0
    /// Writes made and not yet ended.
    package var writesOnTheirWay: Int { outstanding }

    // MARK: The pool

    /// A buffer for a file to write into: a free one, a new one while the pool is under its size,
    /// else the first to come back from the disk. Should every buffer be held by a file and none
    /// be on its way (a caller writing to more files at once than the pool has buffers), one
    /// more is allocated rather than wait for nothing.
    func takeBuffer() -> DirectBuffer {
        if freeBuffers.isEmpty && buffers.count < poolSize { allocateBuffer() }
        wait { !freeBuffers.isEmpty }
        if freeBuffers.isEmpty { allocateBuffer() }
        let index = freeBuffers.removeLast()
        return DirectBuffer(index: index, bytes: buffers[index])
    }

    /// A buffer a file no longer needs, unwritten.
    func returnBuffer(_ buffer: DirectBuffer) {
        freeBuffers.append(buffer.index)
    }

    private func allocateBuffer() {
        buffers.append(.allocate(byteCount: bufferSize, alignment: DirectFile.blockSize))
        buffersWrites.append(0)
        freeBuffers.append(buffers.count - 1)
    }

    // MARK: Writes

    /// A write on its way: whose, from what memory, and where to.
    private struct PendingWrite {
        let file: DirectFile
        /// The pool buffer it is written from, back to the pool when it ends (nil: the file's own
        /// memory).
        let buffer: DirectBuffer?
        let source: UnsafeRawPointer
        let offset: Int64
        let length: Int
    }

    /// Queues a write of `length` bytes at `source` to `file` at `offset`, and returns its tag;
    /// its completion goes to `file.completed(tag:source:offset:length:result:)`. The memory must
    /// stay as it is until then; a pool `buffer` it is in is the queue's from here on (a buffer
    /// may go in several writes, and is back in the pool when the last one ends).
    @discardableResult
    func write(_ file: DirectFile, buffer: DirectBuffer?, from source: UnsafeRawPointer, length: Int,
               at offset: Int64) -> Int {
        let tag: Int
        if let free = freeTags.popLast() {
            tag = free
        } else {
            tag = pending.count
            pending.append(nil)
        }
        pending[tag] = PendingWrite(file: file, buffer: buffer, source: source, offset: offset, length: length)
        outstanding += 1
        writesMade += 1
        if let buffer {
            buffersWrites[buffer.index] += 1
            bufferWrites += 1
            bufferBytesWritten += length
        }
        file.started(tag: tag, source: source, offset: offset, length: length)
        guard let ring else {
            let written = pwrite(file.descriptor, source, length, off_t(offset))
            complete(tag: tag, result: written < 0 ? -Int(errno) : written)
            return tag
        }
        while outstanding > Self.mostOutstanding { takeCompletion(waiting: true) }
        while jcap_uring_queue_write(ring, file.descriptor, source, UInt32(length), UInt64(offset), UInt64(tag)) == -EBUSY {
            submit()
        }
        queued += 1
        return tag
    }

    /// Hands everything queued to the kernel in one call and takes the completions already there.
    package func submit() {
        guard let ring else { return }
        if queued > 0 {
            let submitted = jcap_uring_submit(ring, 0)
            if submitted > 0 { queued -= Int(submitted) }
        }
        while takeCompletion(waiting: false) {}
    }

    /// Waits until `done` holds: submits what is queued and takes completions as they come. Where
    /// it holds already (a buffer long written), no system call is made, so the writes queued stay
    /// for the pass's one submission.
    func wait(until done: () -> Bool) {
        guard !done() else { return }
        submit()
        while !done() {
            guard outstanding > 0 else { return }
            takeCompletion(waiting: true)
        }
    }

    /// Waits for every write outstanding.
    func waitForAll() { wait { outstanding == 0 } }

    /// Takes one completion and tells its file; false when none was there (or, waiting, none
    /// could come).
    @discardableResult
    private func takeCompletion(waiting: Bool) -> Bool {
        guard let ring, outstanding > 0 else { return false }
        if waiting && queued > 0 {
            let submitted = jcap_uring_submit(ring, 0)
            if submitted > 0 { queued -= Int(submitted) }
        }
        var tag: UInt64 = 0
        var result: Int32 = 0
        var status: Int32
        repeat {
            status = jcap_uring_take_completion(ring, waiting ? 1 : 0, &tag, &result)
        } while status == -EINTR
        guard status == 0 else { return false }
        complete(tag: Int(tag), result: Int(result))
        return true
    }

    /// Write `tag` ended with `result` (bytes written, or -errno): its file is told, then its
    /// buffer goes back to the pool (the file may write a short write's rest from it first).
    private func complete(tag: Int, result: Int) {
        guard tag < pending.count, let write = pending[tag] else { return }
        pending[tag] = nil
        freeTags.append(tag)
        outstanding -= 1
        write.file.completed(tag: tag, source: write.source, offset: write.offset, length: write.length, result: result)
        if let buffer = write.buffer {
            buffersWrites[buffer.index] -= 1
            if buffersWrites[buffer.index] == 0 { freeBuffers.append(buffer.index) }
        }
    }
}
