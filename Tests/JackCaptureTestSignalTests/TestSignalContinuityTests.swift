import Foundation
import JackCapture
import JackCaptureTestSignal
import Testing

@Suite("Test signal continuity (benchmarks)")
struct TestSignalContinuityTests {
    /// Writes frames of the signal at the given frame times (nil: a silent frame) to a float WAV.
    func file(_ times: [UInt32?], channels: Int = 3, firstChannel: Int = 0) throws -> SoundFile {
        let path = NSTemporaryDirectory() + "/continuity-\(UUID().uuidString).wav"
        let writer = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                          channels: channels, sampleRate: 48_000, overwrite: false)
        var samples: [Float] = []
        for time in times {
            for channel in 0..<channels {
                samples.append(time.map { TestSignal.sample(frameTime: $0, channel: firstChannel + channel) } ?? 0)
            }
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

    @Test("a take in one file per track: each file against its own signal channel, the take's loss the largest file's")
    func perTrackFiles() throws {
        let intact: [UInt32?] = (100..<140).map { Optional($0) }
        var padded = intact
        padded.replaceSubrange(10..<14, with: [nil, nil, nil, nil])
        let files = [try file(intact, channels: 1, firstChannel: 0), try file(padded, channels: 1, firstChannel: 1),
                     try file(intact, channels: 2, firstChannel: 2)]
        let each = zip(files, [0, 1, 2]).map { TestSignalContinuity.analyze(file: $0, firstChannel: $1) }
        #expect(each.map(\.corruptFrames) == [0, 0, 0])
        #expect(each.map(\.silentFrames) == [0, 4, 0])
        let take = TestSignalContinuity.combining(each)
        #expect(take.channels == 4 && take.frames == 40 && take.lostFrames == 4 && take.corruptFrames == 0)
        // A mono file's zero is the signal's own (one frame in 2^22 of each channel), not a loss.
        let zeroTime = UInt32(TestSignal.timeModulus / 2)
        let throughZero: [UInt32?] = (zeroTime - 5..<zeroTime + 5).map { Optional($0) }
        #expect(TestSignal.sample(frameTime: zeroTime, channel: 0) == 0)
        let mono = TestSignalContinuity.analyze(file: try file(throughZero, channels: 1), firstChannel: 0)
        #expect(mono.silentFrames == 0 && mono.lostFrames == 0 && mono.corruptFrames == 0)
    }
}
