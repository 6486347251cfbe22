import Atomics
import CLinux
import CSndfile
import Glibc

/// A file written around the page cache: what libsndfile writes through its virtual I/O
/// (`SF_VIRTUAL_IO`) goes to the disk in aligned blocks through an O_DIRECT descriptor.
///
/// Why: a take's audio never needs to be in the page cache, and putting it there is most of the
/// writer's cost (the kernel's copy into fresh pages, then writing them back and dropping them;
/// BENCHMARKS.md). O_DIRECT takes the writer's buffer straight to the device.
///
/// How: the file's newest bytes, from the block-aligned `tailStart` to its end, are in a
/// page-aligned buffer lent by the take's `DirectWriteQueue` while the disk writer is at this
/// file. When the buffer fills, and when the writer's turn at the file ends (`endTurn`), its
/// whole blocks go to the disk through the queue, taking the buffer with them, and the partial
/// block left over (less than 4 KiB) waits in the file's own `tail` until the next turn. Before
/// each header rewrite the whole blocks go too (`writeBeforeHeader`). libsndfile's header rewrites (seek to 0, write,
/// seek back) land in an in-memory copy of the file's first `headCapacity` bytes, written back
/// aligned by `commitHead`; a write anywhere else already on the disk is read, changed and
/// written back in whole blocks. At the end the file is cut at its last whole block and the
/// partial block written after it through the page cache.
///
/// Space is allocated ahead of the writes (`allocateAhead`), moving the file's end past its
/// length until the end cuts it back: a write inside the file is one ext4 issues at once from
/// io_uring's submission, where an append goes to io_uring's worker threads first (BENCHMARKS.md:
/// 512 mono files took 0.13–0.16 s of CPU instead of 0.30–0.35 s). The file system reports the allocated
/// space as unwritten (FIEMAP; checked once a take, at the first allocation, and where it does not, none is
/// allocated), which is how a repair tells it from the audio.
///
/// What is on the disk at any moment: the newest header and every frame it declares, then
/// perhaps whole blocks written since, then the space allocated ahead. So a killed take's file
/// opens and reads as its header says, and `TakeFileRepair` cuts off the space never written and
/// makes its header declare the frames it holds (not the padding of its last block). Appended
/// to (no space allocated ahead), the disk holds every frame the header declares but those of
/// the last partial block, and the file ends at its last whole block, so a reader stops there.
final class DirectFile {
    /// The alignment of every write: offsets, lengths and buffers. 4 KiB serves every disk's
    /// logical block (512 bytes or 4 KiB).
    static let blockSize = 4_096
    /// The first bytes, kept in memory for header rewrites: room for a WAV header with bext,
    /// iXML and the RF64 reservation. A longer header is rewritten by read-modify-write.
    static let headCapacity = 8_192
    /// Space allocated past the last write at least, and at most: the allocation doubles from
    /// the least as the file grows, up to the queue's most (`DirectWriteQueue.mostAllocatedAhead`:
    /// 64 MiB for a few files, less for many), so a mono track allocates a few times a take and
    /// a 1024-channel file (196 MB a second) three times a second, and a killed take leaves at
    /// most this much unwritten space for its repair to cut off.
    static let leastAllocatedAhead: Int64 = 1 << 20
    static let mostAllocatedAhead: Int64 = 64 << 20

