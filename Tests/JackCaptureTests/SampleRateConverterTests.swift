import Foundation
import Testing
@testable import JackCapture

@Suite("Sample-rate conversion (libsamplerate)")
struct SampleRateConverterTests {
    static let ratePairs: [(Int, Int)] = [(48_000, 44_100), (44_100, 48_000), (48_000, 96_000)]

    /// Converts interleaved `input` in calls of the sizes in `chunks` (repeated), then finishes,
    /// checking after every piece of output that the stream never runs past the rounded length of
    /// the input so far.
    static func convert(_ input: [Float], with converter: SampleRateConverter, chunks: [Int]) throws -> [Float] {
        let channels = converter.channels
        let frames = input.count / channels
        var output = [Float]()
        output.reserveCapacity(Int(converter.outputLength(forInputFrames: Int64(frames))) * channels + 1)
        func collect(_ samples: UnsafePointer<Float>, _ count: Int) {
            #expect(count > 0)
            output.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * channels))
        }
        try input.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            var offset = 0
            var call = 0
            while offset < frames {
                let count = min(chunks[call % chunks.count], frames - offset)
                try converter.convert(buffer.baseAddress! + offset * channels, frames: count) { samples, produced in
                    collect(samples, produced)
                    #expect(output.count / channels <= Int(converter.outputLength(forInputFrames: converter.inputFrames)))
                }
                offset += count
                call += 1
            }
        }
        try converter.finish { samples, produced in collect(samples, produced) }
        #expect(converter.inputFrames == Int64(frames))
        #expect(converter.outputFrames == Int64(output.count / channels))
        return output
    }

    @Test("a 1 kHz sine stays a 1 kHz sine at the same level, on each channel",
          arguments: SampleRateConverterQuality.allCases, ratePairs)
    func sineKeepsFrequencyAndLevel(quality: SampleRateConverterQuality, rates: (Int, Int)) throws {
        let (inputRate, outputRate) = rates
        let amplitudes: [Float] = [0.5, 0.125]
        let inputFrames = inputRate * 3
        let input = SignalMeasurement.sine(frequency: 1_000, sampleRate: inputRate, frames: inputFrames, amplitudes: amplitudes)
        let converter = try SampleRateConverter(channels: 2, inputRate: inputRate, outputRate: outputRate, quality: quality)
        let output = try Self.convert(input, with: converter, chunks: [1_024, 7, 4_096, 333])
        let outputFrames = output.count / 2
        #expect(outputFrames == inputFrames * outputRate / inputRate)

        // The filter's edges (the input starts and stops abruptly) are left out of both.
        let skippedSeconds = 0.1
        for channel in 0..<2 {
            let converted = SignalMeasurement.channel(channel, of: output, channels: 2,
                                                      from: Int(skippedSeconds * Double(outputRate)),
                                                      to: outputFrames - Int(skippedSeconds * Double(outputRate)))
            let original = SignalMeasurement.channel(channel, of: input, channels: 2,
                                                     from: Int(skippedSeconds * Double(inputRate)),
                                                     to: inputFrames - Int(skippedSeconds * Double(inputRate)))
            let frequency = SignalMeasurement.zeroCrossingFrequency(converted, sampleRate: outputRate)
            let levelError = SignalMeasurement.decibels(SignalMeasurement.rms(converted) / SignalMeasurement.rms(original))
            #expect(abs(frequency - 1_000) < 0.1, "\(quality.name) \(inputRate)→\(outputRate) channel \(channel): \(frequency) Hz")
            #expect(abs(levelError) < 0.05, "\(quality.name) \(inputRate)→\(outputRate) channel \(channel): \(levelError) dB")
        }
    }

    @Test("the output is exactly round(input × outputRate / inputRate) frames, however the input is split",
          arguments: SampleRateConverterQuality.allCases)
    func exactLength(quality: SampleRateConverterQuality) throws {
        // 44.1→48 kHz and 96→44.1 kHz: libsamplerate alone gives one frame more for some of these
        // lengths; 48→96 kHz: its zero-order hold gives 2n + 1.
        let pairs = Self.ratePairs + [(96_000, 44_100), (8_000, 192_000)]
        for (inputRate, outputRate) in pairs {
            for frames in [0, 1, 2, 7, 1_000, 48_001, 100_003] {
                let input = SignalMeasurement.sine(frequency: 1_000, sampleRate: inputRate, frames: frames, amplitudes: [0.5])
                let expected = Int((Double(frames) * Double(outputRate) / Double(inputRate)).rounded(.toNearestOrAwayFromZero))
                for chunks in frames <= 1_000 ? [[frames + 1], [1], [3, 250]] : [[frames], [1_024, 17]] {
                    let converter = try SampleRateConverter(channels: 1, inputRate: inputRate, outputRate: outputRate,
                                                            quality: quality)
                    let output = try Self.convert(input, with: converter, chunks: chunks)
                    #expect(output.count == expected, "\(quality.name) \(frames) frames \(inputRate)→\(outputRate) in \(chunks)")
                }
            }
        }
    }

    @Test("the output does not depend on how the input is split", arguments: SampleRateConverterQuality.allCases)
    func deterministic(quality: SampleRateConverterQuality) throws {
        let input = SignalMeasurement.sine(frequency: 997, sampleRate: 48_000, frames: 20_000, amplitudes: [0.5, -0.25, 0.75])
        var outputs: [[Float]] = []
        for chunks in [[20_000], [1], [256, 1_023, 5]] {
            let converter = try SampleRateConverter(channels: 3, inputRate: 48_000, outputRate: 44_100, quality: quality)
            outputs.append(try Self.convert(input, with: converter, chunks: chunks))
        }
        for output in outputs.dropFirst() {
            #expect(output.count == outputs[0].count)
            let largestDifference = zip(output, outputs[0]).map { abs($0 - $1) }.max() ?? 0
            // The sinc converters and the zero-order hold give the same bits however the input is
            // split; the linear converter fed one frame per call once gave 1.7e-40 (a denormal)
            // where the others gave 0.
            if quality == .linear {
                #expect(largestDifference < 1e-30, "\(largestDifference)")
            } else {
                #expect(largestDifference == 0, "\(largestDifference)")
            }
        }
    }

    @Test("output lengths are rounded in integers, halves up")
    func outputLength() {
        #expect(SampleRateConverter.outputLength(forInputFrames: 48_000, inputRate: 48_000, outputRate: 44_100) == 44_100)
        // 1000 × 48000 / 44100 = 1088.4: libsamplerate gives 1089.
        #expect(SampleRateConverter.outputLength(forInputFrames: 1_000, inputRate: 44_100, outputRate: 48_000) == 1_088)
        // 1 × 1/2 = 0.5 rounds up.
        #expect(SampleRateConverter.outputLength(forInputFrames: 1, inputRate: 96_000, outputRate: 48_000) == 1)
        #expect(SampleRateConverter.outputLength(forInputFrames: 3, inputRate: 96_000, outputRate: 48_000) == 2)
        // A day at 192 kHz converted to 44.1 kHz, exact.
        let day: Int64 = 192_000 * 86_400
        #expect(SampleRateConverter.outputLength(forInputFrames: day, inputRate: 192_000, outputRate: 44_100) == 44_100 * 86_400)
    }

    @Test("silence converts to exact silence, as many frames as zeros would give")
    func silence() throws {
        let converter = try SampleRateConverter(channels: 2, inputRate: 48_000, outputRate: 44_100)
        var output = [Float]()
        try converter.convertSilence(frames: 100_001) { samples, count in
            output.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * 2))
        }
        try converter.finish { samples, count in output.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * 2)) }
        #expect(output.count == 2 * Int(SampleRateConverter.outputLength(forInputFrames: 100_001, inputRate: 48_000, outputRate: 44_100)))
        #expect(output.allSatisfy { $0 == 0 })
    }

    @Test("after reset() a converter gives what a new one gives")
    func reset() throws {
        let input = SignalMeasurement.sine(frequency: 1_000, sampleRate: 48_000, frames: 10_000, amplitudes: [0.5])
        let converter = try SampleRateConverter(channels: 1, inputRate: 48_000, outputRate: 44_100)
        let first = try Self.convert(input, with: converter, chunks: [512])
        converter.reset()
        #expect(converter.inputFrames == 0 && converter.outputFrames == 0)
        let second = try Self.convert(input, with: converter, chunks: [512])
        #expect(second.count == first.count)
        #expect(zip(second, first).allSatisfy { $0 == $1 })
    }

    @Test("rates that are not positive or too far apart, and no channels, are refused in one line", arguments: [
        (2, 0, 44_100, "cannot convert 0 Hz to 44100 Hz: a sample rate must be a positive number of Hz"),
        (2, 48_000, 0, "cannot convert 48000 Hz to 0 Hz: a sample rate must be a positive number of Hz"),
        (2, -48_000, 44_100, "cannot convert -48000 Hz to 44100 Hz: a sample rate must be a positive number of Hz"),
        (2, 48_000, -1, "cannot convert 48000 Hz to -1 Hz: a sample rate must be a positive number of Hz"),
        (2, 48_000, 100, "cannot convert 48000 Hz to 100 Hz: libsamplerate converts at most 256:1 either way"),
        (2, 8_000, 2_048_001, "cannot convert 8000 Hz to 2048001 Hz: libsamplerate converts at most 256:1 either way"),
        (0, 48_000, 44_100, "cannot convert 48000 Hz to 44100 Hz: a converter needs at least one channel, not 0"),
    ] as [(Int, Int, Int, String)])
    func refused(channels: Int, inputRate: Int, outputRate: Int, message: String) {
        do {
            _ = try SampleRateConverter(channels: channels, inputRate: inputRate, outputRate: outputRate)
            Issue.record("\(inputRate) → \(outputRate) with \(channels) channels should fail")
        } catch {
            #expect(error.description == message)
            #expect(error == .sampleRateConversion(inputRate: inputRate, outputRate: outputRate, reason: String(message.split(separator: ": ", maxSplits: 1)[1])))
        }
    }

    @Test("libsamplerate's own refusals carry its message (src_strerror)")
    func libraryFailure() {
        do {
            _ = try SampleRateConverter(channels: 2, inputRate: 48_000, outputRate: 44_100, converterType: 99)
            Issue.record("converter type 99 should fail")
        } catch {
            #expect(error.description == "cannot convert 48000 Hz to 44100 Hz: libsamplerate: Bad converter number")
        }
        #expect(SampleRateConverter.message(forCode: 16) == "libsamplerate: Input and output data arrays overlap")
    }
}

