import Foundation

/// Test signals and the measurements the conversion tests make on them.
enum SignalMeasurement {
    /// `frames` interleaved frames of a sine, channel `c` at `amplitudes[c]`.
    static func sine(frequency: Double, sampleRate: Int, frames: Int, amplitudes: [Float]) -> [Float] {
        let channels = amplitudes.count
        var samples = [Float](repeating: 0, count: frames * channels)
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        for frame in 0..<frames {
            let value = sin(step * Double(frame))
            for channel in 0..<channels {
                samples[frame * channels + channel] = amplitudes[channel] * Float(value)
            }
        }
        return samples
    }

    /// One channel of interleaved frames [start, end).
    static func channel(_ channel: Int, of samples: [Float], channels: Int, from start: Int, to end: Int) -> [Float] {
        (start..<end).map { samples[$0 * channels + channel] }
    }

    /// The frequency of a sine from its rising zero crossings, each placed between its two
    /// samples by linear interpolation: (crossings - 1) periods between the first and the last.
    /// Over a second of a 1 kHz sine the timing of one crossing moves the result by about 0.02 Hz
    /// at most; the test asks for 0.1 Hz.
    static func zeroCrossingFrequency(_ samples: [Float], sampleRate: Int) -> Double {
        var first: Double?
        var last = 0.0
        var crossings = 0
        for index in 1..<samples.count {
            let before = samples[index - 1], after = samples[index]
            guard before < 0 && after >= 0 else { continue }
            let time = Double(index - 1) + Double(before / (before - after))
            if first == nil { first = time }
            last = time
            crossings += 1
        }
        guard let first, crossings > 1 else { return 0 }
        return Double(crossings - 1) / (last - first) * Double(sampleRate)
    }

    static func rms(_ samples: [Float]) -> Double {
        sqrt(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count))
    }

    static func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }
}
