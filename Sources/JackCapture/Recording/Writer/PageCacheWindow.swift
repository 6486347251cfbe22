/// Keeps the page cache a file being recorded occupies small, and its pages recycled.
///
/// Left alone, the kernel keeps every written page of a take in the page cache until it decides to
/// write it back (seconds later) and keeps the clean pages long after, so a take of 1024 channels
/// takes 196 MB of fresh pages a second. Taking a page the system has not used lately is the
/// costly part of write(2): in this project's virtual machine the host returns free guest memory
/// to itself, and the first touch of each such page faults on the host (measured: a plain 2 GB
/// write costs 4.9 s of system time, the same write recycling its pages 0.6 s; BENCHMARKS.md),
/// and all of it runs in the kernel, where, on a kernel without preemption, the real-time threads
/// waiting for that CPU wait too.
///
/// So the writer starts writeback of each `chunk` as soon as it is written
/// (sync_file_range(SYNC_FILE_RANGE_WRITE), which does not wait), and once writeback of a range
/// `lag` behind the end is done it drops those pages (sync_file_range with both waits, then
/// posix_fadvise(POSIX_FADV_DONTNEED)): the file's footprint stays about `lag + chunk`, and the
/// pages freed are the next ones the kernel hands out. Waiting there only waits when the disk is
/// slower than the take, which the ring absorbs as it absorbs any slow disk. The first `head`
/// bytes stay cached: the header, rewritten twice a second, never has to be read back.
///
/// This is the decision alone, a pure value, tested by itself; `SoundFile` makes the calls.
package struct PageCacheWindow: Equatable, Sendable {
    /// What to do after a write that brought the file to some length.
    package struct Step: Equatable, Sendable {
        /// Start writeback of these bytes, without waiting.
        package var startWriteback: Range<Int64>?
        /// Wait for writeback of these bytes, then drop them from the page cache.
        package var release: Range<Int64>?
    }

    package static let pageSize: Int64 = 4_096
    /// The least `chunk` and `lag`: a page-cache budget shared by very many files (one per track
    /// of 1024 channels) still writes back in runs of several pages.
    package static let smallestChunk: Int64 = 64 * 1_024

    package let chunk: Int64
    package let lag: Int64
    package let head: Int64
    /// Writeback is started for every byte before this.
    package private(set) var writebackStarted: Int64
    /// Every byte from `head` to this has been dropped from the page cache.
    package private(set) var released: Int64

    /// A window for one of `files` files written at once, sharing `budget` bytes of page cache.
    package init(sharing budget: Int64 = 64 << 20, files: Int = 1, head: Int64 = 64 * 1_024) {
        let share = budget / Int64(max(1, files))
        let lag = max(Self.smallestChunk, min(32 << 20, Self.pageAligned(share / 2)))
        self.init(chunk: max(Self.smallestChunk, min(1 << 20, Self.pageAligned(lag / 8))), lag: lag, head: head)
    }

    package init(chunk: Int64, lag: Int64, head: Int64) {
        precondition(chunk > 0 && lag >= 0 && head >= 0, "a page-cache window has a positive chunk")
        self.chunk = chunk
        self.lag = lag
        // Rounded up: a partial page of the head stays cached with the rest of it.
        self.head = Self.pageAligned(head + Self.pageSize - 1)
        writebackStarted = 0
        released = self.head
    }

    /// The file is now `length` bytes long: what to start and what to drop.
    package mutating func advance(to length: Int64) -> Step {
        var step = Step()
        if length - writebackStarted >= chunk {
            step.startWriteback = writebackStarted..<length
            writebackStarted = length
        }
        let releasable = Self.pageAligned(writebackStarted - lag)
        if releasable - released >= chunk {
            step.release = released..<releasable
            released = releasable
        }
        return step
    }

    /// `bytes` rounded down to a whole page: posix_fadvise drops only whole pages.
    static func pageAligned(_ bytes: Int64) -> Int64 { max(0, bytes / pageSize * pageSize) }
}