extension SampleRateConverterTests {
    @Test("converting or finishing a finished stream is an error until reset(), not a trap")
    func finishedStream() throws {
        let converter = try SampleRateConverter(channels: 1, inputRate: 48_000, outputRate: 44_100)
        let input = [Float](repeating: 0.25, count: 480)
        try input.withUnsafeBufferPointer { try converter.convert($0.baseAddress!, frames: 480) { _, _ in } }
        try converter.finish { _, _ in }
        #expect(throws: CaptureError.self) {
            try input.withUnsafeBufferPointer { try converter.convert($0.baseAddress!, frames: 480) { _, _ in } }
        }
        #expect(throws: CaptureError.self) { try converter.finish { _, _ in } }
        converter.reset()
        try input.withUnsafeBufferPointer { try converter.convert($0.baseAddress!, frames: 480) { _, _ in } }
    }

    @Test("output lengths for rates that are not positive, or inputs of years, never trap")
    func outputLengthEdges() {
        #expect(SampleRateConverter.outputLength(forInputFrames: 48_000, inputRate: 0, outputRate: 44_100) == 0)
        #expect(SampleRateConverter.outputLength(forInputFrames: 48_000, inputRate: 48_000, outputRate: -1) == 0)
        #expect(SampleRateConverter.outputLength(forInputFrames: .max, inputRate: 48_000, outputRate: 44_100) == .max)
        #expect(SampleRateConverter.outputLength(forInputFrames: 48_000, inputRate: 48_000, outputRate: 44_100) == 44_100)
    }
}
