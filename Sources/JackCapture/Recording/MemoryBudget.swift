#if canImport(Glibc)
import Glibc
#endif

/// How much memory a capture ring may take on this machine, decided before anything is created:
/// the ring is allocated and every page touched up front (so the real-time thread never faults),
/// so a ring that does not fit would abort the process or wake the OOM killer instead of failing.
///
/// Three limits count, each less a safety margin (a quarter of it, at least 64 MiB, is left for
/// everything else: the writer, libsndfile, JACK, the rest of the system):
/// - the memory the kernel says is available without swapping (`MemAvailable` in /proc/meminfo;
///   without it, the machine's physical memory);
/// - the room left under the process's address-space limit (RLIMIT_AS less `VmSize`);
/// - the room left under its data limit (RLIMIT_DATA less `VmData`; since Linux 4.7 it counts
///   private anonymous mappings such as the ring);
/// - on a machine that does not overcommit (`vm.overcommit_memory` 2), the room left under the
///   kernel's commit limit (`CommitLimit` less `Committed_AS`): there mmap(2) refuses a ring past
///   it however much memory is free, which would abort the process.
///
/// RLIMIT_MEMLOCK is not a limit: the ring is mlock'ed only where the process may lock it
/// (`ResidentPages` locks it best-effort), and is faulted in either way.
package struct MemoryBudget: Equatable, Sendable {
    /// Bytes of memory available (nil: unknown).
    package var availableBytes: Int?
    /// Bytes left under RLIMIT_AS (nil: unlimited).
    package var addressSpaceRoom: Int?
    /// Bytes left under RLIMIT_DATA (nil: unlimited).
    package var dataRoom: Int?
    /// Bytes left under the kernel's commit limit (nil: the kernel overcommits).
    package var commitRoom: Int?

    package init(availableBytes: Int?, addressSpaceRoom: Int? = nil, dataRoom: Int? = nil, commitRoom: Int? = nil) {
        self.availableBytes = availableBytes
        self.addressSpaceRoom = addressSpaceRoom
        self.dataRoom = dataRoom
        self.commitRoom = commitRoom
    }

    /// Left for everything but the ring out of each limit: a quarter, and at least this much.
    package static let minimumMargin = 64 << 20

    /// The largest ring, in bytes, these limits allow: the smallest limit less its margin.
    package var largestRingBytes: Int {
        let limits = [availableBytes, addressSpaceRoom, dataRoom, commitRoom].compactMap { $0 }
        guard let smallest = limits.min() else { return Int.max }
        return Swift.max(0, smallest - Swift.max(smallest / 4, Self.minimumMargin))
    }

    /// The ring `seconds` of `channels` channels take (`CaptureEngine.ringByteCount`), checked
    /// against these limits.
    ///
    /// - Throws: `.badBufferLength` unless `seconds` is finite and above zero;
    ///   `.bufferTooLarge`, naming the longest buffer that fits, when the ring does not fit.
    package func ringByteCount(seconds: Double, sampleRate: Int, period: Int, channels: Int) throws(CaptureError) -> Int {
        guard seconds.isFinite, seconds > 0 else { throw .badBufferLength(seconds) }
        let largest = largestRingBytes
        let bytes = CaptureEngine.ringByteCount(seconds: seconds, sampleRate: sampleRate, period: period, channels: channels)
        guard bytes > largest else { return bytes }
        throw .bufferTooLarge(requestedSeconds: seconds,
                              maximumSeconds: Self.maximumSeconds(bytes: largest, sampleRate: sampleRate,
                                                                  period: period, channels: channels),
                              channels: channels, sampleRate: sampleRate)
    }

    /// The longest buffer whose ring fits in `bytes` (0 when not even the shortest ring fits):
    /// `CaptureEngine.ringByteCount` inverted by bisection on whole frames.
    static func maximumSeconds(bytes: Int, sampleRate: Int, period: Int, channels: Int) -> Double {
        guard sampleRate > 0 else { return 0 }
        func fits(_ frames: Int) -> Bool {
            CaptureEngine.ringByteCount(seconds: Double(frames) / Double(sampleRate), sampleRate: sampleRate,
                                        period: period, channels: channels) <= bytes
        }
        guard fits(1) else { return 0 }
        var low = 1  // fits
        var high = bytes / Swift.max(1, channels * MemoryLayout<Float>.stride) + 1  // does not
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if fits(middle) { low = middle } else { high = middle }
        }
        return Double(low) / Double(sampleRate)
    }

    /// This machine's limits now.
    package static func current() -> MemoryBudget {
        let status = procFields("/proc/self/status")
        let memory = procFields("/proc/meminfo")
        let available = memory["MemAvailable"]
            ?? Int(exactly: Int64(sysconf(Int32(_SC_PHYS_PAGES))) * Int64(sysconf(Int32(_SC_PAGESIZE))))
        return MemoryBudget(availableBytes: available,
                            addressSpaceRoom: room(under: __rlimit_resource_t(RLIMIT_AS.rawValue), used: status["VmSize"]),
                            dataRoom: room(under: __rlimit_resource_t(RLIMIT_DATA.rawValue), used: status["VmData"]),
                            commitRoom: commitRoom(overcommitMode: firstLine("/proc/sys/vm/overcommit_memory"),
                                                   meminfo: memory))
    }

    /// The room under the commit limit where the kernel keeps one (`overcommitMode` "2", the
    /// first line of /proc/sys/vm/overcommit_memory): `CommitLimit` less `Committed_AS` of
    /// /proc/meminfo, in bytes (0 when past it); nil where the kernel overcommits (0, the default
    /// heuristic, or 1) or the fields are missing.
    static func commitRoom(overcommitMode: String?, meminfo: [String: Int]) -> Int? {
        guard overcommitMode == "2",
              let limit = meminfo["CommitLimit"], let committed = meminfo["Committed_AS"] else { return nil }
        return Swift.max(0, limit - committed)
    }

    /// The first line of a small file, without its newline; nil when it cannot be read.
    private static func firstLine(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        guard getline(&line, &capacity, file) > 0, let line else { return nil }
        return String(cString: line).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// The soft limit less what is in use; nil when unlimited.
    private static func room(under resource: __rlimit_resource_t, used: Int?) -> Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        let soft = Int(clamping: limit.rlim_cur)
        return Swift.max(0, soft - (used ?? 0))
    }

    /// `Name:   1234 kB` lines of a /proc file, in bytes.
    static func procFields(_ path: String) -> [String: Int] {
        guard let file = fopen(path, "r") else { return [:] }
        defer { fclose(file) }
        var fields: [String: Int] = [:]
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            guard let colon = text.firstIndex(of: ":") else { continue }
            let words = text[text.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard let number = words.first.flatMap({ Int($0) }) else { continue }
            let unit = words.count > 1 ? words[1] : ""
            fields[String(text[..<colon])] = unit == "kB" ? number.multipliedReportingOverflow(by: 1_024).partialValue : number
        }
        return fields
    }
}
