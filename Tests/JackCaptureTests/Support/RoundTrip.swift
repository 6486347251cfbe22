import CSndfile
import Foundation
import Testing
@testable import JackCapture

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