    let descriptor: Int32
    let path: String
    let queue: DirectWriteQueue
    /// The pool buffer holding the bytes from `tailStart` to the end while the writer is at this
    /// file; nil between its turns, when those bytes (less than a block) are in `tail`.
    private var buffer: DirectBuffer?
    /// The last partial block between turns, and the block sent padded.
    private let tail: UnsafeMutableRawPointer
    private let head: UnsafeMutableRawPointer
    /// This file's writes on their way to the disk.
    private var inFlight: [(tag: Int, offset: Int64, length: Int)] = []
    /// A write from `tail`, or from `head`, is on its way: that memory waits for it.
    private var tailBusy = false
    private var headBusy = false
    /// Head bytes changed since they were last written, [lower, upper).
    private var headDirty: (lower: Int, upper: Int)?
    /// The file's logical length and libsndfile's position in it.
    private(set) var length: Int64 = 0
    private var position: Int64 = 0
    /// Every byte before this is on the disk (or on its way); the bytes from here are in the
    /// buffer, or in `tail`.
    private var tailStart: Int64 = 0 { didSet { countAllocatedAhead() } }
    /// The file's end on the disk while space is allocated ahead of the writes (past `length`);
    /// nil when the file system refused an allocation or does not report it as unwritten.
    private var allocatedEnd: Int64? = 0 { didSet { countAllocatedAhead() } }
    /// This file's share of the queue's `allocatedAhead`: from its end (`length`, the bytes not
    /// yet sent included) to `allocatedEnd`, as of the last send or allocation.
    private var countedAhead: Int64 = 0
    /// Where a block was last written padded: written, with the space after it unwritten.
    private var paddedBlock: Int64?
    /// The first failed write's errno (0: none): later writes are refused.
    private(set) var errorNumber: Int32 = 0
    /// The file holds everything before this: where the first failed write began (or how far a
    /// short one got).
    private var failedAt: Int64 = .max
    private var finished = false

    /// A file on `descriptor`, opened with O_DIRECT (and O_RDWR, for a read-modify-write).
    init(descriptor: Int32, path: String, queue: DirectWriteQueue) {
        self.descriptor = descriptor
        self.path = path
        self.queue = queue
        tail = .allocate(byteCount: Self.blockSize, alignment: Self.blockSize)
        head = .allocate(byteCount: Self.headCapacity, alignment: Self.blockSize)
        head.initializeMemory(as: UInt8.self, repeating: 0, count: Self.headCapacity)
    }

    deinit {
        // Unfinished (a failed open): no memory is freed while the kernel may still read it.
        queue.wait { inFlight.isEmpty }
        queue.allocatedAhead.wrappingDecrement(by: countedAhead, ordering: .relaxed)
        if let buffer { queue.returnBuffer(buffer) }
        if !finished { Glibc.close(descriptor) }
        tail.deallocate()
        head.deallocate()
    }

    /// Keeps the queue's count of space allocated ahead (the take's, for its disk watch) up to
    /// date with this file's: none once it is finished.
    private func countAllocatedAhead() {
        let ahead = finished ? 0 : max(0, (allocatedEnd ?? 0) - max(tailStart, length))
        guard ahead != countedAhead else { return }
        queue.allocatedAhead.wrappingIncrement(by: ahead - countedAhead, ordering: .relaxed)
        countedAhead = ahead
    }

