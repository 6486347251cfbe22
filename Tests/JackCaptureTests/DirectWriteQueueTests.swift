import Atomics
import Foundation
import Testing
@testable import JackCapture

/// The buffers a take's direct files are written from: one pool for all of them
/// (`DirectWriteQueue`), lent to a file for the disk writer's turn at it.
@Suite("Direct writes: one pool of buffers for a take's files", .serialized)
struct DirectWriteQueueTests {
    static func sample(_ frame: Int, _ channel: Int) -> Float {
        Float((frame * 5 + channel * 313) % 4_001 - 2_000) / 4_096
    }

    @Test("the pool's buffers: 2 MiB for a few files, 128 KiB for many, 16 MiB in all")
    func bufferSizes() {
        #expect(DirectWriteQueue.bufferSize(files: 1) == 2 << 20)
        #expect(DirectWriteQueue.bufferSize(files: 8) == 2 << 20)
        #expect(DirectWriteQueue.bufferSize(files: 64) == 256 << 10)
        #expect(DirectWriteQueue.bufferSize(files: 1_024) == 128 << 10)
        for files in [1, 8, 64, 512, 1_024] {
            let queue = DirectWriteQueue(files: files)
            #expect(queue.bufferSize * queue.poolSize == DirectWriteQueue.poolBytes)
            #expect(queue.bufferSize % DirectFile.blockSize == 0)
        }
    }

    @Test("a pass waits for a large write of the narrowest file, at most half a second and a quarter of the ring")
    func passFrames() throws {
        let folder = NSTemporaryDirectory() + "/jcap-pass-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func outputs(_ io: DiskIO, bitDepth: Int?, channels: [Int]) throws -> [TakeOutput] {
            let format = try (bitDepth == nil ? RecordingSettings(format: .float) : RecordingSettings(format: .pcm, bitDepth: bitDepth))
                .resolveFormat(forPath: "take.wav")
            return try channels.enumerated().map { index, width in
                let file = try SoundFile.create(path: folder + "/\(io)-\(bitDepth ?? 32)-\(index)-\(UUID().uuidString).wav",
                                                format: format, channels: width, sampleRate: 48_000, overwrite: false, io: io)
                return TakeOutput(file: file, channels: Array(0..<width))
            }
        }
        let ring = 4 * 48_000
        // Mono float: 256 KiB would be 1.37 s: half a second it is; a pass takes up to twice that.
        #expect(try DiskWriter.passFrames(outputs: outputs(.direct, bitDepth: nil, channels: [1, 2]), ringFrames: ring,
                                      sampleRate: 48_000) == (24_000, 48_000))
        // Eight channels of float in the narrowest file: 256 KiB is 8,192 frames.
        #expect(try DiskWriter.passFrames(outputs: outputs(.direct, bitDepth: nil, channels: [8, 16]), ringFrames: ring,
                                      sampleRate: 48_000) == (8_192, 16_384))
        // A ring of 0.2 s: a quarter of it.
        #expect(try DiskWriter.passFrames(outputs: outputs(.direct, bitDepth: nil, channels: [1]), ringFrames: 9_600,
                                      sampleRate: 48_000) == (2_400, 2_400))
        // Through the page cache: whatever the ring holds, an eighth of a second a pass.
        #expect(try DiskWriter.passFrames(outputs: outputs(.buffered, bitDepth: nil, channels: [1]), ringFrames: ring,
                                      sampleRate: 48_000) == (0, 6_000))
    }

    /// 512 mono tracks for 2 s through the disk writer, as a session's take: held to the pool
    /// (two buffers of each file's own would be 64 MiB, the pool is 16), each file's share of a
    /// pass in one write of tens of KiB, and every frame in its file.
    @Test("512 direct files take no more than the pool's buffers, in large writes, every frame in place")
    func manyFilesShareThePool() throws {
        let folder = NSTemporaryDirectory() + "/jcap-pool-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let channels = 512, period = 1_024, periods = 94
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: "take.wav")
        let queue = DirectWriteQueue(files: channels)
        let files = try (0..<channels).map {
            try SoundFile.create(path: folder + "/track-\($0).wav", format: format, channels: 1, sampleRate: 48_000,
                                 overwrite: false, io: .direct, queue: queue, files: channels)
        }
        #expect(files.filter(\.isDirect).count == channels)
        // A session adds each file's bext before its first frame: a header rewrite inside the
        // file's first block, which takes no buffer (each file held one before, 64 MiB of pool).
        for file in files {
            try file.setBroadcastInfo(BroadcastInfo(description: "pool", originator: "jcap", originatorReference: "t1",
                                                    originationDate: "2026-11-26", originationTime: "12:00:00",
                                                    timeReference: 0, version: 2))
        }
        #expect(queue.buffersAllocated == 0, "\(queue.buffersAllocated) buffers taken before the first frame")
        // Half a second of ring: a pass waits for 6,000 frames (a quarter), 23 KiB of each file.
        let blockBytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
        let ring = RingBuffer(capacity: 24 * blockBytes)
        defer { ring.deallocate() }
        let done = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            done.load(ordering: .acquiring) ? (.finished, Int64(periods * period)) : (.recording, 0)
        }
        let writer = DiskWriter(source: source, outputs: files.enumerated().map { TakeOutput(file: $1, channels: [$0]) })
        writer.start()
        var planar = [Float](repeating: 0, count: period * channels)
        for block in 0..<periods {
            let position = block * period
            for channel in 0..<channels {
                for frame in 0..<period { planar[channel * period + frame] = Self.sample(position + frame, channel) }
            }
            while ring.writableByteCount() < blockBytes { usleep(1_000) }
            var header = CaptureBlockHeader(position: Int64(position), frameCount: Int32(period), frameTime: UInt32(position))
            withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
            planar.withUnsafeBytes { ring.stage(from: $0.baseAddress!, byteCount: $0.count, at: CaptureBlockHeader.byteCount) }
            ring.commitWrite(byteCount: blockBytes)
        }
        done.store(true, ordering: .releasing)
        writer.finish()
        #expect(writer.failure == nil)

        #expect(queue.buffersAllocated <= queue.poolSize, "\(queue.buffersAllocated) buffers of \(queue.bufferSize) bytes")
        let average = queue.bufferBytesWritten / max(1, queue.bufferWrites)
        #expect(average >= 16 << 10, "\(queue.bufferWrites) writes of \(average) bytes on average")
        let frames = periods * period
        for channel in [0, 1, 255, 511] {
            let reader = try SoundFile.open(readingFrom: folder + "/track-\(channel).wav")
            #expect(reader.frames == Int64(frames))
            var samples = [Float](repeating: 0, count: frames)
            let read = samples.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: frames) }
            #expect(read == frames)
            #expect((0..<frames).allSatisfy { samples[$0] == Self.sample($0, channel) }, "track \(channel)")
        }
    }
}
