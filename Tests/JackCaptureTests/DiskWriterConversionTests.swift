import Atomics
import Foundation
import Testing
@testable import JackCapture

@Suite("Disk writer, with and without sample-rate conversion", .serialized)
struct DiskWriterConversionTests {
    static let serverRate = 48_000
    static let channels = 2
    static let amplitudes: [Float] = [0.5, 0.25]
    static let period = 1_024
    /// The take: 3 s and a bit, stopping inside the last period the callback copied.
    static let takeFrames: Int64 = 144_500
    /// Ten periods the callback dropped (the ring was full): the writer must pad them.
    static let lost = LostSpan(position: 40 * 1_024, frames: 10 * 1_024)

    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-diskwriter-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// The take's audio at the server's rate, interleaved: a 1 kHz sine on each channel, zeros
    /// where frames were lost, `frames` long.
    static func takeAudio(frames: Int) -> [Float] {
        var audio = SignalMeasurement.sine(frequency: 1_000, sampleRate: serverRate, frames: frames, amplitudes: amplitudes)
        for frame in Int(lost.position)..<Int(lost.position + lost.frames) {
            for channel in 0..<channels { audio[frame * channels + channel] = 0 }
        }
        return audio
    }

    /// Records a take through the real writer: blocks go onto a ring exactly as the process
    /// callback puts them there (header, then each channel's frames, planar), one period each,
    /// the lost periods missing, the last period running past the stop frame, which `progress`
    /// reports with `.finished` once every block is on the ring.
    func record(to path: String, fileRate: Int, converter: SampleRateConverter?) throws -> DiskWriter {
        let channels = Self.channels, period = Self.period
        let blockBytes = CaptureBlockHeader.blockByteCount(frames: period, channels: channels)
        // Room for six periods: the producer waits for the writer many times and the ring wraps.
        let ring = RingBuffer(capacity: blockBytes * 6 + 100)
        defer { ring.deallocate() }
        let published = ManagedAtomic<Int64>(0)
        let finished = ManagedAtomic<Bool>(false)
        let source = DiskWriterSource(ring: ring, channels: channels, periodFrames: period) {
            // The phase first, then the position it goes with, as the engine reports them.
            finished.load(ordering: .acquiring) ? (.finished, Self.takeFrames) : (.recording, published.load(ordering: .relaxed))
        }
        let file = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                        channels: channels, sampleRate: fileRate, overwrite: false)
        let writer = DiskWriter(source: source, file: file, converter: converter)
        writer.start()

