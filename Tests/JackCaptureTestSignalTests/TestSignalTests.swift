import Foundation
@testable import JackCapture
import JackCaptureTestSignal
import Testing

@Suite("Test signal encoding")
struct TestSignalTests {
    @Test("every sample decodes to its frame time, on its channel only")
    func roundTrip() {
        for channel in [0, 1, 7, 63, 511, 1_023] {
            for time in [UInt32(0), 1, 4_093, 2_097_151, 4_194_303, 4_194_304, 123_456_789, UInt32.max] {
                let sample = TestSignal.sample(frameTime: time, channel: channel)
                #expect(abs(sample) <= 0.25)
                #expect(TestSignal.frameTime(decoding: sample, channel: channel) == Int(time) % TestSignal.timeModulus)
                if channel > 0 {
                    #expect(TestSignal.frameTime(decoding: sample, channel: channel - 1) != Int(time) % TestSignal.timeModulus)
                }
            }
        }
    }

    @Test("the table renders what sample() says, across the modulus and in chunks past the overlap")
    func render() {
        let table = TestSignal.Table.code()
        defer { table.deallocate() }
        let frames = 20_000
        var buffer = [Float](repeating: 9, count: frames)
        for (start, channel) in [(UInt32(TestSignal.timeModulus - 100), 5), (UInt32.max - 50, 0), (0, 1_023)] {
            buffer.withUnsafeMutableBufferPointer {
                table.render(into: $0.baseAddress!, frames: frames, start: start, channel: channel)
            }
            let mismatches = (0..<frames).filter {
                buffer[$0] != TestSignal.sample(frameTime: start &+ UInt32($0), channel: channel)
            }
            #expect(mismatches.isEmpty, "start \(start), channel \(channel)")
        }
    }

    @Test("sine tables: one exact period, the level asked for, any number of frames")
    func sine() {
        let table = TestSignal.Table.sine(frequency: 1_000, level: -20, sampleRate: 48_000)
        defer { table.deallocate() }
        #expect(table.period == 48)
        var buffer = [Float](repeating: 9, count: 10_000)
        buffer.withUnsafeMutableBufferPointer { table.render(into: $0.baseAddress!, frames: 10_000, start: 12, channel: 3) }
        #expect(abs(buffer[0] - 0.1) < 1e-6, "frame 12 of a 1 kHz period of 48 is the crest")
        #expect(abs((buffer.max() ?? 0) - 0.1) < 1e-6)
        let odd = TestSignal.Table.sine(frequency: 997, level: 0, sampleRate: 44_100)
        defer { odd.deallocate() }
        #expect(odd.period == 44_100)
        let silence = TestSignal.Table.silence()
        defer { silence.deallocate() }
        buffer.withUnsafeMutableBufferPointer { silence.render(into: $0.baseAddress!, frames: 10_000, start: 5, channel: 0) }
        #expect(buffer.allSatisfy { $0 == 0 })
    }

    @Test("24-bit PCM holds every code exactly (libsndfile scaling and rounding)")
    func twentyFourBit() {
        for code in [-(1 << 21), -1, 0, 1, (1 << 21) - 1] {
            let sample = Float(code) / Float(1 << 23)
            let pcm = Int((sample * Float(0x7F_FFFF)).rounded())
            #expect(pcm == code)
            #expect(Float(pcm) / Float(1 << 23) == sample)
        }
    }
}

@Suite("The verifier and the signal's own zeros")
struct TestSignalZeroTests {
    @Test("a recording across the frame where the signal is 0 is intact, not silent there; real silence still counts")
    func zeroIsNotSilence() throws {
        let path = NSTemporaryDirectory() + "/jcap-zero-\(UUID().uuidString).wav"
        defer { unlink(path) }
        // Channel 0 is 0 at frame time 2^21 exactly; 2,000 frames around it.
        let start = UInt32(TestSignal.timeModulus / 2 - 1_000)
        var samples = (0..<2_000).map { TestSignal.sample(frameTime: start + UInt32($0), channel: 0) }
        #expect(samples[1_000] == 0)
        let writer = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                          channels: 1, sampleRate: 48_000, overwrite: false)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 2_000) }
        try writer.close()
        let report = TestSignalReport.check(file: try SoundFile.open(readingFrom: path))
        #expect(report.isIntact, "\(report)")

        // With a real gap of 3 frames after it, the gap is silence.
        for index in 1_500..<1_503 { samples[index] = 0 }
        let gapped = NSTemporaryDirectory() + "/jcap-gap-\(UUID().uuidString).wav"
        defer { unlink(gapped) }
        let second = try SoundFile.create(path: gapped, format: try RecordingSettings(format: .float).resolveFormat(forPath: gapped),
                                          channels: 1, sampleRate: 48_000, overwrite: false)
        try samples.withUnsafeBufferPointer { try second.write(interleaved: $0.baseAddress!, frames: 2_000) }
        try second.close()
        let gappedReport = TestSignalReport.check(file: try SoundFile.open(readingFrom: gapped))
        #expect(gappedReport.silentSpans.map(\.frames) == [3], "\(gappedReport)")
    }
}
