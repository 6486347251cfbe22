import Foundation
@testable import JackCapture

/// A known multichannel signal and ways to compare it with what came back.
enum TestSignals {
    /// Per channel a sine at its own frequency plus a slow ramp, interleaved, within ±0.9.
    static func sineAndRamp(frames: Int, channels: Int, sampleRate: Int = 48_000, ramp: Bool = true) -> [Float] {
        var samples = [Float](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            let t = Double(frame) / Double(sampleRate)
            for channel in 0..<channels {
                let sine = 0.5 * sin(2 * .pi * frequency(channel: channel) * t)
                let slope = ramp ? 0.4 * (Double(frame) / Double(frames) - 0.5) * (channel.isMultiple(of: 2) ? 1 : -1) : 0
                samples[frame * channels + channel] = Float(sine + slope)
            }
        }
        return samples
    }

    /// Each channel's sine: far enough apart that a swapped channel is obvious, all below 4 kHz
    /// so an 8 kHz MP3 or Opus file still carries them.
    static func frequency(channel: Int) -> Double { 440 * Double(channel + 1) + 100 * Double(channel) }

    /// Rounds every sample to the nearest value a `bits`-bit integer holds (k / 2^(bits-1)), as
    /// libsndfile's clipping float-to-integer conversion stores it, capped at 24 bits (what a
    /// float carries exactly).
    static func quantized(_ samples: [Float], bits: Int) -> [Float] {
        let scale = Float(1 << (min(bits, 24) - 1))
        return samples.map { max(-1, min(($0 * scale).rounded() / scale, 1 - 1 / scale)) }
    }

    /// Reads a whole file as interleaved floats.
    static func read(_ path: String) throws -> (file: SoundFile, samples: [Float]) {
        let file = try SoundFile.open(readingFrom: path)
        var samples = [Float](repeating: 0, count: Int(file.frames) * file.channels)
        let read = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Int(file.frames)) }
        samples.removeLast((Int(file.frames) - read) * file.channels)
        return (file, samples)
    }

    static func channel(_ samples: [Float], _ channel: Int, of channels: Int) -> [Float] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    static func rms(_ samples: [Float]) -> Double {
        sqrt(samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count)))
    }

    /// Power at one frequency (Goertzel), normalised by length: how much of the signal is that tone.
    static func power(_ samples: [Float], at frequency: Double, sampleRate: Int = 48_000) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / Double(sampleRate))
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return power / Double(samples.count * samples.count)
    }

    /// Signal-to-error ratio in dB of `decoded` against `original` (same length).
    static func signalToError(_ original: [Float], _ decoded: [Float]) -> Double {
        var signal = 0.0, error = 0.0
        for (a, b) in zip(original, decoded) {
            signal += Double(a) * Double(a)
            error += Double(a - b) * Double(a - b)
        }
        return 10 * log10(signal / max(error, 1e-30))
    }

    static func write(_ samples: [Float], to file: SoundFile, frames: Int) throws {
        try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            try file.write(interleaved: buffer.baseAddress!, frames: frames)
        }
    }
}
