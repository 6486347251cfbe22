import Atomics
import Foundation
import Testing
@testable import JackCapture

/// The disk writer when the disk fills mid-take: a tmpfs of 1 MiB the test mounts (the tests run
/// as root, here and in CI), one file at the server's rate and one resampled, written until the
/// disk refuses. Every file must end closed, its header declaring every frame it holds, its report
/// saying the same, and the take no longer than its shortest file.
@Suite("Disk writer on a disk that fills", .serialized)
struct DiskWriterFullDiskTests {
    static func sample(_ frame: Int, _ channel: Int) -> Float {
        Float((frame * 3 + channel * 977) % 30_011 - 15_005) / 32_768
    }

    /// Runs `program` and waits for it; it must exit 0.
    static func run(_ program: String, _ arguments: [String]) throws {
        let status = try ChildProcess.run(program, arguments).status
        try #require(status == 0, "\(program) \(arguments): wait status \(status)")
    }

    /// The whole frames in a WAV file's data, whatever its header says, and those its header declares.
    static func frames(of path: String) throws -> (inData: Int64, declared: Int64) {
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let file = RawFile(descriptor: descriptor, path: path)
        let layout = try #require(try file.waveLayout())
        return ((try file.size() - layout.dataStart) / Int64(layout.blockAlign), Int64(layout.headerDataSize) / Int64(layout.blockAlign))
    }

    @Test("every file is closed declaring the frames it holds; the take is as long as the shortest",
          arguments: [DiskIO.buffered, .direct])
    func fillsUp(io: DiskIO) throws {
        let disk = NSTemporaryDirectory() + "/jcap-full-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])
        defer {
            try? Self.run("/bin/umount", ["-l", disk])
            try? FileManager.default.removeItem(atPath: disk)
        }
        let channels = 2, period = 256
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: disk + "/a.wav")
        let queue = io == .buffered ? nil : DirectWriteQueue()
        let direct = try SoundFile.create(path: disk + "/a.wav", format: format, channels: 1, sampleRate: 48_000, overwrite: false,
                                          io: io, queue: queue, files: 2)
        let resampled = try SoundFile.create(path: disk + "/b.wav", format: format, channels: 1, sampleRate: 44_100, overwrite: false,
                                             io: io, queue: queue, files: 2)
        #expect(direct.isDirect == (io == .direct) && resampled.isDirect == (io == .direct))
        let converter = try SampleRateConverter(channels: 1, inputRate: 48_000, outputRate: 44_100)

