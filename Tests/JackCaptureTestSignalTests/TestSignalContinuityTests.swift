import Foundation
import JackCapture
import JackCaptureTestSignal
import Testing

@Suite("Test signal continuity (benchmarks)")
struct TestSignalContinuityTests {
    /// Writes frames of the signal at the given frame times (nil: a silent frame) to a float WAV.
    func file(_ times: [UInt32?], channels: Int = 3) throws -> SoundFile {
        let path = NSTemporaryDirectory() + "/continuity-\(UUID().uuidString).wav"
        let writer = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                          channels: channels, sampleRate: 48_000, overwrite: false)
        var samples: [Float] = []
        for time in times {
            for channel in 0..<channels { samples.append(time.map { TestSignal.sample(frameTime: $0, channel: channel) } ?? 0) }
        }
        try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            try writer.write(interleaved: buffer.baseAddress!, frames: times.count)
        }
        try writer.close()
        defer { unlink(path) }
        return try SoundFile.open(readingFrom: path)
    }

    @Test("an intact recording after a silent first cycle")
    func intact() throws {
        let result = TestSignalContinuity.analyze(file: try file([nil, nil] + (100..<200).map { Optional($0) }))
        #expect(result.leadingSilentFrames == 2)
        #expect(result.lostFrames == 0 && result.duplicatedFrames == 0 && result.corruptFrames == 0)
    }

    @Test("padded, skipped, repeated and swapped frames are each counted once")
    func faults() throws {
        var times: [UInt32?] = (100..<110).map { Optional($0) }
        times += [nil, nil, nil] + (113..<120).map { Optional($0) }       // 3 padded, aligned
        times += (125..<130).map { Optional($0) }                          // 5 skipped
        times += (128..<135).map { Optional($0) }                          // 2 repeated
        let swapped = try file(times)
        let result = TestSignalContinuity.analyze(file: swapped)
        #expect(result.silentFrames == 3)
        #expect(result.missingFrames == 5)
        #expect(result.duplicatedFrames == 2)
        #expect(result.lostFrames == 8)
        #expect(result.corruptFrames == 0)
    }
}
