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
/// How: the file's newest bytes, from the block-aligned `tailStart` to its end, are in one of two
/// page-aligned buffers. When the buffer fills, its whole blocks go to the disk through the take's
/// `DirectWriteQueue`, and the partial block left over moves to the other buffer, which takes the
/// next bytes while the first is written. Before each header rewrite the whole blocks go too. libsndfile's header rewrites (seek to 0, write, seek back) land in an
/// in-memory copy of the file's first `headCapacity` bytes, written back aligned by `commitHead`;
/// a write anywhere else already on the disk is read, changed and written back in whole blocks.
/// At the end the last partial block is written padded and the file truncated to its length.
///
/// What is on the disk at any moment: the newest header, and every frame it declares but those of
/// the last partial block (less than 4 KiB, which stays in memory: written padded, a killed
/// take's file would end in zeros that a repair would count as frames). So a killed take's file
/// opens, and `TakeFileRepair` makes its header declare exactly the whole frames it holds.
final class DirectFile {
    /// The alignment of every write: offsets, lengths and buffers. 4 KiB serves every disk's
    /// logical block (512 bytes or 4 KiB).
    static let blockSize = 4_096
    /// The first bytes, kept in memory for header rewrites: room for a WAV header with bext,
    /// iXML and the RF64 reservation. A longer header is rewritten by read-modify-write.
    static let headCapacity = 8_192

    let descriptor: Int32
    let path: String
    let queue: DirectWriteQueue
    /// Bytes in each of the two buffers: a multiple of `blockSize`.
    let capacity: Int
    private let buffers: (UnsafeMutableRawPointer, UnsafeMutableRawPointer)
    private let head: UnsafeMutableRawPointer
    /// Slots 0 and 1: the buffers; 2: the head copy. The bytes each slot has outstanding.
    private var outstanding: [(offset: Int64, length: Int)?] = [nil, nil, nil]
    private static let headSlot = 2
    /// The buffer taking bytes now.
    private var current = 0
    /// Head bytes changed since they were last written, [lower, upper).
    private var headDirty: (lower: Int, upper: Int)?
    /// The file's logical length and libsndfile's position in it.
    private(set) var length: Int64 = 0
    private var position: Int64 = 0
    /// Every byte before this is on the disk (or outstanding); the bytes from here are in the
    /// current buffer.
    private var tailStart: Int64 = 0
    /// The first failed write's errno (0: none): later writes are refused.
    private(set) var errorNumber: Int32 = 0
    /// The file holds everything before this: where the first failed write began (or how far a
    /// short one got).
    private var failedAt: Int64 = .max
    private var finished = false

    /// Per-buffer bytes for one of `files` files written at once: 64 MiB shared, 16 KiB to
    /// 2 MiB each, whole blocks. With two buffers and the head copy, 1024 files take 136 MiB
    /// (beside a ring of 768 MiB), one file 4 MiB. Each write to the disk costs the kernel about
    /// as much whatever its size (BENCHMARKS.md: 1024 files written in 16 KiB blocks cost 2.7 s
    /// more system time in a 10 s take than in 64 KiB blocks), so this is memory spent to save CPU.
    static func bufferCapacity(files: Int) -> Int {
        let share = (64 << 20) / max(1, files) / blockSize * blockSize
        return min(2 << 20, max(16 << 10, share))
    }

    /// A file on `descriptor`, opened with O_DIRECT (and O_RDWR, for a read-modify-write).
    init(descriptor: Int32, path: String, queue: DirectWriteQueue, files: Int) {
        self.descriptor = descriptor
        self.path = path
        self.queue = queue
        capacity = Self.bufferCapacity(files: files)
        buffers = (.allocate(byteCount: capacity, alignment: Self.blockSize),
                   .allocate(byteCount: capacity, alignment: Self.blockSize))
        head = .allocate(byteCount: Self.headCapacity, alignment: Self.blockSize)
        head.initializeMemory(as: UInt8.self, repeating: 0, count: Self.headCapacity)
    }

    deinit {
        // Unfinished (a failed open): no buffer is freed while the kernel may still read it.
        queue.wait { outstanding.allSatisfy { $0 == nil } }
        if !finished { Glibc.close(descriptor) }
        buffers.0.deallocate()
        buffers.1.deallocate()
        head.deallocate()
    }

