import CSndfile

/// How samples are encoded: every encoding libsndfile can write that a recording can use. The raw
/// values are the formats' names.
public enum AudioFormat: String, CaseIterable, Sendable {
    /// Linear PCM integers, 8, 16, 24 or 32 bits.
    case pcm
    /// IEEE floating point, 32 or 64 bits.
    case float
    /// FLAC, lossless, 8, 16 or 24 bits.
    case flac
    /// Apple Lossless in CAF, 16, 20, 24 or 32 bits.
    case alac
    /// IMA ADPCM: 4 bits a sample, lossy, one or two channels.
    case imaADPCM = "ima-adpcm"
    /// G.711 u-law: 8-bit logarithmic codes (about 14 bits of range), lossy.
    case ulaw
    /// G.711 A-law: 8-bit logarithmic codes (about 13 bits of range), lossy.
    case alaw
    /// MPEG-1/2 layer III through LAME.
    case mp3
    /// Ogg Vorbis.
    case vorbis
    /// Opus (in Ogg).
    case opus

    /// The format `name` names (case-insensitive); nil for a name jcap does not know.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }

    /// The formats' names, for messages: "pcm, float, ... or opus".
    package static var namesList: String {
        allCases.map(\.rawValue).joinedAsPhrase()
    }

    public var displayName: String {
        switch self {
        case .pcm: "PCM"
        case .float: "float"
        case .flac: "FLAC"
        case .alac: "ALAC"
        case .imaADPCM: "IMA ADPCM"
        case .ulaw: "u-law"
        case .alaw: "A-law"
        case .mp3: "MP3"
        case .vorbis: "Ogg Vorbis"
        case .opus: "Opus"
        }
    }

    /// The bit depths the encoding comes in, and the one used when none is asked for; nil for an
    /// encoding whose sample size is fixed by the codec.
    public var bitDepths: (allowed: [Int], standard: Int)? {
        switch self {
        case .pcm: ([8, 16, 24, 32], 24)
        case .float: ([32, 64], 32)
        case .flac: ([8, 16, 24], 24)
        case .alac: ([16, 20, 24, 32], 24)
        case .imaADPCM, .ulaw, .alaw, .mp3, .vorbis, .opus: nil
        }
    }

    /// True for the codecs `RecordingSettings.quality` steers (their encoder trades size for fidelity).
    public var takesQuality: Bool { self == .mp3 || self == .vorbis || self == .opus }

    /// Sample rates the encoder accepts, where it limits them more than jcap's 1 Hz to 768 kHz.
    /// Measured with libsndfile 1.2.0 by writing and reading back: LAME takes only the nine MPEG
    /// rates, libopus only its five, libvorbis writes above 200 kHz files it cannot read back, and
    /// FLAC's STREAMINFO holds at most 655,350 Hz.
    public var sampleRates: SampleRateLimit {
        switch self {
        case .mp3: .only([8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000])
        case .opus: .only([8_000, 12_000, 16_000, 24_000, 48_000])
        case .vorbis: .upTo(200_000)
        case .flac: .upTo(655_350)
        default: .upTo(RecordingSettings.sampleRates.upperBound)
        }
    }

    /// The most channels a file can hold, where the codec sets a limit (libsndfile 1.2.0: FLAC and
    /// ALAC 8, writing more ALAC channels gives a file it cannot read back; LAME 2; IMA ADPCM 2;
    /// Ogg's channel mapping 255).
    public var maximumChannels: Int? {
        switch self {
        case .flac, .alac: 8
        case .mp3, .imaADPCM: 2
        case .vorbis, .opus: 255
        case .pcm, .float, .ulaw, .alaw: nil
        }
    }

    /// The containers that hold this format, in the order messages suggest them.
    public var containers: [FileContainer] { FileContainer.allCases.filter { $0.formats.contains(self) } }
}

/// The sample rates a codec takes.
public enum SampleRateLimit: Equatable, Sendable {
    case only([Int])
    case upTo(Int)

    public func allows(_ rate: Int) -> Bool {
        switch self {
        case .only(let rates): rates.contains(rate)
        case .upTo(let maximum): RecordingSettings.sampleRates.contains(rate) && rate <= maximum
        }
    }

    /// "8000, 12000, 16000, 24000 or 48000 Hz", "1 to 200000 Hz".
    public var description: String {
        switch self {
        case .only(let rates):
            return rates.map(String.init).joinedAsPhrase() + " Hz"
        case .upTo(let maximum): return "\(RecordingSettings.sampleRates.lowerBound) to \(maximum) Hz"
        }
    }
}

/// Byte order of multi-byte PCM and float samples.
public enum Endianness: String, CaseIterable, Sendable {
    case little, big

    var sndfileFlag: Int32 { self == .little ? Int32(SF_ENDIAN_LITTLE) : Int32(SF_ENDIAN_BIG) }
}

/// File types jcap writes, chosen by the output file's extension.
public enum FileContainer: String, CaseIterable, Sendable {
    case wav, w64, rf64, caf, aiff, au, flac, ogg, opus, mp3

