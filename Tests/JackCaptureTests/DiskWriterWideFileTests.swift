import Atomics
import Foundation
import Testing
@testable import JackCapture

/// A wide interleaved file through the real writer, around the page cache and through it: from
/// 256 channels the writer gathers a direct file's frames into its buffers with streaming stores,
/// and the frame across each buffer's end alone through its batch.
@Suite("Disk writer: a wide file around the page cache", .serialized)
struct DiskWriterWideFileTests {
    static let channels = 512
    static let period = 1_024
    /// Twelve periods of 2 MiB each, across several 2 MiB direct buffers, each ending inside a
    /// frame (the header is 4,168 bytes and more); period 5 never arrives.
    static let blocks = 12
    static let lostBlock = 5

    /// Unique for every channel and position; every 97th sample beyond full scale.
    static func sample(channel: Int, position: Int) -> Float {
        let value = Float(channel) / 1_024 + Float(position % 1_000) / 2_000_000
        return (channel + position) % 97 == 0 ? -1.25 - value : value
    }

    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-wide-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// Writes the take to `path` through a `DiskWriter`, fed block by block as the process
    /// callback feeds it; returns its one segment.
    func record(_ path: String, io: DiskIO) throws -> TakeSegment {
        let channels = Self.channels, period = Self.period
        let format = try RecordingSettings(format: .float).resolveFormat(forPath: path)
        let file = try SoundFile.create(path: path, format: format, channels: channels, sampleRate: 48_000,
                                        overwrite: false, io: io, queue: io == .direct ? DirectWriteQueue() : nil)
        #expect(file.isDirect == (io == .direct))
        let blockBytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
        let ring = RingBuffer(capacity: blockBytes * 4 + 64)
        defer { ring.deallocate() }
        let takeFrames = Int64(Self.blocks * period)
        let finished = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            finished.load(ordering: .acquiring) ? (.finished, takeFrames) : (.recording, 0)
        }
        let writer = DiskWriter(source: source, outputs: [TakeOutput(file: file, channels: Array(0..<channels))])
        writer.start()
        var planar = [Float](repeating: 0, count: period * channels)
        for block in 0..<Self.blocks where block != Self.lostBlock {
            let position = block * period
            for channel in 0..<channels {
                for frame in 0..<period { planar[channel * period + frame] = Self.sample(channel: channel, position: position + frame) }
            }
            while ring.writableByteCount() < blockBytes { usleep(500) }
            var header = CaptureBlockHeader(position: Int64(position), frameCount: Int32(period), frameTime: UInt32(position))
            withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
            planar.withUnsafeBytes { ring.stage(from: $0.baseAddress!, byteCount: planar.count * 4, at: CaptureBlockHeader.byteCount) }
            ring.commitWrite(byteCount: blockBytes)
        }
        finished.store(true, ordering: .releasing)
        writer.finish()
        #expect(writer.failure == nil)
        #expect(writer.framesWritten == takeFrames)
        let segments = writer.segments
        try #require(segments.count == 1)
        return segments[0]
    }

    @Test("every sample where it belongs, the lost period silent, the same levels as through the page cache")
    func wideFileAroundThePageCache() throws {
        let direct = try record(folder + "/direct.wav", io: .direct)
        let buffered = try record(folder + "/buffered.wav", io: .buffered)
        #expect(direct.lostSpans == [LostSpan(position: Int64(Self.lostBlock * Self.period), frames: Int64(Self.period))])
        #expect(direct.channelLevels == buffered.channelLevels)
        #expect(direct.channelLevels.allSatisfy { $0.clipCount > 0 })

        let sound = try SoundFile.open(readingFrom: folder + "/direct.wav")
        let frames = Self.blocks * Self.period
        #expect(sound.channels == Self.channels)
        #expect(sound.frames == Int64(frames))
        var samples = [Float](repeating: .nan, count: frames * Self.channels)
        _ = samples.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: frames) }
        var wrong = 0
        var first: String?
        for position in 0..<frames {
            let lost = position / Self.period == Self.lostBlock
            for channel in 0..<Self.channels {
                let expected: Float = lost ? 0 : Self.sample(channel: channel, position: position)
                if samples[position * Self.channels + channel].bitPattern != expected.bitPattern {
                    wrong += 1
                    if first == nil { first = "frame \(position), channel \(channel): \(samples[position * Self.channels + channel]), expected \(expected)" }
                }
            }
        }
        #expect(wrong == 0, "\(wrong) samples wrong, first \(first ?? "")")
        // The same audio as through the page cache, sample for sample.
        let plain = try SoundFile.open(readingFrom: folder + "/buffered.wav")
        var plainSamples = [Float](repeating: .nan, count: frames * Self.channels)
        _ = plainSamples.withUnsafeMutableBufferPointer { plain.read(into: $0.baseAddress!, frames: frames) }
        #expect(samples.elementsEqual(plainSamples) { $0.bitPattern == $1.bitPattern })
    }
}
