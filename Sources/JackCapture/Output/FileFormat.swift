import CSndfile

/// The sample format of a PCM or float file.
public enum BitDepth: String, CaseIterable, Sendable {
    case int16 = "16"
    case int24 = "24"
    case int32 = "32"
    case float = "float"

    /// libsndfile's subtype (SF_FORMAT_PCM_16 ...).
    var sndfileSubtype: Int32 {
        switch self {
        case .int16: Int32(SF_FORMAT_PCM_16)
        case .int24: Int32(SF_FORMAT_PCM_24)
        case .int32: Int32(SF_FORMAT_PCM_32)
        case .float: Int32(SF_FORMAT_FLOAT)
        }
    }

    public var displayName: String { self == .float ? "32-bit float" : "\(rawValue)-bit" }
}

/// File types jcap writes, chosen by the output file's extension.
public enum FileContainer: String, CaseIterable, Sendable {
    case wav, w64, rf64, caf, aiff, flac, ogg, opus, mp3

    /// The container for a file extension (case-insensitive; `aif` is `aiff`).
    public init(fileExtension: String) throws(CaptureError) {
        let ext = fileExtension.lowercased()
        if ext == "aif" { self = .aiff; return }
        guard let container = FileContainer(rawValue: ext) else {
            throw .unsupportedExtension(fileExtension.isEmpty ? "(none)" : "." + fileExtension)
        }
        self = container
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
        case .flac: "FLAC"
        case .ogg: "Ogg Vorbis"
        case .opus: "Ogg Opus"
        case .mp3: "MP3"
        }
    }

    /// Sample formats the container holds, or nil for a lossy codec that takes none.
    var bitDepths: [BitDepth]? {
        switch self {
        case .wav, .w64, .rf64, .caf, .aiff: BitDepth.allCases
        case .flac: [.int16, .int24]
        case .ogg, .opus, .mp3: nil
        }
    }

    /// The most channels a file can have, where the codec sets a limit below jcap's own.
    var maximumChannels: Int? {
        switch self {
        case .flac: 8
        case .mp3: 2
        case .opus, .ogg: 255
        default: nil
        }
    }
}

/// A container and sample format, resolved to libsndfile's format code.
public struct FileFormat: Equatable, Sendable {
    public let container: FileContainer
    /// The sample format, or nil for a lossy codec.
    public let bitDepth: BitDepth?

    /// The format for an output path: the container from its extension, PCM containers at 24-bit
    /// unless `bitDepth` says otherwise (the most widely read depth that loses nothing JACK's
    /// float carries within a converter's dynamic range).
    public init(path: String, bitDepth: BitDepth?) throws(CaptureError) {
        let container = try FileContainer(fileExtension: FileFormat.fileExtension(of: path))
        try self.init(container: container, bitDepth: bitDepth)
    }

    public init(container: FileContainer, bitDepth: BitDepth?) throws(CaptureError) {
        self.container = container
        if let allowed = container.bitDepths {
            let depth = bitDepth ?? .int24
            guard allowed.contains(depth) else {
                let names = allowed.map(\.rawValue).joined(separator: " or ")
                throw .unsupportedEncoding(
                    "\(container.displayName) cannot hold \(depth.displayName) samples (use --bit-depth \(names), or a .wav, .w64 or .caf file)")
            }
            self.bitDepth = depth
        } else {
            if let bitDepth {
                throw .unsupportedEncoding(
                    "\(container.displayName) is a lossy codec and takes no bit depth (drop --bit-depth \(bitDepth.rawValue), or use .wav or .flac)")
            }
            self.bitDepth = nil
        }
    }

    static func fileExtension(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// libsndfile's format code (major type | subtype). WAV is written as RF64 with automatic
    /// downgrade: a plain WAV (WAVE_FORMAT_EXTENSIBLE) that becomes RF64 by itself past 4 GB.
    public var sndfileFormat: Int32 {
        let major: Int32
        switch container {
        case .wav, .rf64: major = Int32(SF_FORMAT_RF64)
        case .w64: major = Int32(SF_FORMAT_W64)
        case .caf: major = Int32(SF_FORMAT_CAF)
        case .aiff: major = Int32(SF_FORMAT_AIFF)
        case .flac: major = Int32(SF_FORMAT_FLAC)
        case .ogg: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        case .opus: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        case .mp3: return Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
        }
        return major | (bitDepth ?? .int24).sndfileSubtype
    }

    /// Checks a channel count against the container's limit.
    public func validate(channels: Int) throws(CaptureError) {
        if let maximum = container.maximumChannels, channels > maximum {
            throw .tooManyChannels(container: container.displayName, maximum: maximum, requested: channels)
        }
    }

    public var displayName: String {
        if let bitDepth { return "\(bitDepth.displayName) \(container.displayName)" }
        return container.displayName
    }
}