    /// The container for a file extension (case-insensitive; `aif` is `aiff`, `snd` is `au`).
    public init(fileExtension: String) throws(CaptureError) {
        switch fileExtension.lowercased() {
        case "aif": self = .aiff
        case "snd": self = .au
        case "m4a", "aac": throw .format(.noAACEncoder)
        case let ext:
            guard let container = FileContainer(rawValue: ext) else {
                throw .unsupportedExtension(fileExtension.isEmpty ? "(none)" : "." + fileExtension)
            }
            self = container
        }
    }

    static var allExtensionsList: String {
        allCases.map { "." + $0.rawValue }.joined(separator: ", ")
    }

    public var displayName: String {
        switch self {
        case .wav: "WAV"
        case .w64: "Wave64"
        case .rf64: "RF64"
        case .caf: "CAF"
        case .aiff: "AIFF"
        case .au: "AU"
        case .flac: "FLAC"
        case .ogg: "Ogg"
        case .opus: "Ogg Opus"
        case .mp3: "MP3"
        }
    }

    /// The encodings the container holds (measured with sf_format_check and by writing each):
    /// RF64 cannot hold IMA ADPCM, CAF and AU cannot either; ALAC lives only in CAF.
    public var formats: [AudioFormat] {
        switch self {
        case .wav, .w64, .aiff: [.pcm, .float, .ulaw, .alaw, .imaADPCM]
        case .rf64, .au: [.pcm, .float, .ulaw, .alaw]
        case .caf: [.pcm, .float, .ulaw, .alaw, .alac]
        case .flac: [.flac]
        case .ogg: [.vorbis, .opus]
        case .opus: [.opus]
        case .mp3: [.mp3]
        }
    }

    /// The format a file gets when none is asked for: 24-bit PCM where the container holds PCM
    /// (the most widely read depth that loses nothing a converter delivers), else its codec.
    public var defaultFormat: AudioFormat { formats[0] }

    /// The byte order the container stores samples in when none is asked for; nil when it has none.
    var nativeEndianness: Endianness? {
        switch self {
        case .wav, .w64, .rf64: .little
        case .caf, .aiff, .au: .big
        case .flac, .ogg, .opus, .mp3: nil
        }
    }

    /// The byte orders the container can store `format` at `bitDepth` in (libsndfile 1.2.0: AIFF
    /// writes little-endian integers as AIFC 'sowt' but float only big-endian; the RIFF family is
    /// written little-endian only, since big-endian RIFX is read by almost nothing).
    func endiannesses(for format: AudioFormat, bitDepth: Int) -> [Endianness] {
        guard format == .pcm || format == .float, bitDepth > 8, let native = nativeEndianness else { return [] }
        switch self {
        case .wav, .w64, .rf64: return [.little]
        case .aiff: return format == .float ? [.big] : [.big, .little]
        case .caf, .au: return [native, native == .big ? .little : .big]
        case .flac, .ogg, .opus, .mp3: return []
        }
    }
}

/// A concrete, validated file format: container, encoding, bit depth, byte order and encoder
/// settings, with libsndfile's format code. Made by `RecordingSettings.resolveFormat(forPath:)`.
public struct FileFormat: Equatable, Sendable {
    public let container: FileContainer
    public let encoding: AudioFormat
    /// Bits a sample for PCM, float, FLAC and ALAC; nil for codecs with a fixed sample size.
    public let bitDepth: Int?
    /// Byte order of multi-byte PCM and float samples; nil where it does not apply.
    public let endianness: Endianness?
    /// VBR quality from 0 (smallest) to 1 (best) for MP3, Vorbis and Opus; nil: libsndfile's default.
    public let quality: Double?
    /// FLAC compression level 0 (fastest) to 8 (smallest); nil: libsndfile's default (5).
    public let compressionLevel: Int?

    init(container: FileContainer, encoding: AudioFormat, bitDepth: Int?, endianness: Endianness?,
         quality: Double?, compressionLevel: Int?) {
        self.container = container
        self.encoding = encoding
        self.bitDepth = bitDepth
        self.endianness = endianness
        self.quality = quality
        self.compressionLevel = compressionLevel
    }

