import JackCapture
import Testing
@testable import jcap

@Suite("jcap's format flags")
struct JcapOptionsTests {
    static func settings(_ arguments: [String]) throws -> RecordingSettings {
        try RecordCommand.parse(arguments).makeConfiguration().settings
    }

    /// The error a command line gives, with the exit status jcap would end with.
    static func failure(_ arguments: [String]) throws -> (message: String, status: JcapExitStatus)? {
        let command = try RecordCommand.parse(arguments)
        do {
            _ = try command.makeConfiguration()
            return nil
        } catch {
            return (CommandLineAdvice.message(for: error), JcapExitStatus(for: error))
        }
    }

    @Test("no flags: everything from the extension and the server")
    func defaults() throws {
        let settings = try Self.settings([])
        #expect(settings == RecordingSettings())
        #expect(try settings.resolveFormat(forPath: "take-001.wav").displayName == "24-bit WAV")
    }

    static let parsedCases: [([String], RecordingSettings)] = [
        (["--format", "pcm", "--bit-depth", "16"], RecordingSettings(format: .pcm, bitDepth: 16)),
        (["--format", "FLOAT", "--bit-depth", "64"], RecordingSettings(format: .float, bitDepth: 64)),
        (["--bit-depth", "float"], RecordingSettings(format: .float, bitDepth: 32)),
        (["--bit-depth", "Float", "--format", "float"], RecordingSettings(format: .float, bitDepth: 32)),
        (["-o", "a.caf", "--format", "alac", "--bit-depth", "20"], RecordingSettings(format: .alac, bitDepth: 20)),
        (["-o", "a.aiff", "--endian", "little", "--bit-depth", "16"], RecordingSettings(bitDepth: 16, endianness: .little)),
        (["--rate", "44100"], RecordingSettings(sampleRate: 44_100)),
        (["--rate", "44.1k"], RecordingSettings(sampleRate: 44_100)),
        (["--rate", "96K"], RecordingSettings(sampleRate: 96_000)),
        (["-o", "a.opus", "--quality", "0.6"], RecordingSettings(quality: 0.6)),
        (["-o", "a.ogg", "--format", "opus", "--quality", "1"], RecordingSettings(format: .opus, quality: 1)),
        (["-o", "a.mp3", "--quality", "0"], RecordingSettings(quality: 0)),
        (["-o", "a.flac", "--compression-level", "8"], RecordingSettings(compressionLevel: 8)),
        (["--src-quality", "linear", "--rate", "96000"], RecordingSettings(sampleRate: 96_000, converterQuality: .linear)),
        (["--src-quality", "Zero-Order-Hold"], RecordingSettings(converterQuality: .zeroOrderHold)),
        (["-o", "a.au", "--format", "ulaw", "--overwrite"], RecordingSettings(format: .ulaw, overwritesExistingFile: true)),
        (["-o", "a.wav", "--format", "ima-adpcm"], RecordingSettings(format: .imaADPCM)),
    ]

    @Test("flags become settings", arguments: parsedCases)
    func parsed(arguments: [String], expected: RecordingSettings) throws {
        #expect(try Self.settings(arguments) == expected)
    }