        let blocks = Int((Self.takeFrames + Int64(period) - 1) / Int64(period))
        let signal = SignalMeasurement.sine(frequency: 1_000, sampleRate: Self.serverRate, frames: blocks * period,
                                            amplitudes: Self.amplitudes)
        var planar = [Float](repeating: 0, count: period * channels)
        for block in 0..<blocks {
            let position = Int64(block * period)
            published.store(position + Int64(period), ordering: .relaxed)
            if position >= Self.lost.position && position < Self.lost.position + Self.lost.frames { continue }
            for channel in 0..<channels {
                for frame in 0..<period {
                    planar[channel * period + frame] = signal[(block * period + frame) * channels + channel]
                }
            }
            while ring.writableByteCount() < blockBytes { usleep(500) }
            var header = CaptureBlockHeader(position: position, frameCount: Int32(period), frameTime: UInt32(truncatingIfNeeded: position))
            withUnsafeBytes(of: &header) { ring.stage(from: $0.baseAddress!, byteCount: CaptureBlockHeader.byteCount, at: 0) }
            planar.withUnsafeBytes { raw in
                ring.stage(from: raw.baseAddress!, byteCount: raw.count, at: CaptureBlockHeader.byteCount)
            }
            ring.commitWrite(byteCount: blockBytes)
        }
        finished.store(true, ordering: .releasing)
        writer.finish()
        return writer
    }

    /// Every frame of a file, interleaved.
    static func read(_ path: String) throws -> (file: SoundFile, samples: [Float]) {
        let file = try SoundFile.open(readingFrom: path)
        var samples = [Float](repeating: .nan, count: Int(file.frames) * file.channels)
        let read = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Int(file.frames)) }
        #expect(read == Int(file.frames))
        return (file, samples)
    }

    @Test("without a converter the file holds the take's frames exactly, silence where frames were lost")
    func withoutConverter() throws {
        let path = folder + "/plain.wav"
        let writer = try record(to: path, fileRate: Self.serverRate, converter: nil)
        #expect(writer.failure == nil)
        #expect(writer.framesWritten == Self.takeFrames)
        #expect(writer.framesInFile == Self.takeFrames)
        #expect(writer.fileFrames(forTakeFrames: Self.lost.position) == Self.lost.position)
        #expect(writer.lostSpans == [Self.lost])
        let (file, samples) = try Self.read(path)
        #expect(file.sampleRate == Self.serverRate)
        #expect(file.frames == Self.takeFrames)
        let expected = Self.takeAudio(frames: Int(Self.takeFrames))
        #expect(samples.count == expected.count)
        #expect(zip(samples, expected).allSatisfy { $0 == $1 })
    }

    @Test("48 kHz to 44.1 kHz: exact length, still 1 kHz at the same level, the lost span silent at its converted place")
    func convertsTo44100() throws {
        let path = folder + "/converted.wav"
        let fileRate = 44_100
        let converter = try SampleRateConverter(channels: Self.channels, inputRate: Self.serverRate, outputRate: fileRate,
                                                quality: .best)
        let writer = try record(to: path, fileRate: fileRate, converter: converter)
        #expect(writer.failure == nil)
        // Take frames still count at the server's rate; the file at its own.
        #expect(writer.framesWritten == Self.takeFrames)
        #expect(writer.lostSpans == [Self.lost])
        let fileLength: Int64 = 132_759  // round(144,500 × 44,100 / 48,000) = round(132,759.375)
        #expect(writer.framesInFile == fileLength)
        #expect(writer.fileFrames(forTakeFrames: Self.takeFrames) == fileLength)

        let (file, samples) = try Self.read(path)
        #expect(file.sampleRate == fileRate)
        #expect(file.channels == Self.channels)
        #expect(file.frames == fileLength)

        // The lost span [40,960, 51,200) at 48 kHz is [37,632, 47,040) at 44.1 kHz.
        let silenceStart = Int(writer.fileFrames(forTakeFrames: Self.lost.position))
        let silenceEnd = Int(writer.fileFrames(forTakeFrames: Self.lost.position + Self.lost.frames))
        #expect(silenceStart == 37_632 && silenceEnd == 47_040)
        // libsamplerate's best filter reaches about 143 frames either side; past that the
        // converted silence is exactly zero, and right outside the span the sine is at full level.
        let reach = 200
        for channel in 0..<Self.channels {
            let inside = SignalMeasurement.channel(channel, of: samples, channels: Self.channels,
                                                   from: silenceStart + reach, to: silenceEnd - reach)
            #expect(inside.allSatisfy { $0 == 0 })
            for range in [(silenceStart - reach - 441)..<(silenceStart - reach), (silenceEnd + reach)..<(silenceEnd + reach + 441)] {
                let around = SignalMeasurement.channel(channel, of: samples, channels: Self.channels,
                                                       from: range.lowerBound, to: range.upperBound)
                let peak = around.map { abs($0) }.max() ?? 0
                #expect(abs(peak - Self.amplitudes[channel]) < 0.01 * Self.amplitudes[channel], "peak \(peak) around \(range)")
            }

            // Two seconds after the span, away from the filter's edges: 1 kHz, -3.01 dB below the amplitude.
            let after = SignalMeasurement.channel(channel, of: samples, channels: Self.channels,
                                                  from: silenceEnd + reach, to: Int(fileLength) - 4_410)
            let frequency = SignalMeasurement.zeroCrossingFrequency(after, sampleRate: fileRate)
            #expect(abs(frequency - 1_000) < 0.1, "\(frequency) Hz")
            let levelError = SignalMeasurement.decibels(SignalMeasurement.rms(after) / (Double(Self.amplitudes[channel]) / 2.0.squareRoot()))
            #expect(abs(levelError) < 0.05, "\(levelError) dB")
        }

        // Sample for sample: what one converter makes of the whole take in one call, silence included.
        let reference = try SampleRateConverter(channels: Self.channels, inputRate: Self.serverRate, outputRate: fileRate,
                                                quality: .best)
        let expected = try SampleRateConverterTests.convert(Self.takeAudio(frames: Int(Self.takeFrames)), with: reference,
                                                            chunks: [Int(Self.takeFrames)])
        #expect(expected.count == samples.count)
        let largestDifference = zip(samples, expected).map { abs($0 - $1) }.max() ?? .infinity
        #expect(largestDifference <= 1e-6, "\(largestDifference)")
    }

    @Test("a take that ends before its first frame, with a converter, leaves an empty file")
    func emptyTake() throws {
        let converter = try SampleRateConverter(channels: 2, inputRate: 48_000, outputRate: 44_100)
        let path = folder + "/empty.wav"
        let ring = RingBuffer(capacity: 1_024)
        defer { ring.deallocate() }
        let source = DiskWriterSource(ring: ring, channels: 2, periodFrames: 256) { (.finished, 0) }
        let file = try SoundFile.create(path: path, format: try RecordingSettings().resolveFormat(forPath: path), channels: 2,
                                        sampleRate: 44_100, overwrite: false)
        let writer = DiskWriter(source: source, file: file, converter: converter)
        writer.start()
        writer.finish()
        #expect(writer.failure == nil)
        #expect(writer.framesWritten == 0 && writer.framesInFile == 0)
        #expect(try SoundFile.open(readingFrom: path).frames == 0)
    }
}