    static func fileExtension(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// True when a .wav file is written as RF64 with automatic downgrade: a plain WAV
    /// (WAVE_FORMAT_EXTENSIBLE) that becomes RF64 by itself past 4 GB. libsndfile's RF64 holds
    /// PCM, float, u-law and A-law but not IMA ADPCM, which is written as plain WAV.
    package var isAutoDowngradingRF64: Bool { container == .wav && encoding != .imaADPCM }

    /// Whether libsndfile writes the file sample by sample and never reads it back while writing,
    /// so it can be written around the page cache (`DiskIO`): PCM, float, u-law and A-law in the
    /// uncompressed containers. FLAC, ALAC, ADPCM, MP3, Vorbis and Opus stay buffered.
    package var isWrittenSampleBySample: Bool {
        [.wav, .w64, .rf64, .caf, .aiff, .au].contains(container) && [.pcm, .float, .ulaw, .alaw].contains(encoding)
    }

    /// libsndfile's format code: major type | subtype | byte order.
    package var sndfileFormat: Int32 {
        let major: Int32
        switch container {
        case .wav: major = Int32(isAutoDowngradingRF64 ? SF_FORMAT_RF64 : SF_FORMAT_WAV)
        case .rf64: major = Int32(SF_FORMAT_RF64)
        case .w64: major = Int32(SF_FORMAT_W64)
        case .caf: major = Int32(SF_FORMAT_CAF)
        case .aiff: major = Int32(SF_FORMAT_AIFF)
        case .au: major = Int32(SF_FORMAT_AU)
        case .flac: major = Int32(SF_FORMAT_FLAC)
        case .ogg, .opus: major = Int32(SF_FORMAT_OGG)
        case .mp3: major = Int32(SF_FORMAT_MPEG)
        }
        // The container's own byte order is left to libsndfile (SF_ENDIAN_FILE); only the other one
        // is asked for explicitly.
        let order = endianness.flatMap { $0 == container.nativeEndianness ? nil : $0.sndfileFlag } ?? 0
        return major | sndfileSubtype | order
    }

    var sndfileSubtype: Int32 {
        let subtype: Int
        switch (encoding, bitDepth ?? 0) {
        // The RIFF family stores 8-bit PCM unsigned and has no signed form; the others signed.
        case (.pcm, 8): subtype = [.wav, .w64, .rf64].contains(container) ? SF_FORMAT_PCM_U8 : SF_FORMAT_PCM_S8
        case (.pcm, 16), (.flac, 16): subtype = SF_FORMAT_PCM_16
        case (.pcm, 24), (.flac, 24): subtype = SF_FORMAT_PCM_24
        case (.pcm, _): subtype = SF_FORMAT_PCM_32
        case (.flac, _): subtype = SF_FORMAT_PCM_S8
        case (.float, 64): subtype = SF_FORMAT_DOUBLE
        case (.float, _): subtype = SF_FORMAT_FLOAT
        case (.alac, 16): subtype = SF_FORMAT_ALAC_16
        case (.alac, 20): subtype = SF_FORMAT_ALAC_20
        case (.alac, 24): subtype = SF_FORMAT_ALAC_24
        case (.alac, _): subtype = SF_FORMAT_ALAC_32
        case (.imaADPCM, _): subtype = SF_FORMAT_IMA_ADPCM
        case (.ulaw, _): subtype = SF_FORMAT_ULAW
        case (.alaw, _): subtype = SF_FORMAT_ALAW
        case (.mp3, _): subtype = SF_FORMAT_MPEG_LAYER_III
        case (.vorbis, _): subtype = SF_FORMAT_VORBIS
        case (.opus, _): subtype = SF_FORMAT_OPUS
        }
        return Int32(subtype)
    }

    /// Checks a channel count against the codec's limit.
    package func validate(channels: Int) throws(CaptureError) {
        guard channels >= 1 else { throw .format(.noChannels) }
        if let maximum = encoding.maximumChannels, channels > maximum {
            throw .tooManyChannels(container: encoding.displayName, maximum: maximum, requested: channels)
        }
    }

    /// Checks a sample rate against jcap's range and the codec's rates.
    package func validate(sampleRate: Int) throws(CaptureError) {
        guard RecordingSettings.sampleRates.contains(sampleRate) else { throw .format(.sampleRateOutOfRange(sampleRate)) }
        guard encoding.sampleRates.allows(sampleRate) else {
            throw .format(.sampleRateNotAvailable(sampleRate, format: encoding.displayName,
                                                  allowed: encoding.sampleRates.description))
        }
    }

    /// "24-bit WAV", "16-bit little-endian AIFF", "32-bit float CAF", "FLAC 16-bit", "ALAC 24-bit",
    /// "u-law AU", "Opus q0.6".
    public var displayName: String {
        let depth = bitDepth.map { "\($0)-bit" } ?? ""
        let order = endianness.flatMap { $0 == container.nativeEndianness ? nil : "\($0.rawValue)-endian " } ?? ""
        switch encoding {
        case .pcm: return "\(depth) \(order)\(container.displayName)"
        case .float: return "\(depth) float \(order)\(container.displayName)"
        case .flac: return "FLAC \(depth)" + (compressionLevel.map { " level \($0)" } ?? "")
        case .alac: return "ALAC \(depth)"
        case .imaADPCM, .ulaw, .alaw: return "\(encoding.displayName) \(container.displayName)"
        case .mp3, .vorbis, .opus: return encoding.displayName + (quality.map { " q" + FileFormat.decimal($0) } ?? "")
        }
    }

    /// A quality as short text: 0.6, 0.65, 1.
    static func decimal(_ value: Double) -> String {
        var text = String(Int((value * 100).rounded()) / 100)
        let hundredths = Int((value * 100).rounded()) % 100
        if hundredths != 0 {
            text += "." + (hundredths % 10 == 0 ? String(hundredths / 10) : (hundredths < 10 ? "0" : "") + String(hundredths))
        }
        return text
    }
}
