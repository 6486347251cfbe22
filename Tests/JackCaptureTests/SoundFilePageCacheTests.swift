import Foundation
import Glibc
import Testing
@testable import JackCapture

@Suite("Sound files: the page-cache window")
struct SoundFilePageCacheTests {
    static let channels = 2
    /// 16 MiB of 32-bit float samples.
    static let frames = 16 * 1_024 * 1_024 / (4 * channels)
    /// Frames a write, as the disk writer writes a batch.
    static let framesPerWrite = 8_192
    static let window = PageCacheWindow(chunk: 256 * 1_024, lag: 1_024 * 1_024, head: 64 * 1_024)

    /// Under the package's working directory (its .build), not /tmp, which may be a tmpfs, where
    /// pages are never written back or dropped.
    let folder: String

    init() throws {
        folder = FileManager.default.currentDirectoryPath + "/.build/test-pagecache-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// Every sample different from its neighbours, all within full scale.
    static func signal() -> [Float] {
        (0..<frames * channels).map { index in
            Float(UInt32(truncatingIfNeeded: index &* 2_654_435_761) % 1_000_003) / 1_000_003 * 1.75 - 0.875
        }
    }

    func write(_ samples: [Float], to path: String, window: PageCacheWindow?) throws {
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: path)
        let file = try SoundFile.create(path: path, format: format, channels: Self.channels, sampleRate: 48_000, overwrite: false)
        file.pageCacheWindow = window
        try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            var frame = 0
            while frame < Self.frames {
                let count = min(Self.framesPerWrite, Self.frames - frame)
                try file.write(interleaved: buffer.baseAddress! + frame * Self.channels, frames: count)
                frame += count
            }
        }
        // Still set: the window never gave up on this file.
        #expect((file.pageCacheWindow != nil) == (window != nil))
        try file.close()
    }

    /// Residency of each page of the file in the page cache (mmap, then mincore(2)).
    func residentPages(_ path: String) throws -> [Bool] {
        let descriptor = Glibc.open(path, O_RDONLY)
        try #require(descriptor >= 0, "open \(path): \(String(cString: strerror(errno)))")
        defer { Glibc.close(descriptor) }
        var status = stat()
        try #require(fstat(descriptor, &status) == 0)
        let size = Int(status.st_size)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0)
        try #require(mapping != nil && mapping != UnsafeMutableRawPointer(bitPattern: -1), "mmap: \(String(cString: strerror(errno)))")
        defer { munmap(mapping, size) }
        var vector = [UInt8](repeating: 0, count: (size + pageSize - 1) / pageSize)
        let result = vector.withUnsafeMutableBufferPointer { mincore(mapping, size, $0.baseAddress!) }
        try #require(result == 0, "mincore: \(String(cString: strerror(errno)))")
        return vector.map { $0 & 1 == 1 }
    }

    func readBack(_ path: String) throws -> [Float] {
        let file = try SoundFile.open(readingFrom: path)
        defer { try? file.close() }
        #expect(file.channels == Self.channels)
        #expect(file.frames == Int64(Self.frames))
        var samples = [Float](repeating: .nan, count: Self.frames * Self.channels + Self.channels)
        let read = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Self.frames + 1) }
        #expect(read == Self.frames)
        return Array(samples.prefix(read * Self.channels))
    }

    @Test("a file written with a window leaves its middle out of the page cache; without one it stays; both read back exactly")
    func middleDropped() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let samples = Self.signal()
        let windowed = folder + "/windowed.wav"
        let control = folder + "/control.wav"
        try write(samples, to: windowed, window: Self.window)
        try write(samples, to: control, window: nil)

        // Before reading anything back, which would bring the pages back.
        let windowedPages = try residentPages(windowed)
        let controlPages = try residentPages(control)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = windowedPages.count * pageSize
        #expect(size >= 16 * 1_024 * 1_024)
        // Between the head and the last lag and two chunks (the window's footprint at the end).
        let middle = Int(Self.window.head) / pageSize..<(size - Int(Self.window.lag + 2 * Self.window.chunk)) / pageSize
        try #require(middle.count > 3_000)
        let windowedResident = windowedPages[middle].filter { $0 }.count
        let controlResident = controlPages[middle].filter { $0 }.count
        #expect(windowedResident * 10 < middle.count,
                "\(windowedResident) of the windowed file's \(middle.count) middle pages are cached")
        #expect(controlResident * 10 > middle.count * 9,
                "only \(controlResident) of the control file's \(middle.count) middle pages are cached")
        // The header's pages, never released, are still cached.
        #expect(windowedPages[0], "the header page was dropped")

        let windowedSamples = try readBack(windowed)
        let controlSamples = try readBack(control)
        #expect(windowedSamples.count == samples.count)
        #expect(windowedSamples.map(\.bitPattern) == samples.map(\.bitPattern), "the windowed file reads back differently")
        #expect(controlSamples.map(\.bitPattern) == samples.map(\.bitPattern), "the control file reads back differently")
    }
}
