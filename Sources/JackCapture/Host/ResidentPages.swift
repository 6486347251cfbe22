import CLinux
import Glibc

/// Pages the real-time thread touches, mapped and resident before it runs: locked (mlock(2))
/// where the process may, otherwise (or where the lock faulted nothing in) faulted in
/// (MADV_POPULATE_WRITE, or one write to each page on a kernel without it), which is what
/// matters on a machine without swap. Fresh anonymous pages
/// are zero already, so nothing is written over them: zeroing a heap allocation and then locking
/// it touched each page twice (0.17–0.20 s for a 393 MB ring against 0.11 s, BENCHMARKS.md).
package struct ResidentPages: @unchecked Sendable {
    package let start: UnsafeMutableRawPointer
    package let byteCount: Int
    /// The pages are locked in memory (mlock succeeded).
    package let isLocked: Bool

    /// Maps `byteCount` bytes (above zero) of zeroed pages. `lock` false skips mlock(2), for a
    /// test of the path taken without the privilege. A mapping that fails aborts: whether this
    /// machine can hold it is checked before (`MemoryBudget`).
    package init(byteCount: Int, lock: Bool = true) {
        precondition(byteCount > 0, "a mapping needs at least one byte")
        let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else {
            fatalError("mmap of \(byteCount) bytes failed: errno \(errno)")
        }
        start = address
        self.byteCount = byteCount
        isLocked = lock && mlock(address, byteCount) == 0
        if !isLocked || !ResidentPages.endsAreResident(address, byteCount) {
            ResidentPages.populate(address, byteCount)
        }
    }

    /// Whether the first and the last page are resident (mincore(2)). mlock(2) faults every page
    /// in, except where it is not what it says: the sanitizers' runtimes (ThreadSanitizer's)
    /// replace it with one that does nothing and returns 0.
    private static func endsAreResident(_ address: UnsafeMutableRawPointer, _ byteCount: Int) -> Bool {
        let page = Int(getpagesize())
        var resident: UInt8 = 0
        for offset in [0, (byteCount - 1) / page * page] {
            guard mincore(address + offset, 1, &resident) == 0, resident & 1 != 0 else { return false }
        }
        return true
    }

    private static func populate(_ address: UnsafeMutableRawPointer, _ byteCount: Int) {
        if jcap_populate_for_writing(address, byteCount) != 0 {
            let page = Int(getpagesize())
            for offset in stride(from: 0, to: byteCount, by: page) {
                address.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            }
        }
    }

    /// Unmaps the pages (which unlocks them).
    package func release() {
        _ = munmap(start, byteCount)
    }
}
