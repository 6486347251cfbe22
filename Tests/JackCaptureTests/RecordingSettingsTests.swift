import CSndfile
import Testing
@testable import JackCapture

@Suite("Recording settings resolved to file formats")
struct RecordingSettingsTests {
    static func resolve(_ path: String, _ settings: RecordingSettings = RecordingSettings()) throws -> FileFormat {
        try settings.resolveFormat(forPath: path)
    }

    /// The error a path and settings give, as the library describes it.
    static func message(_ path: String, _ settings: RecordingSettings) -> String? {
        do {
            _ = try settings.resolveFormat(forPath: path)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("extensions and settings map to libsndfile's codes", arguments: [
        ("take.wav", RecordingSettings(), SF_FORMAT_RF64 | SF_FORMAT_PCM_24),
        ("take.WAV", RecordingSettings(format: .float), SF_FORMAT_RF64 | SF_FORMAT_FLOAT),
        ("take.wav", RecordingSettings(bitDepth: 8), SF_FORMAT_RF64 | SF_FORMAT_PCM_U8),
        ("take.wav", RecordingSettings(format: .float, bitDepth: 64), SF_FORMAT_RF64 | SF_FORMAT_DOUBLE),
        ("take.wav", RecordingSettings(format: .ulaw), SF_FORMAT_RF64 | SF_FORMAT_ULAW),
        ("take.wav", RecordingSettings(format: .alaw), SF_FORMAT_RF64 | SF_FORMAT_ALAW),
        ("take.wav", RecordingSettings(format: .imaADPCM), SF_FORMAT_WAV | SF_FORMAT_IMA_ADPCM),
        ("take.wav", RecordingSettings(bitDepth: 16, endianness: .little), SF_FORMAT_RF64 | SF_FORMAT_PCM_16),
        ("dir.x/take.w64", RecordingSettings(bitDepth: 16), SF_FORMAT_W64 | SF_FORMAT_PCM_16),
        ("take.w64", RecordingSettings(format: .imaADPCM), SF_FORMAT_W64 | SF_FORMAT_IMA_ADPCM),
        ("take.rf64", RecordingSettings(bitDepth: 32), SF_FORMAT_RF64 | SF_FORMAT_PCM_32),
        ("take.caf", RecordingSettings(), SF_FORMAT_CAF | SF_FORMAT_PCM_24),
        ("take.caf", RecordingSettings(bitDepth: 8), SF_FORMAT_CAF | SF_FORMAT_PCM_S8),
        ("take.caf", RecordingSettings(format: .alac), SF_FORMAT_CAF | SF_FORMAT_ALAC_24),
        ("take.caf", RecordingSettings(format: .alac, bitDepth: 20), SF_FORMAT_CAF | SF_FORMAT_ALAC_20),
        ("take.caf", RecordingSettings(format: .float, endianness: .little), SF_FORMAT_CAF | SF_FORMAT_FLOAT | SF_ENDIAN_LITTLE),
        ("take.caf", RecordingSettings(endianness: .big), SF_FORMAT_CAF | SF_FORMAT_PCM_24),
        ("take.aif", RecordingSettings(), SF_FORMAT_AIFF | SF_FORMAT_PCM_24),
        ("take.aiff", RecordingSettings(bitDepth: 16, endianness: .little), SF_FORMAT_AIFF | SF_FORMAT_PCM_16 | SF_ENDIAN_LITTLE),
        ("take.aiff", RecordingSettings(format: .imaADPCM), SF_FORMAT_AIFF | SF_FORMAT_IMA_ADPCM),
        ("take.au", RecordingSettings(format: .ulaw), SF_FORMAT_AU | SF_FORMAT_ULAW),
        ("take.snd", RecordingSettings(endianness: .little), SF_FORMAT_AU | SF_FORMAT_PCM_24 | SF_ENDIAN_LITTLE),
        ("take.flac", RecordingSettings(), SF_FORMAT_FLAC | SF_FORMAT_PCM_24),
        ("take.flac", RecordingSettings(bitDepth: 16), SF_FORMAT_FLAC | SF_FORMAT_PCM_16),
        ("take.flac", RecordingSettings(format: .flac, bitDepth: 8, compressionLevel: 8), SF_FORMAT_FLAC | SF_FORMAT_PCM_S8),
        ("take.ogg", RecordingSettings(), SF_FORMAT_OGG | SF_FORMAT_VORBIS),
        ("take.ogg", RecordingSettings(format: .opus), SF_FORMAT_OGG | SF_FORMAT_OPUS),
        ("take.opus", RecordingSettings(quality: 0.6), SF_FORMAT_OGG | SF_FORMAT_OPUS),
        ("take.mp3", RecordingSettings(), SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III),
    ] as [(String, RecordingSettings, Int)])
    func mapping(path: String, settings: RecordingSettings, code: Int) throws {
        #expect(try Self.resolve(path, settings).sndfileFormat == Int32(code))
    }

    @Test("each extension's default format", arguments: [
        ("wav", AudioFormat.pcm, 24), ("w64", .pcm, 24), ("rf64", .pcm, 24), ("caf", .pcm, 24), ("aiff", .pcm, 24),
        ("au", .pcm, 24), ("flac", .flac, 24), ("ogg", .vorbis, nil), ("opus", .opus, nil), ("mp3", .mp3, nil),
    ] as [(String, AudioFormat, Int?)])
    func defaults(fileExtension: String, format: AudioFormat, depth: Int?) throws {
        let resolved = try Self.resolve("take." + fileExtension)
        #expect(resolved.encoding == format)
        #expect(resolved.bitDepth == depth)
    }

    @Test("display names", arguments: [
        ("take.wav", RecordingSettings(), "24-bit WAV"),
        ("take.wav", RecordingSettings(format: .float), "32-bit float WAV"),
        ("take.caf", RecordingSettings(format: .float, bitDepth: 64, endianness: .little), "64-bit float little-endian CAF"),
        ("take.aiff", RecordingSettings(bitDepth: 16, endianness: .big), "16-bit AIFF"),
        ("take.flac", RecordingSettings(bitDepth: 16), "FLAC 16-bit"),
        ("take.flac", RecordingSettings(compressionLevel: 8), "FLAC 24-bit level 8"),
        ("take.caf", RecordingSettings(format: .alac, bitDepth: 20), "ALAC 20-bit"),
        ("take.au", RecordingSettings(format: .ulaw), "u-law AU"),
        ("take.wav", RecordingSettings(format: .imaADPCM), "IMA ADPCM WAV"),
        ("take.opus", RecordingSettings(quality: 0.6), "Opus q0.6"),
        ("take.ogg", RecordingSettings(quality: 0.25), "Ogg Vorbis q0.25"),
        ("take.mp3", RecordingSettings(quality: 1), "MP3 q1"),
        ("take.mp3", RecordingSettings(), "MP3"),
    ] as [(String, RecordingSettings, String)])
    func displayNames(path: String, settings: RecordingSettings, name: String) throws {
        #expect(try Self.resolve(path, settings).displayName == name)
    }

    @Test("unsupported combinations name what would work", arguments: [
        ("take.wav", RecordingSettings(format: .alac), "ALAC needs a .caf file, not .wav"),
        ("take.flac", RecordingSettings(format: .float),
         "FLAC holds 8, 16 or 24-bit integer samples, not float"),
        ("take.flac", RecordingSettings(bitDepth: 32),
         "FLAC holds 8, 16 or 24-bit integer samples, not 32-bit"),
        ("take.flac", RecordingSettings(format: .pcm), "FLAC holds 8, 16 or 24-bit integer samples, not 24-bit"),
        ("take.m4a", RecordingSettings(),
         "AAC cannot be written: libsndfile has no AAC encoder (ALAC in a .caf file, MP3, Opus and Vorbis can be)"),
        ("take.rf64", RecordingSettings(format: .imaADPCM), "IMA ADPCM needs a .wav, .w64 or .aiff file, not .rf64"),
        ("take.caf", RecordingSettings(format: .imaADPCM), "IMA ADPCM needs a .wav, .w64 or .aiff file, not .caf"),
        ("take.wav", RecordingSettings(format: .mp3), "MP3 needs a .mp3 file, not .wav"),
        ("take.mp3", RecordingSettings(format: .opus), "Opus needs a .ogg or .opus file, not .mp3"),
        ("take.opus", RecordingSettings(format: .vorbis), "Ogg Vorbis needs a .ogg file, not .opus"),
        ("take.ogg", RecordingSettings(format: .flac), "FLAC needs a .flac file, not .ogg"),
        ("take.flac", RecordingSettings(format: .ulaw), "u-law needs a .wav, .w64, .rf64, .caf, .aiff or .au file, not .flac"),
        ("take.wav", RecordingSettings(bitDepth: 20), "PCM holds 8, 16, 24 or 32-bit integer samples, not 20-bit"),
        ("take.wav", RecordingSettings(format: .float, bitDepth: 16),
         "float samples are 32 or 64-bit samples, not 16-bit"),
        ("take.caf", RecordingSettings(format: .alac, bitDepth: 8), "ALAC holds 16, 20, 24 or 32-bit integer samples, not 8-bit"),
        ("take.ogg", RecordingSettings(bitDepth: 16),
         "Ogg Vorbis has a fixed sample size and takes no bit depth"),
        ("take.wav", RecordingSettings(format: .ulaw, bitDepth: 8), "u-law has a fixed sample size and takes no bit depth"),
        ("take.wav", RecordingSettings(endianness: .big), "PCM in WAV is not written big-endian (only in a .caf, .aiff or .au file)"),
        ("take.rf64", RecordingSettings(format: .float, endianness: .big), "float in RF64 is not written big-endian (only in a .caf, .aiff or .au file)"),
        ("take.aiff", RecordingSettings(format: .float, endianness: .little), "float in AIFF is not written little-endian (only in a .wav, .w64, .rf64, .caf or .au file)"),
        ("take.flac", RecordingSettings(endianness: .little), "FLAC have no byte order"),
        ("take.aiff", RecordingSettings(bitDepth: 8, endianness: .little), "8-bit samples have no byte order"),
        ("take.wav", RecordingSettings(quality: 0.5), "a quality setting applies to mp3, vorbis and opus, not PCM"),
        ("take.flac", RecordingSettings(quality: 0.5), "a quality setting applies to mp3, vorbis and opus, not FLAC"),
        ("take.ogg", RecordingSettings(quality: 1.5), "quality 1.5 is out of range (0 for the smallest file to 1 for the best quality)"),
        ("take.opus", RecordingSettings(quality: -0.1), "quality -0.1 is out of range"),
        ("take.ogg", RecordingSettings(compressionLevel: 5), "a compression level applies to FLAC, not Ogg Vorbis"),
        ("take.flac", RecordingSettings(compressionLevel: 9), "compression level 9 is out of range (0, fastest, to 8, smallest)"),
        ("take.wav", RecordingSettings(sampleRate: 0), "sample rate 0 Hz is out of range (use 1 to 768000 Hz)"),
        ("take.wav", RecordingSettings(sampleRate: 768_001), "sample rate 768001 Hz is out of range"),
        ("take.mp3", RecordingSettings(sampleRate: 96_000),
         "MP3 cannot be written at 96000 Hz (it takes 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100 or 48000 Hz)"),
        ("take.opus", RecordingSettings(sampleRate: 44_100), "Opus cannot be written at 44100 Hz (it takes 8000, 12000, 16000, 24000 or 48000 Hz)"),
        ("take.ogg", RecordingSettings(sampleRate: 200_001), "Ogg Vorbis cannot be written at 200001 Hz (it takes 1 to 200000 Hz)"),
        ("take.flac", RecordingSettings(sampleRate: 655_351), "FLAC cannot be written at 655351 Hz (it takes 1 to 655350 Hz)"),
        ("take.flac", RecordingSettings(channelCount: 9), "FLAC holds at most 8 channels, not 9 (use PCM or float in a .wav, .w64 or .caf file)"),
        ("take.caf", RecordingSettings(format: .alac, channelCount: 9), "ALAC holds at most 8 channels, not 9"),
        ("take.mp3", RecordingSettings(channelCount: 3), "MP3 holds at most 2 channels, not 3"),
        ("take.wav", RecordingSettings(format: .imaADPCM, channelCount: 3), "IMA ADPCM holds at most 2 channels, not 3"),
        ("take.opus", RecordingSettings(channelCount: 256), "Opus holds at most 255 channels, not 256"),
        ("take.wav", RecordingSettings(channelCount: 0), "a file needs at least one channel"),
    ] as [(String, RecordingSettings, String)])
    func unsupported(path: String, settings: RecordingSettings, expected: String) {
        let message = Self.message(path, settings)
        #expect(message?.hasPrefix(expected) == true, "\(path): \(message ?? "accepted")")
    }

    @Test("limits that are allowed resolve", arguments: [
        ("take.mp3", RecordingSettings(sampleRate: 44_100, channelCount: 2)),
        ("take.mp3", RecordingSettings(sampleRate: 8_000, channelCount: 1)),
        ("take.opus", RecordingSettings(sampleRate: 12_000, channelCount: 255)),
        ("take.ogg", RecordingSettings(sampleRate: 200_000)),
        ("take.flac", RecordingSettings(sampleRate: 655_350, channelCount: 8)),
        ("take.caf", RecordingSettings(format: .alac, channelCount: 8)),
        ("take.wav", RecordingSettings(sampleRate: 768_000, channelCount: 1_024)),
        ("take.wav", RecordingSettings(sampleRate: 1)),
    ] as [(String, RecordingSettings)])
    func allowedLimits(path: String, settings: RecordingSettings) throws {
        _ = try Self.resolve(path, settings)
    }

    @Test("unknown extensions", arguments: [
        ("take.mp4x", ".mp4x"), ("take", "(none)"), ("take.", "(none)"), (".wav", "(none)"), ("dir.wav/take", "(none)"),
        ("take.txt", ".txt"),
    ])
    func unknownExtension(path: String, named: String) {
        #expect(throws: CaptureError.unsupportedExtension(named)) { try Self.resolve(path) }
    }

    @Test("the server's rate and the sources' channels are checked against the format")
    func validateAgainstTheTake() throws {
        let mp3 = try Self.resolve("x.mp3")
        try RecordingSettings().validate(mp3, channels: 2, serverSampleRate: 48_000)
        #expect(throws: CaptureError.format(.sampleRateNotAvailable(96_000, format: "MP3", allowed: AudioFormat.mp3.sampleRates.description))) {
            try RecordingSettings().validate(mp3, channels: 2, serverSampleRate: 96_000)
        }
        // A file rate of its own replaces the server's.
        try RecordingSettings(sampleRate: 48_000).validate(mp3, channels: 2, serverSampleRate: 96_000)
        #expect(throws: CaptureError.tooManyChannels(container: "MP3", maximum: 2, requested: 3)) {
            try RecordingSettings().validate(mp3, channels: 3, serverSampleRate: 48_000)
        }
        #expect(throws: CaptureError.format(.channelCountMismatch(requested: 4, sources: 2))) {
            try RecordingSettings(channelCount: 4).validate(try Self.resolve("x.wav"), channels: 2, serverSampleRate: 48_000)
        }
    }

    @Test("every combination: the valid ones are exactly the 75 libsndfile writes, each passing sf_format_check")
    func everyCombination() throws {
        let valid = FormatCombinations.valid
        // Per container: wav 9, w64 9, rf64 8, aiff 12, caf 17, au 13, flac 3, ogg 2, opus 1, mp3 1.
        #expect(valid.count == 75)
        let perContainer = Dictionary(grouping: valid, by: { $0.format.container }).mapValues(\.count)
        #expect(perContainer == [.wav: 9, .w64: 9, .rf64: 8, .aiff: 12, .caf: 17, .au: 13, .flac: 3, .ogg: 2, .opus: 1, .mp3: 1])
        // .wav and .rf64 are both written as RF64 (the .wav one downgrading), .ogg and .opus both as Ogg.
        for (container, formats) in Dictionary(grouping: valid.map(\.format), by: \.container) {
            #expect(Set(formats.map(\.sndfileFormat)).count == formats.count, "\(container): distinct formats, distinct codes")
        }
        for (candidate, format) in valid {
            var info = SF_INFO()
            info.samplerate = 48_000
            info.channels = Int32(FormatCombinations.channels(for: format))
            info.format = format.sndfileFormat
            #expect(sf_format_check(&info) == Int32(SF_TRUE), "\(candidate) → \(format.displayName)")
        }
    }

    @Test("every refused combination is a format error with a one-line description naming the format")
    func everyRefusal() {
        var refused = 0
        for candidate in FormatCombinations.candidates {
            do {
                _ = try candidate.settings.resolveFormat(forPath: candidate.path)
            } catch {
                refused += 1
                guard case .format = error else { Issue.record("\(candidate): \(error)"); continue }
                let message = error.description
                #expect(!message.contains("\n"))
                #expect(!message.isEmpty && !message.contains("--"), "\(candidate): \(message)")
            }
        }
        #expect(refused > 1_000, "the cross product is mostly refusals: \(refused)")
    }
}
