import CSndfile
import Foundation
import Testing
@testable import JackCapture

/// Every format jcap can write, found by asking `resolveFormat` about the whole cross product of
/// containers, encodings, bit depths and byte orders; tests pin its size so a rule that wrongly
/// refuses (or allows) a combination shows up.
enum FormatCombinations {
    struct Candidate: CustomStringConvertible {
        var container: FileContainer
        var settings: RecordingSettings
        var path: String { "take." + container.rawValue }
        var description: String {
            "\(path) --format \(settings.format?.rawValue ?? "-") --bit-depth \(settings.bitDepth.map(String.init) ?? "-") --endian \(settings.endianness?.rawValue ?? "-")"
        }
    }

    /// Every container × encoding × bit depth (those of any encoding, and none) × byte order (none,
    /// little, big).
    static let candidates: [Candidate] = {
        let depths: [Int?] = [nil] + Set(AudioFormat.allCases.flatMap { $0.bitDepths?.allowed ?? [] }).sorted()
        var result: [Candidate] = []
        for container in FileContainer.allCases {
            for format in AudioFormat.allCases {
                for depth in depths {
                    for order in [nil] + Endianness.allCases.map(Optional.some) {
                        result.append(Candidate(container: container,
                                                settings: RecordingSettings(format: format, bitDepth: depth, endianness: order)))
                    }
                }
            }
        }
        return result
    }()

    /// The distinct formats that resolve, each with one set of settings that gives it.
    static let valid: [(candidate: Candidate, format: FileFormat)] = {
        var result: [(Candidate, FileFormat)] = []
        for candidate in candidates {
            guard let format = try? candidate.settings.resolveFormat(forPath: candidate.path) else { continue }
            if !result.contains(where: { $0.1 == format }) { result.append((candidate, format)) }
        }
        return result
    }()

    /// Channels a round trip uses: several, within the codec's limit.
    static func channels(for format: FileFormat) -> Int { min(3, format.encoding.maximumChannels ?? 3) }
}

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

/// Writes a known signal in a format and checks what libsndfile reads back.
enum RoundTrip {
    /// Frames written: a few thousand for exact formats, half a second for lossy codecs, whose
    /// encoder delay and frame padding would dominate a shorter file.
    static func frames(for format: FileFormat) -> Int { format.encoding.takesQuality ? 24_000 : 4_096 }

    /// What is written: for exact formats the signal already at the file's quantisation, so what
    /// comes back must be identical; for lossy codecs pure sines (no ramp), whose level and
    /// frequency are what a codec keeps.
    static func source(for format: FileFormat, channels: Int) -> [Float] {
        let frames = frames(for: format)
        switch format.encoding {
        case .mp3, .vorbis, .opus:
            return TestSignals.sineAndRamp(frames: frames, channels: channels, ramp: false)
        case .pcm, .flac, .alac:
            return TestSignals.quantized(TestSignals.sineAndRamp(frames: frames, channels: channels), bits: format.bitDepth!)
        case .float, .imaADPCM, .ulaw, .alaw:
            return TestSignals.sineAndRamp(frames: frames, channels: channels)
        }
    }

    /// Reads `path` back and compares it with `source`: lossless formats sample for sample,
    /// G.711 and IMA ADPCM within their codec's error, MP3/Vorbis/Opus by length, level and
    /// each channel's frequency.
    static func check(_ path: String, format: FileFormat, source: [Float], channels: Int,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let frames = source.count / channels
        let (file, samples) = try TestSignals.read(path)
        let name = format.displayName
        #expect(file.channels == channels, "\(name)", sourceLocation: sourceLocation)
        #expect(file.sampleRate == 48_000, "\(name)", sourceLocation: sourceLocation)
        #expect(file.format & Int32(SF_FORMAT_SUBMASK) == format.sndfileSubtype, "\(name)", sourceLocation: sourceLocation)
        #expect(file.format & Int32(SF_FORMAT_ENDMASK) == format.sndfileFormat & Int32(SF_FORMAT_ENDMASK),
                "\(name) byte order", sourceLocation: sourceLocation)
        // A .wav under 4 GB reads as a plain WAVE_FORMAT_EXTENSIBLE file: RF64 downgraded itself.
        let major = format.isAutoDowngradingRF64 ? Int32(SF_FORMAT_WAVEX) : format.sndfileFormat & Int32(SF_FORMAT_TYPEMASK)
        #expect(file.format & Int32(SF_FORMAT_TYPEMASK) == major, "\(name) container", sourceLocation: sourceLocation)

        switch format.encoding {
        case .pcm, .float, .flac, .alac:
            #expect(Int(file.frames) == frames, "\(name)", sourceLocation: sourceLocation)
            let mismatches = zip(source, samples).filter { $0 != $1 }.count
            #expect(samples.count == source.count && mismatches == 0,
                    "\(name): \(mismatches) samples differ", sourceLocation: sourceLocation)
        case .ulaw, .alaw, .imaADPCM:
            // IMA ADPCM is written in whole blocks: libsndfile reads back the padding too.
            #expect(Int(file.frames) >= frames && Int(file.frames) < frames + 2_048, "\(name): \(file.frames) frames",
                    sourceLocation: sourceLocation)
            let decoded = Array(samples.prefix(source.count))
            let ratio = TestSignals.signalToError(source, decoded)
            // G.711 gives about 38 dB on a loud signal; 4-bit IMA ADPCM about 25 dB. Below 60 dB
            // shows the codec really ran (PCM would be exact).
            let floor: Double = format.encoding == .imaADPCM ? 18 : 30
            #expect(ratio > floor && ratio < 60, "\(name): \(ratio) dB signal to error", sourceLocation: sourceLocation)
        case .mp3, .vorbis, .opus:
            // Encoder delay and the last frame's padding, at most a couple of codec frames.
            #expect(abs(Int(file.frames) - frames) <= 2_400, "\(name): \(file.frames) frames", sourceLocation: sourceLocation)
            for channel in 0..<channels {
                let original = TestSignals.channel(source, channel, of: channels)
                // The middle, away from the codec's start-up and the end's padding.
                let decoded = Array(TestSignals.channel(samples, channel, of: channels).dropFirst(4_000).prefix(frames - 8_000))
                let levelChange = 20 * log10(TestSignals.rms(decoded) / TestSignals.rms(original))
                #expect(abs(levelChange) < 1, "\(name) channel \(channel): level changed \(levelChange) dB",
                        sourceLocation: sourceLocation)
                let own = TestSignals.power(decoded, at: TestSignals.frequency(channel: channel))
                for other in 0..<channels where other != channel {
                    let leaked = TestSignals.power(decoded, at: TestSignals.frequency(channel: other))
                    #expect(own > 100 * leaked, "\(name) channel \(channel) carries channel \(other)'s tone",
                            sourceLocation: sourceLocation)
                }
                // A sine of amplitude 0.5 has power 0.0625 at its frequency by this measure.
                #expect(own > 0.04, "\(name) channel \(channel): \(own) at its frequency", sourceLocation: sourceLocation)
            }
        }
    }
}