    private func buffer(_ index: Int) -> UnsafeMutableRawPointer { index == 0 ? buffers.0 : buffers.1 }

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
            } else {
                let offset = Int(at - tailStart)
                let filled = Int(length - tailStart)
                if at > length {
                    // Past the end: the gap reads as zeros, as in any file.
                    let zeros = min(offset, capacity) - filled
                    buffer(current).advanced(by: filled).initializeMemory(as: UInt8.self, repeating: 0, count: zeros)
                    length += Int64(zeros)
                }
                if offset >= capacity {
                    writeBack()
                    continue
                }
                taken = min(count - done, capacity - offset)
                buffer(current).advanced(by: offset).copyMemory(from: source + done, byteCount: taken)
                length = max(length, at + Int64(taken))
                if Int(length - tailStart) == capacity { writeBack() }
            }
            position = at + Int64(taken)
            done += taken
        }
        return done
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
                destination.advanced(by: Int(at - position)).copyMemory(from: buffer(current) + Int(at - tailStart), byteCount: taken)
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

    /// Sends the current buffer's whole blocks to the disk, and goes on in the other buffer with
    /// the partial block left over. With `padded` (at the file's creation, before a commit and at
    /// its end, each followed by a truncation to its length), that partial block goes too, padded
    /// with zeros.
    func writeBack(padded: Bool = false) {
        guard errorNumber == 0 else { return }
        let filled = Int(length - tailStart)
        let whole = filled / Self.blockSize * Self.blockSize
        sendWhole(whole, of: filled)
        let partial = filled - whole
        if padded && partial > 0 {
            // Bytes appended while this is written land past the file's end: cut off again, or
            // rewritten once the block is whole.
            buffer(current).advanced(by: partial).initializeMemory(as: UInt8.self, repeating: 0, count: Self.blockSize - partial)
            send(slot: current, bytes: Self.blockSize)
        }
    }

    /// At the end of a pass of the writer: the current buffer's whole blocks go to the disk once
    /// they are `minimum` bytes or more, so that what a killed process or a full disk loses is
    /// that much of the file at most, not a header interval's worth.
    func writeBack(ifAtLeast minimum: Int) {
        guard errorNumber == 0 else { return }
        let filled = Int(length - tailStart)
        let whole = filled / Self.blockSize * Self.blockSize
        if whole >= minimum { sendWhole(whole, of: filled) }
    }

    /// Sends the first `whole` bytes of the current buffer's `filled`, and goes on in the other.
    private func sendWhole(_ whole: Int, of filled: Int) {
        guard whole > 0 else { return }
        send(slot: current, bytes: whole)
        let next = 1 - current
        queue.wait { outstanding[next] == nil }
        buffer(next).copyMemory(from: buffer(current) + whole, byteCount: filled - whole)
        current = next
        tailStart += Int64(whole)
    }

    /// Writes the first `bytes` of buffer `slot` at `tailStart`, keeping the head's share.
    private func send(slot: Int, bytes: Int) {
        // A buffer is written again only once its last write has ended (a block sent padded at
        // the creation is sent again whole): the older bytes never land last.
        queue.wait { outstanding[slot] == nil }
        if tailStart < Int64(Self.headCapacity) {
            let headBytes = min(bytes, Self.headCapacity - Int(tailStart))
            queue.wait { outstanding[Self.headSlot] == nil }
            (head + Int(tailStart)).copyMemory(from: buffer(slot), byteCount: headBytes)
        }
        outstanding[slot] = (tailStart, bytes)
        queue.write(self, slot: slot, from: buffer(slot), length: bytes, at: tailStart)
    }

    /// Writes the head bytes libsndfile changed (a header rewrite) to the disk, aligned.
    func commitHead() {
        guard let dirty = headDirty, errorNumber == 0 else { return }
        headDirty = nil
        let lower = dirty.lower / Self.blockSize * Self.blockSize
        let upper = min((dirty.upper + Self.blockSize - 1) / Self.blockSize * Self.blockSize, Self.headCapacity)
        // After any outstanding write of the same blocks from a buffer, or the older bytes could land last.
        queue.wait {
            outstanding.allSatisfy { write in write.map { $0.offset >= Int64(upper) } ?? true }
        }
        outstanding[Self.headSlot] = (Int64(lower), upper - lower)
        queue.write(self, slot: Self.headSlot, from: head + lower, length: upper - lower, at: Int64(lower))
    }

    /// A write into bytes already sent to the disk: into the head copy, or read-modify-write.
    private func patchWritten(at offset: Int64, from source: UnsafeRawPointer, count: Int) -> Bool {
        let end = Int(offset) + count
        if end <= Self.headCapacity {
            queue.wait { outstanding[Self.headSlot] == nil }
            (head + Int(offset)).copyMemory(from: source, byteCount: count)
            headDirty = (min(headDirty?.lower ?? Int(offset), Int(offset)), max(headDirty?.upper ?? end, end))
            return true
        }
        queue.wait { outstanding.allSatisfy { $0 == nil } }
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
        queue.wait { outstanding.allSatisfy { $0 == nil } }
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

    /// A write of `slot` ended: `result` bytes written, or -errno.
    func completed(slot: Int, result: Int) {
        guard let write = outstanding[slot] else { return }
        outstanding[slot] = nil
        var written = max(0, result)
        var code = result < 0 ? Int32(-result) : 0
        if written < write.length && (code == 0 || code == EINVAL) {
            // Cut short (a full disk, RLIMIT_FSIZE, a quota), or refused by O_DIRECT because the
            // kernel cut it to a length that is not whole blocks: the rest written again through
            // the page cache, which fails (or not) for the real reason, the one reported.
            let source = slot == Self.headSlot ? UnsafeRawPointer(head + Int(write.offset)) : UnsafeRawPointer(buffer(slot))
            let (more, reason) = writeThroughPageCache(source + written, count: write.length - written,
                                                       at: write.offset + Int64(written))
            written += more
            code = reason
        }
        if written < write.length { fail(errno: code == 0 ? ENOSPC : code, at: write.offset + Int64(written)) }
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

    /// Writes everything so far (the partial block padded), waits for it and cuts the padding
    /// off again: the header on the disk at the start, the file as long as it, as a buffered
    /// file's is; and everything written before a commit to the disk (`syncfs`). Returns the
    /// first failure's errno, 0 when none.
    func writeAndWait() -> Int32 {
        writeBack(padded: true)
        commitHead()
        queue.wait { outstanding.allSatisfy { $0 == nil } }
        if errorNumber == 0 && ftruncate(descriptor, off_t(length)) != 0 { errorNumber = errno }
        return errorNumber
    }

    // MARK: Finishing

    /// Writes the rest (the last partial block padded), waits for every write, truncates the
    /// file to its length (to what it holds, after a failed write) and closes it. Returns the
    /// first failure's errno, 0 when none.
    func finish() -> Int32 {
        guard !finished else { return errorNumber }
        finished = true
        writeBack(padded: true)
        commitHead()
        queue.wait { outstanding.allSatisfy { $0 == nil } }
        let end = min(length, failedAt)
        if ftruncate(descriptor, off_t(end)) != 0 && errorNumber == 0 { errorNumber = errno }
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
