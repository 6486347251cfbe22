import Glibc
import Testing
@testable import JackCapture

@Suite("Resident pages for the real-time thread")
struct ResidentPagesTests {
    /// Pages of the mapping not resident now, by mincore(2).
    func pagesNotResident(_ pages: ResidentPages) -> Int {
        let size = Int(sysconf(Int32(_SC_PAGESIZE)))
        let count = (pages.byteCount + size - 1) / size
        var vector = [UInt8](repeating: 0, count: count)
        let result = vector.withUnsafeMutableBufferPointer { mincore(pages.start, pages.byteCount, $0.baseAddress) }
        #expect(result == 0)
        return vector.filter { $0 & 1 == 0 }.count
    }

    @Test("every page is resident and zero, locked or not", arguments: [true, false])
    func everyPageIsResidentAndZero(lock: Bool) {
        let byteCount = 8 << 20 + 100
        let pages = ResidentPages(byteCount: byteCount, lock: lock)
        defer { pages.release() }
        #expect(pagesNotResident(pages) == 0)
        if !lock { #expect(!pages.isLocked) }
        let bytes = UnsafeRawBufferPointer(start: pages.start, count: byteCount)
        #expect(bytes.allSatisfy { $0 == 0 })
    }

    @Test("a plain mapping is not resident until touched, so the check above can fail")
    func plainMappingIsNotResident() {
        let byteCount = 8 << 20
        let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        defer { munmap(address, byteCount) }
        let size = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: byteCount / size)
        _ = vector.withUnsafeMutableBufferPointer { mincore(address, byteCount, $0.baseAddress) }
        #expect(vector.filter { $0 & 1 == 0 }.count == byteCount / size)
    }
}
