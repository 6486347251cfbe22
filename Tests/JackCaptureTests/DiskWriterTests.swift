import Atomics
import Foundation
import Testing
@testable import JackCapture

@Suite("Disk writer: formats through the ring, as the engine feeds it", .serialized)
struct DiskWriterTests {
    /// One of each kind of encoding, in different containers and byte orders.
    static let formats: [(String, RecordingSettings)] = [
        ("wav", RecordingSettings()),
        ("wav", RecordingSettings(bitDepth: 8)),
        ("aiff", RecordingSettings(bitDepth: 16, endianness: .little)),
        ("caf", RecordingSettings(format: .float, bitDepth: 64)),
        ("rf64", RecordingSettings(bitDepth: 32)),
        ("flac", RecordingSettings(bitDepth: 16, compressionLevel: 8)),
        ("caf", RecordingSettings(format: .alac, bitDepth: 20)),
        ("au", RecordingSettings(format: .ulaw)),
        ("w64", RecordingSettings(format: .alaw)),
        ("wav", RecordingSettings(format: .imaADPCM)),
        ("ogg", RecordingSettings(quality: 0.5)),
        ("opus", RecordingSettings(quality: 0.8)),
        ("mp3", RecordingSettings(quality: 0.7)),
    ]

    @Test("a take written by the disk writer reads back as written", arguments: formats)
    func roundTrip(fileExtension: String, settings: RecordingSettings) throws {
        let path = NSTemporaryDirectory() + "/jcap-writer-\(UUID().uuidString)." + fileExtension
        defer { unlink(path) }
        let format = try settings.resolveFormat(forPath: path)
        let channels = FormatCombinations.channels(for: format)
        let interleaved = RoundTrip.source(for: format, channels: channels)
        let frames = interleaved.count / channels
        let period = 256

        // A ring smaller than the take, so it wraps around while the writer drains it.
        let ring = RingBuffer(capacity: 8 * CaptureBlockHeader.blockByteCount(frames: period, channels: channels))
        defer { ring.deallocate() }
        let produced = ManagedAtomic<Int64>(0)
        let done = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            done.load(ordering: .acquiring) ? (.finished, produced.load(ordering: .relaxed)) : (.recording, 0)
        }
        let file = try SoundFile.create(path: path, format: format, channels: channels, sampleRate: 48_000, overwrite: false)
        let writer = DiskWriter(source: source, file: file)
        writer.start()

        // As the process callback does: one block per period, a header then each channel's run.
        var planar = [Float](repeating: 0, count: period * channels)
        var position = 0
        while position < frames {
            let count = min(period, frames - position)
            for channel in 0..<channels {
                for frame in 0..<count { planar[channel * count + frame] = interleaved[(position + frame) * channels + channel] }
            }
            let bytes = CaptureBlockHeader.blockByteCount(frames: count, channels: channels)
            while ring.writableByteCount() < bytes { usleep(1_000) }
            var header = CaptureBlockHeader(position: Int64(position), frameCount: Int32(count), frameTime: UInt32(position))
            withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
            planar.withUnsafeBytes { raw in
                ring.stage(from: raw.baseAddress!, byteCount: count * channels * MemoryLayout<Float>.stride,
                           at: CaptureBlockHeader.byteCount)
            }
            ring.commitWrite(byteCount: bytes)
            position += count
            produced.store(Int64(position), ordering: .relaxed)
        }
        done.store(true, ordering: .releasing)
        writer.finish()

        #expect(writer.failure == nil)
        #expect(writer.lostSpans.isEmpty)
        #expect(writer.framesWritten == Int64(frames))
        try RoundTrip.check(path, format: format, source: interleaved, channels: channels)
    }
}

@Suite("Disk writer interleaving")
struct DiskWriterInterleavingTests {
    @Test("planar blocks interleave frame by frame")
    func interleave() {
        let planar: [Float] = [1, 2, 3, 10, 20, 30]
        var out = [Float](repeating: 0, count: 6)
        DiskWriter.interleave(planar: planar, into: &out, frames: 3, channels: 2)
        #expect(out == [1, 10, 2, 20, 3, 30])
        var batch = [Float](repeating: 0, count: 10)
        DiskWriter.interleave(planar: [4, 5, 40, 50], into: &batch, at: 3, frames: 2, channels: 2)
        #expect(batch == [0, 0, 0, 0, 0, 0, 4, 40, 5, 50], "appended after three frames already in the batch")
        // Past one tile in both directions, with ragged edges.
        let channels = 70, frames = 45
        let many = (0..<(channels * frames)).map { Float($0) }
        var wide = [Float](repeating: -1, count: channels * (frames + 2))
        DiskWriter.interleave(planar: many, into: &wide, at: 2, frames: frames, channels: channels)
        #expect(wide.prefix(2 * channels).allSatisfy { $0 == -1 })
        #expect((0..<frames).allSatisfy { f in (0..<channels).allSatisfy { c in
            wide[(2 + f) * channels + c] == Float(c * frames + f) } })
    }
}