        let ring = RingBuffer(capacity: 64 * CaptureBlockHeader.blockByteCount(frames: period, channels: channels))
        defer { ring.deallocate() }
        let produced = ManagedAtomic<Int64>(0)
        let done = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            done.load(ordering: .acquiring) ? (.finished, produced.load(ordering: .relaxed)) : (.recording, 0)
        }
        let writer = DiskWriter(source: source, outputs: [TakeOutput(file: direct, channels: [0]),
                                                          TakeOutput(file: resampled, channels: [1], converter: converter)])
        writer.start()
        // 1 MiB holds about 2.9 s of the two float files: 10 s are offered.
        var planar = [Float](repeating: 0, count: period * channels)
        var position = 0
        while position < 480_000 && !writer.hasFailed {
            for channel in 0..<channels {
                for frame in 0..<period { planar[channel * period + frame] = Self.sample(position + frame, channel) }
            }
            let bytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
            while ring.writableByteCount() < bytes && !writer.hasFailed { usleep(1_000) }
            if writer.hasFailed { break }
            var header = CaptureBlockHeader(position: Int64(position), frameCount: Int32(period), frameTime: UInt32(position))
            withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
            planar.withUnsafeBytes { ring.stage(from: $0.baseAddress!, byteCount: $0.count, at: CaptureBlockHeader.byteCount) }
            ring.commitWrite(byteCount: bytes)
            position += period
            produced.store(Int64(position), ordering: .relaxed)
        }
        done.store(true, ordering: .releasing)
        writer.finish()

        guard case .writeFailed(_, let reason)? = writer.failure else { Issue.record("no write failure: \(String(describing: writer.failure))"); return }
        #expect(reason.hasPrefix(String(cString: strerror(ENOSPC))), "\(reason)")
        let segment = try #require(writer.segments.last)
        var held: [Int64] = []
        for (file, report) in zip([disk + "/a.wav", disk + "/b.wav"], segment.files) {
            let counted = try Self.frames(of: file)
            #expect(counted.declared == counted.inData, "\(file): the header declares every frame the file holds")
            #expect(report.frames == counted.inData, "\(file): the report says what the file holds")
            #expect(try SoundFile.open(readingFrom: file).frames == counted.inData)
            held.append(counted.inData)
        }
        let heldTakeFrames = min(held[0], held[1] * 48_000 / 44_100)
        #expect(writer.framesWritten == heldTakeFrames, "the take is as long as its shortest file: \(held)")
        #expect(segment.frames == heldTakeFrames)
        #expect(heldTakeFrames > 48_000)

        // The file at the server's rate holds the take sample for sample.
        let reader = try SoundFile.open(readingFrom: disk + "/a.wav")
        var samples = [Float](repeating: 0, count: Int(held[0]))
        let read = samples.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: Int(held[0])) }
        #expect(read == Int(held[0]))
        #expect((0..<read).allSatisfy { samples[$0] == Self.sample($0, 0) })
    }

    /// On the direct path the last frames wait in the ring and in the files' partial blocks, and
    /// their writes go at the end of the take, where their failure is found (at their completion). Seen under load in
    /// DiskFullTests: 64 files of 48,529 frames logged as a take of 59,994.
    @Test("a disk that fills before the last writes: the failure found at the close still shortens the take to its files",
          arguments: [DiskIO.direct])
    func fillsBeforeTheClose(io: DiskIO) throws {
        let disk = NSTemporaryDirectory() + "/jcap-full-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])
        defer {
            try? Self.run("/bin/umount", ["-l", disk])
            try? FileManager.default.removeItem(atPath: disk)
        }
        let channels = 2, period = 250, offered = 10_000
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: disk + "/a.wav")
        let queue = io == .buffered ? nil : DirectWriteQueue()
        let files = try ["a", "b"].map {
            try SoundFile.create(path: disk + "/\($0).wav", format: format, channels: 1, sampleRate: 48_000, overwrite: false,
                                 io: io, queue: queue, files: 2)
        }
        let ring = RingBuffer(capacity: 64 * CaptureBlockHeader.blockByteCount(frames: period, channels: channels))
        defer { ring.deallocate() }
        let done = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            done.load(ordering: .acquiring) ? (.finished, Int64(offered)) : (.recording, 0)
        }
        let writer = DiskWriter(source: source, outputs: files.enumerated().map { TakeOutput(file: $1, channels: [$0]) })
        writer.start()
        // 10,000 frames: under a header rewrite's half second, so the headers are rewritten at
        // the close.
        var planar = [Float](repeating: 0, count: period * channels)
        for position in stride(from: 0, to: offered, by: period) {
            for channel in 0..<channels {
                for frame in 0..<period { planar[channel * period + frame] = Self.sample(position + frame, channel) }
            }
            var header = CaptureBlockHeader(position: Int64(position), frameCount: Int32(period), frameTime: UInt32(position))
            withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
            planar.withUnsafeBytes { ring.stage(from: $0.baseAddress!, byteCount: $0.count, at: CaptureBlockHeader.byteCount) }
            ring.commitWrite(byteCount: CaptureBlockHeader.blockByteCount(frames: period, channels: channels))
        }
        // The writer takes the blocks in passes of at least a quarter of this small ring (a
        // direct take's files each write a large block a pass), and the last block only when the
        // take ends: once it rests, frames wait in the ring and in the files' last partial blocks.
        var resting = 0
        var seen: Int64 = -1
        for _ in 0..<5_000 where resting < 200 {
            usleep(1_000)
            resting = writer.framesWritten == seen ? resting + 1 : 0
            seen = writer.framesWritten
        }
        try #require(writer.framesWritten > 0 && writer.framesWritten < Int64(offered), "\(writer.framesWritten) frames written")
        // Another process fills the disk; then the take ends.
        let filler = open(disk + "/filler", O_WRONLY | O_CREAT, 0o644)
        var block = [UInt8](repeating: 7, count: 4_096)
        while block.withUnsafeMutableBytes({ write(filler, $0.baseAddress!, $0.count) }) > 0 {}
        close(filler)
        done.store(true, ordering: .releasing)
        writer.finish()

        guard case .writeFailed(_, let reason)? = writer.failure else { Issue.record("no write failure: \(String(describing: writer.failure))"); return }
        #expect(reason.hasPrefix(String(cString: strerror(ENOSPC))), "\(reason)")
        let segment = try #require(writer.segments.last)
        var held: [Int64] = []
        for (file, report) in zip([disk + "/a.wav", disk + "/b.wav"], segment.files) {
            let counted = try Self.frames(of: file)
            #expect(counted.declared == counted.inData, "\(file): the header declares every frame the file holds")
            #expect(report.frames == counted.inData, "\(file): the report says what the file holds")
            held.append(counted.inData)
        }
        #expect(held.min()! < Int64(offered), "the files hold less than was offered: \(held)")
        #expect(writer.framesWritten == held.min(), "the take is as long as its shortest file: \(held)")
        #expect(segment.frames == held.min())
    }
}