    // MARK: libsndfile's calls (SF_VIRTUAL_IO)

    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let base: Int64 = switch whence {
        case SEEK_CUR: position
        case SEEK_END: length
        default: 0
        }
        guard base + offset >= 0 else { return -1 }
        position = base + offset
        return position
    }

    var tell: Int64 { position }

    /// Writes `count` bytes at the position; returns how many were taken (fewer once a write to
    /// the disk has failed).
    func write(_ source: UnsafeRawPointer, count: Int) -> Int {
        var done = 0
        while done < count && errorNumber == 0 {
            let at = position
            var taken = 0
            if at < tailStart {
                taken = min(count - done, Int(tailStart - at))
                guard patchWritten(at: at, from: source + done, count: taken) else { break }
            } else if buffer == nil && Int(at - tailStart) + count - done < Self.blockSize {
                // Inside the partial block kept between turns (a header written before the first
                // frame, a chunk added): no buffer is taken for it.
                queue.wait { !tailBusy }
                let offset = Int(at - tailStart)
                let filled = Int(length - tailStart)
                if offset > filled {
                    tail.advanced(by: filled).initializeMemory(as: UInt8.self, repeating: 0, count: offset - filled)
                }
                taken = count - done
                tail.advanced(by: offset).copyMemory(from: source + done, byteCount: taken)
                length = max(length, at + Int64(taken))
            } else {
                let bytes = takeBuffer()
                let capacity = queue.bufferSize
                let offset = Int(at - tailStart)
                let filled = Int(length - tailStart)
                if at > length {
                    // Past the end: the gap reads as zeros, as in any file.
                    let zeros = min(offset, capacity) - filled
                    bytes.advanced(by: filled).initializeMemory(as: UInt8.self, repeating: 0, count: zeros)
                    length += Int64(zeros)
                }
                if offset >= capacity {
                    sendWholeBlocks()
                    continue
                }
                taken = min(count - done, capacity - offset)
                // Gathered in place (`appendRoom`): the bytes are already where they go.
                let destination = bytes.advanced(by: offset)
                if UnsafeRawPointer(destination) != source + done {
                    destination.copyMemory(from: source + done, byteCount: taken)
                }
                length = max(length, at + Int64(taken))
                if Int(length - tailStart) == capacity { sendWholeBlocks() }
            }
            position = at + Int64(taken)
            done += taken
        }
        return done
    }

    /// Room for at most `bytes` at the file's end, in the buffer they will go to the disk from,
    /// for a writer to gather frames into in place and then write from there: `write` finds them
    /// where they go and copies nothing (a whole copy of the take saved). Nil where a write would
    /// not land there: the position is not the file's end, or is in the first `headCapacity`
    /// bytes (which header rewrites share), or a write to the disk has failed. The room is the
    /// buffer's until the next call of any other method.
    func appendRoom(atMost bytes: Int) -> UnsafeMutableRawBufferPointer? {
        guard errorNumber == 0, position == length, length >= Int64(Self.headCapacity) else { return nil }
        let start = takeBuffer()
        let offset = Int(length - tailStart)
        let room = min(bytes, queue.bufferSize - offset)
        guard room > 0 else { return nil }
        return UnsafeMutableRawBufferPointer(start: start + offset, count: room)
    }

    /// The buffer the bytes from `tailStart` are in: taken from the pool at the start of a turn,
    /// with the partial block kept since the last one.
    private func takeBuffer() -> UnsafeMutableRawPointer {
        if let buffer { return buffer.bytes }
        let taken = queue.takeBuffer()
        taken.bytes.copyMemory(from: tail, byteCount: Int(length - tailStart))
        buffer = taken
        return taken.bytes
    }

    /// Reads up to `count` bytes at the position (libsndfile rarely reads a file it writes).
    func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        let end = min(length, position + Int64(count))
        guard end > position else { return 0 }
        var at = position
        while at < end {
            let taken: Int
            if at >= tailStart {
                taken = Int(end - at)
                destination.advanced(by: Int(at - position)).copyMemory(from: (buffer?.bytes ?? tail) + Int(at - tailStart), byteCount: taken)
            } else {
                taken = Int(min(end, tailStart) - at)
                guard readWritten(at: at, into: destination.advanced(by: Int(at - position)), count: taken) else { break }
            }
            at += Int64(taken)
        }
        let read = Int(at - position)
        position = at
        return read
    }

    // MARK: Writing back

    /// Sends the buffer's whole blocks to the disk (the buffer goes with them, or back to the
    /// pool when there are none) and keeps the partial block left over in `tail`. With `padded`
    /// (before a header rewrite, at the file's creation and before a commit), that partial block
    /// goes too, padded with zeros.
    func writeBack(padded: Bool = false) {
        if buffer != nil { return sendWholeBlocks(padded: padded) }
        let partial = Int(length - tailStart)
        guard padded, partial > 0, errorNumber == 0 else { return }
        // Bytes appended while this is written land past the file's end: cut off again, or
        // rewritten once the block is whole. (The tail's last write must have ended first.)
        queue.wait { !tailBusy }
        tail.advanced(by: partial).initializeMemory(as: UInt8.self, repeating: 0, count: Self.blockSize - partial)
        send(tail, buffer: nil, bytes: Self.blockSize)
        paddedBlock = tailStart
    }

    /// Before a header rewrite: the whole blocks, and while space is allocated ahead (the file's
    /// end on the disk is past its frames, so a reader goes by the header alone) the partial
    /// block with them, padded, so that the disk holds every frame the header declares. A file
    /// appended to ends on the disk at its last whole block, where a reader stops.
    func writeBeforeHeader() { writeBack(padded: allocatedEnd != nil) }

    /// The writer's turn at this file has ended: its whole blocks go to the disk and its buffer
    /// back to the pool, so that a take of many files holds one partial block each between turns.
    func endTurn() { sendWholeBlocks() }

    /// Sends the whole blocks of the buffer, and moves the partial block left over to `tail`;
    /// with `padded`, the partial block goes in the same write, padded with zeros (one write for
    /// a turn that ends in a header rewrite, not two), and is sent again once it is whole.
    private func sendWholeBlocks(padded: Bool = false) {
        guard let held = buffer else { return }
        buffer = nil
        guard errorNumber == 0 else {
            queue.returnBuffer(held)
            return
        }
        let filled = Int(length - tailStart)
        let whole = filled / Self.blockSize * Self.blockSize
        // `tail` may be on its way to the disk (a block sent padded).
        queue.wait { !tailBusy }
        tail.copyMemory(from: held.bytes + whole, byteCount: filled - whole)
        let sent = padded && filled > whole ? whole + Self.blockSize : whole
        guard sent > 0 else {
            queue.returnBuffer(held)
            return
        }
        if sent > filled { held.bytes.advanced(by: filled).initializeMemory(as: UInt8.self, repeating: 0, count: sent - filled) }
        send(held.bytes, buffer: held, bytes: sent)
        tailStart += Int64(whole)
        if sent > whole { paddedBlock = tailStart }
    }

    /// Writes the first `bytes` of `memory` (a pool `buffer`'s, or `tail`) at `tailStart`,
    /// keeping the head's share.
    private func send(_ memory: UnsafeMutableRawPointer, buffer: DirectBuffer?, bytes: Int) {
        // A block sent padded is sent again whole later: only once its first write has ended,
        // or the older bytes could land last.
        let start = tailStart
        queue.wait { inFlight.allSatisfy { $0.offset + Int64($0.length) <= start } }
        let allocatedBefore = allocatedEnd
        allocateAhead(past: tailStart + Int64(bytes))
        if tailStart < Int64(Self.headCapacity) {
            let headBytes = min(bytes, Self.headCapacity - Int(tailStart))
            queue.wait { !headBusy }
            (head + Int(tailStart)).copyMemory(from: memory, byteCount: headBytes)
        }
        // ext4 issues a write at once only if it lies in one extent, all written space or all
        // allocated-unwritten space; one that does not goes to io_uring's workers. So a block
        // written padded goes alone (a write starting in it and running on into unwritten space:
        // a fifth of a session's writes were), and a write running from the space allocated
        // before into the space allocated now is cut where they meet (two allocations of a file
        // among 1024 are seldom one extent on the disk: each file's writes went to a worker once
        // a second at the first doubling).
        let paddedCut = paddedBlock == tailStart && bytes > Self.blockSize ? Self.blockSize : 0
        var allocationCut = 0
        if let before = allocatedBefore, allocatedEnd != before, before % Int64(Self.blockSize) == 0,
           case let cut = Int(before - tailStart), cut > paddedCut, cut < bytes {
            allocationCut = cut
        }
        var from = 0
        for cut in [paddedCut, allocationCut, bytes] where cut > from {
            queue.write(self, buffer: buffer, from: memory + from, length: cut - from, at: tailStart + Int64(from))
            from = cut
        }
        paddedBlock = nil
    }

    /// Allocates space (fallocate(2), which moves the file's end) so that the file reaches past
    /// `end`, when it does not yet. The first allocation (the header's block, at the file's
    /// creation) is checked to be reported unwritten, which is how a repair tells the space
    /// never written (`jcap_unwritten_tail`); on a file system where it is not, and once an
    /// allocation is refused (a full disk, a size limit), the file is written by appending.
    private func allocateAhead(past end: Int64) {
        guard let allocated = allocatedEnd, end > allocated else { return }
        if queue.reportsUnwrittenSpace == false {
            allocatedEnd = nil
            return
        }
        let step = min(queue.mostAllocatedAhead, max(Self.leastAllocatedAhead, allocated))
        let newEnd = (end + step) / Int64(Self.blockSize) * Int64(Self.blockSize)
        guard jcap_allocate(descriptor, allocated, newEnd - allocated) == 0 else {
            allocatedEnd = nil
            return
        }
        if queue.reportsUnwrittenSpace == nil {
            // The new space starts at the block after the file's last byte (the header's block,
            // written through the page cache at the creation, is not unwritten). One file's
            // answer holds for the take's others: they are in one folder.
            let firstNew = (allocated + Int64(Self.blockSize) - 1) / Int64(Self.blockSize) * Int64(Self.blockSize)
            let reported = jcap_unwritten_tail(descriptor, newEnd, newEnd - firstNew) == firstNew
            queue.reportsUnwrittenSpace = reported
            if !reported {
                queue.wait { inFlight.isEmpty }
                _ = ftruncate(descriptor, off_t(allocated))
                allocatedEnd = nil
                return
            }
        }
        allocatedEnd = newEnd
    }

    /// Writes the head bytes libsndfile changed (a header rewrite) to the disk, aligned.
    func commitHead() {
        guard let dirty = headDirty, errorNumber == 0 else { return }
        headDirty = nil
        let lower = dirty.lower / Self.blockSize * Self.blockSize
        let upper = min((dirty.upper + Self.blockSize - 1) / Self.blockSize * Self.blockSize, Self.headCapacity)
        // After any outstanding write of the same blocks, or the older bytes could land last.
        queue.wait { inFlight.allSatisfy { $0.offset >= Int64(upper) } }
        queue.write(self, buffer: nil, from: head + lower, length: upper - lower, at: Int64(lower))
    }

    /// A write into bytes already sent to the disk: into the head copy, or read-modify-write.
    private func patchWritten(at offset: Int64, from source: UnsafeRawPointer, count: Int) -> Bool {
        let end = Int(offset) + count
        if end <= Self.headCapacity {
            // libsndfile rewrites the whole header each time: bytes it leaves as they were (its
            // rewrite at the close, after the writer's own) cost no write and no wait.
            if memcmp(head + Int(offset), source, count) == 0 { return true }
            queue.wait { !headBusy }
            (head + Int(offset)).copyMemory(from: source, byteCount: count)
            headDirty = (min(headDirty?.lower ?? Int(offset), Int(offset)), max(headDirty?.upper ?? end, end))
            return true
        }
        queue.wait { inFlight.isEmpty }
        return withAlignedBlocks(around: offset, count: count) { blocks, start in
            (blocks + Int(offset - start)).copyMemory(from: source, byteCount: count)
            return pwriteAll(blocks, count: alignedCount(offset: offset, count: count), at: start)
        }
    }

    /// Reads bytes already sent to the disk (from the head copy where it has them).
    private func readWritten(at offset: Int64, into destination: UnsafeMutableRawPointer, count: Int) -> Bool {
        if Int(offset) + count <= Self.headCapacity {
            destination.copyMemory(from: head + Int(offset), byteCount: count)
            return true
        }
        queue.wait { inFlight.isEmpty }
        return withAlignedBlocks(around: offset, count: count) { blocks, start in
            destination.copyMemory(from: blocks + Int(offset - start), byteCount: count)
            return true
        }
    }

    private func alignedCount(offset: Int64, count: Int) -> Int {
        let start = offset / Int64(Self.blockSize) * Int64(Self.blockSize)
        let end = (offset + Int64(count) + Int64(Self.blockSize) - 1) / Int64(Self.blockSize) * Int64(Self.blockSize)
        return Int(end - start)
    }

    /// The whole blocks around [offset, offset + count), read from the disk into an aligned
    /// buffer (the head copy's share laid over them), for `body`.
    private func withAlignedBlocks(around offset: Int64, count: Int,
                                   _ body: (UnsafeMutableRawPointer, Int64) -> Bool) -> Bool {
        let start = offset / Int64(Self.blockSize) * Int64(Self.blockSize)
        let bytes = alignedCount(offset: offset, count: count)
        let blocks = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: Self.blockSize)
        defer { blocks.deallocate() }
        var read = 0
        while read < bytes {
            let result = pread(descriptor, blocks + read, bytes - read, off_t(start) + off_t(read))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                if result < 0 { fail(errno: errno, at: start) }
                break
            }
            read += result
        }
        guard errorNumber == 0 else { return false }
        blocks.advanced(by: read).initializeMemory(as: UInt8.self, repeating: 0, count: bytes - read)
        if start < Int64(Self.headCapacity) {
            let shared = min(bytes, Self.headCapacity - Int(start))
            blocks.copyMemory(from: head + Int(start), byteCount: shared)
        }
        let result = body(blocks, start)
        if start < Int64(Self.headCapacity) {
            let shared = min(bytes, Self.headCapacity - Int(start))
            (head + Int(start)).copyMemory(from: blocks, byteCount: shared)
        }
        return result
    }

    private func pwriteAll(_ bytes: UnsafeRawPointer, count: Int, at offset: Int64) -> Bool {
        var written = 0
        while written < count {
            let result = pwrite(descriptor, bytes + written, count - written, off_t(offset) + off_t(written))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                fail(errno: result < 0 ? errno : ENOSPC, at: offset + Int64(written))
                return false
            }
            written += result
        }
        return true
    }

    /// Write `tag` of `length` bytes at `offset`, from `source`, is on its way.
    func started(tag: Int, source: UnsafeRawPointer, offset: Int64, length: Int) {
        inFlight.append((tag, offset, length))
        if source == UnsafeRawPointer(tail) { tailBusy = true } else if isHead(source) { headBusy = true }
    }

    /// Write `tag` ended: `result` bytes written, or -errno.
    func completed(tag: Int, source: UnsafeRawPointer, offset: Int64, length: Int, result: Int) {
        inFlight.removeAll { $0.tag == tag }
        var written = max(0, result)
        var code = result < 0 ? Int32(-result) : 0
        if written < length && (code == 0 || code == EINVAL) {
            // Cut short (a full disk, RLIMIT_FSIZE, a quota), or refused by O_DIRECT because the
            // kernel cut it to a length that is not whole blocks: the rest written again through
            // the page cache, which fails (or not) for the real reason, the one reported.
            let (more, reason) = writeThroughPageCache(source + written, count: length - written,
                                                       at: offset + Int64(written))
            written += more
            code = reason
        }
        if source == UnsafeRawPointer(tail) { tailBusy = false } else if isHead(source) { headBusy = false }
        if written < length { fail(errno: code == 0 ? ENOSPC : code, at: offset + Int64(written)) }
    }

    private func isHead(_ source: UnsafeRawPointer) -> Bool {
        source >= UnsafeRawPointer(head) && source < UnsafeRawPointer(head) + Self.headCapacity
    }

    /// pwrite(2) with O_DIRECT turned off for the call: the bytes written, and why it stopped
    /// short (ENOSPC for a write that wrote nothing and said nothing).
    private func writeThroughPageCache(_ source: UnsafeRawPointer, count: Int, at offset: Int64) -> (Int, Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags & ~jcap_open_direct)
        defer { _ = fcntl(descriptor, F_SETFL, flags) }
        var written = 0
        while written < count {
            let result = pwrite(descriptor, source + written, count - written, off_t(offset) + off_t(written))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return (written, result < 0 ? errno : ENOSPC) }
            written += result
        }
        return (written, 0)
    }

    private func fail(errno code: Int32, at offset: Int64) {
        if errorNumber == 0 { errorNumber = code }
        failedAt = min(failedAt, offset)
    }

    /// Sends everything written so far to the disk, the partial last block padded, and the
    /// head's changes, before a commit to the disk (`syncfs`) of a header that declares frames;
    /// `waitForEverything` then waits. Two steps, so that a take's files all send theirs before
    /// any waits: one after the other, 1024 files waited for the disk 1024 times. Space allocated
    /// ahead stays, as it does mid-take: the header declares frames, a reader goes by it, and a
    /// repair cuts the space never written. (A cut inside a block costs ext4 a read of the block,
    /// at once, to zero what follows the cut: a commit of 512 files cut them all, 512 synchronous
    /// reads in the middle of a take.)
    func writeEverything() {
        writeBack(padded: true)
        commitHead()
    }

    /// Waits for the file's writes. A file appended to is then cut back to its length (the
    /// padded block reached past it). Returns the first failure's errno, 0 when none.
    func waitForEverything() -> Int32 {
        queue.wait { inFlight.isEmpty }
        guard allocatedEnd == nil, errorNumber == 0 else { return errorNumber }
        if ftruncate(descriptor, off_t(length)) != 0 { errorNumber = errno }
        return errorNumber
    }

    /// Waits for the file's writes on their way (those of the take's other files too, as they end).
    func waitForWrites() {
        queue.wait { inFlight.isEmpty }
    }

    /// At the file's creation: what libsndfile has written (the header) goes to the file through
    /// the page cache, a write past the file's end that reads nothing, so a new file is its header
    /// alone, as a buffered file's is, and a full disk is found here, before the take. Nothing
    /// waits for the disk and no space is allocated yet: written around the page cache and cut
    /// back to the header, each of 1024 files cost a write and a wait, and a cut inside the
    /// header's block that ext4 made by reading that block back at once. The header's block goes
    /// to the disk again, whole, with the first frames (a block written, as after a padded
    /// write). Returns the failure's errno, 0 when none.
    func writeHeaderAtCreation() -> Int32 {
        guard tailStart == 0, length > 0, errorNumber == 0 else { return errorNumber }
        let bytes = buffer?.bytes ?? UnsafeMutableRawPointer(tail)
        let count = Int(length)
        head.copyMemory(from: bytes, byteCount: min(count, Self.headCapacity))
        let (written, reason) = writeThroughPageCache(bytes, count: count, at: 0)
        if written < count { fail(errno: reason == 0 ? ENOSPC : reason, at: Int64(written)) }
        if allocatedEnd != nil { allocatedEnd = length }
        paddedBlock = 0
        return errorNumber
    }

    // MARK: Finishing

    /// Writes the whole blocks, waits for every write, cuts the file at its last whole block (a
    /// cut on a block boundary, which ext4 makes without reading anything back), writes the last
    /// partial block after it through the page cache (a write past the file's end, which reads
    /// nothing either) and closes the file. After a failed write the file is cut to what it holds
    /// instead. Returns the first failure's errno, 0 when none.
    func finish() -> Int32 {
        guard !finished else { return errorNumber }
        finished = true
        countAllocatedAhead()
        writeBack()
        commitHead()
        queue.wait { inFlight.isEmpty }
        if errorNumber == 0 {
            if ftruncate(descriptor, off_t(tailStart)) != 0 {
                fail(errno: errno, at: tailStart)
            } else if length > tailStart {
                let count = Int(length - tailStart)
                let (written, reason) = writeThroughPageCache(tail, count: count, at: tailStart)
                if written < count { fail(errno: reason, at: tailStart + Int64(written)) }
            }
        }
        if errorNumber != 0 { _ = ftruncate(descriptor, off_t(min(length, failedAt))) }
        Glibc.close(descriptor)
        return errorNumber
    }

    // MARK: The virtual I/O table

    /// libsndfile's table of calls (it copies the table at open); user data is the DirectFile,
    /// unretained (its SoundFile keeps it).
    static let virtualIO = SF_VIRTUAL_IO(
        get_filelen: { data in DirectFile.with(data) { $0.length } },
        seek: { offset, whence, data in DirectFile.with(data) { $0.seek(offset, whence: whence) } },
        read: { destination, count, data in
            guard let destination else { return 0 }
            return sf_count_t(DirectFile.with(data) { $0.read(into: destination, count: Int(count)) })
        },
        write: { source, count, data in
            guard let source else { return 0 }
            return sf_count_t(DirectFile.with(data) { $0.write(source, count: Int(count)) })
        },
        tell: { data in DirectFile.with(data) { $0.tell } })

    /// `body` on the file libsndfile's call is for, with no retain and release around it: a
    /// 512-file take makes hundreds of thousands of these calls (2.6 % of its CPU was the count).
    private static func with<Result>(_ data: UnsafeMutableRawPointer?, _ body: (DirectFile) -> Result) -> Result {
        Unmanaged<DirectFile>.fromOpaque(data!)._withUnsafeGuaranteedRef(body)
    }
}