    static let badCases: [([String], JcapExitStatus, String)] = [
        (["--format", "wma"], .unsupportedFormat, "unknown format 'wma' (use pcm, float, flac, alac, ima-adpcm, ulaw, alaw, mp3, vorbis or opus)"),
        (["--format", "aac"], .unsupportedFormat, "jcap cannot write AAC: libsndfile has no AAC encoder (use --format alac with .caf, or --format mp3/opus/vorbis)"),
        (["-o", "a.m4a"], .unsupportedFormat, "jcap cannot write AAC"),
        (["-o", "a.wav", "--format", "alac"], .unsupportedFormat, "ALAC needs a .caf file, not .wav"),
        (["--format", "alac"], .unsupportedFormat, "ALAC needs a .caf file, not .wav"),
        (["-o", "a.flac", "--bit-depth", "float"], .unsupportedFormat,
         "FLAC holds 8, 16 or 24-bit integer samples, not float (use --bit-depth 16 or 24, or a .wav/.caf file)"),
        (["--bit-depth", "12"], .unsupportedFormat, "PCM holds 8, 16, 24 or 32-bit integer samples, not 12-bit"),
        (["--bit-depth", "twelve"], .usage, "bad --bit-depth 'twelve': use 8, 16, 20, 24, 32 or 64, or float"),
        (["--bit-depth=-16"], .usage, "bad --bit-depth '-16'"),
        (["--format", "pcm", "--bit-depth", "float"], .usage,
         "bad --bit-depth 'float': use a number of bits with --format pcm ('float' means --format float)"),
        (["-o", "a.ogg", "--bit-depth", "16"], .unsupportedFormat, "Ogg Vorbis has a fixed sample size and takes no bit depth"),
        (["--endian", "middle"], .usage, "bad --endian 'middle': use little or big"),
        (["--endian", "big"], .unsupportedFormat, "PCM in WAV is not written big-endian (drop --endian, or use a .caf, .aiff or .au file)"),
        (["--rate", "fast"], .usage, "bad --rate 'fast': use a whole number of hertz (48000) or kilohertz (44.1k)"),
        (["--rate", "44.1"], .usage, "bad --rate '44.1'"),
        (["--rate", "0"], .unsupportedFormat, "sample rate 0 Hz is out of range (use 1 to 768000 Hz)"),
        (["--rate", "1000k"], .unsupportedFormat, "sample rate 1000000 Hz is out of range"),
        (["-o", "a.mp3", "--rate", "96k"], .unsupportedFormat, "MP3 cannot be written at 96000 Hz"),
        (["-o", "a.opus", "--rate", "44100"], .unsupportedFormat, "Opus cannot be written at 44100 Hz (use --rate 8000, 12000, 16000, 24000 or 48000 Hz"),
        (["--quality", "high"], .usage, "bad --quality 'high': use a number from 0 (smallest) to 1 (best)"),
        (["--quality", "nan"], .usage, "bad --quality 'nan'"),
        (["-o", "a.ogg", "--quality", "2"], .unsupportedFormat, "--quality 2.0 is out of range"),
        (["--quality", "0.5"], .unsupportedFormat, "--quality applies to mp3, vorbis and opus, not PCM (drop --quality)"),
        (["-o", "a.flac", "--compression-level", "x"], .usage, "bad --compression-level 'x': use a whole number from 0 to 8"),
        (["-o", "a.flac", "--compression-level", "9"], .unsupportedFormat, "--compression-level 9 is out of range"),
        (["-o", "a.mp3", "--compression-level", "3"], .unsupportedFormat, "--compression-level applies to FLAC, not MP3"),
        (["--src-quality", "great"], .usage, "bad --src-quality 'great': use best, medium, fastest, zero-order-hold or linear"),
        (["--trigger", "-200dB"], .usage, "bad --trigger '-200dB': use a level from -160dB to 0dB"),
        (["--trigger", "loud"], .usage, "bad --trigger 'loud': use a level in dBFS, like -40dB"),
        (["--split", "0s", "--for", "1s"], .badTime, "bad --split '0s': a split must be at least 1s"),
        (["--split", "48000f", "--for", "1s"], .badTime, "bad --split '48000f': a split is a time on the clock, not frames"),
    ]

    @Test("bad values: one line naming what is allowed, 16 for a format the file cannot have, 64 for a value that does not parse",
          arguments: badCases)
    func badValues(arguments: [String], status: JcapExitStatus, message: String) throws {
        let failure = try Self.failure(arguments)
        #expect(failure?.status == status, "\(arguments)")
        #expect(failure?.message.hasPrefix(message) == true, "\(arguments): \(failure?.message ?? "accepted")")
        #expect(failure?.message.contains("\n") == false)
    }
}
