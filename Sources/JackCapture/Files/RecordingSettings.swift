/// What the file of a take should be, as asked for: every field nil takes its default from the
/// output file's extension, the JACK server or the sources. `resolveFormat(forPath:)` turns it
/// into a concrete `FileFormat` or a typed error naming what would work.
public struct RecordingSettings: Sendable, Equatable {
    /// The encoding; nil: the extension's (PCM for wav/w64/rf64/caf/aiff/au, else its codec).
    public var format: AudioFormat?
    /// Bits a sample for PCM (8, 16, 24, 32), float (32, 64), FLAC (8, 16, 24) and ALAC (16, 20,
    /// 24, 32); nil: 24 (float: 32).
    public var bitDepth: Int?
    /// Byte order for PCM and float samples wider than 8 bits; nil: the container's own (WAV
    /// little, AIFF, CAF and AU big).
    public var endianness: Endianness?
    /// The file's sample rate; nil: the JACK server's. Another rate is reached by resampling.
    public var sampleRate: Int?
    /// Channels in the file; nil: one per source.
    public var channelCount: Int?
    /// Encoder quality from 0 (smallest file) to 1 (best) for MP3, Vorbis and Opus, libsndfile's
    /// SFC_SET_VBR_ENCODING_QUALITY; nil: libsndfile's default. libsndfile 1.2.0 has no bit rate
    /// setting: this is the control (Opus: a target of 6 to 256 kbit/s a channel; MP3: LAME's VBR
    /// quality; Vorbis: libvorbis's VBR quality).
    public var quality: Double?
    /// FLAC compression level 0 (fastest) to 8 (smallest), as the flac tool's -0 to -8; nil: 5.
    public var compressionLevel: Int?
    /// How a file at a rate other than the server's is resampled.
    public var converterQuality: SampleRateConverterQuality = .best
    /// Replace an existing file; otherwise it is never touched.
    public var overwritesExistingFile = false
    /// Around the page cache (O_DIRECT) or through it; `auto` falls back per file system.
    public var diskIO: DiskIO = .auto

    /// Every sample rate jcap writes, whatever the format.
    public static let sampleRates = 1...768_000

    /// FLAC's compression levels.
    public static let compressionLevels = 0...8

    public init(format: AudioFormat? = nil, bitDepth: Int? = nil, endianness: Endianness? = nil,
                sampleRate: Int? = nil, channelCount: Int? = nil, quality: Double? = nil,
                compressionLevel: Int? = nil, converterQuality: SampleRateConverterQuality = .best,
                overwritesExistingFile: Bool = false) {
        self.format = format
        self.bitDepth = bitDepth
        self.endianness = endianness
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.quality = quality
        self.compressionLevel = compressionLevel
        self.converterQuality = converterQuality
        self.overwritesExistingFile = overwritesExistingFile
    }

    /// The concrete format for an output path: the container from its extension, then the
    /// encoding, bit depth, byte order and encoder settings, each checked against what the
    /// container and codec can hold. A sample rate or channel count set here is checked too; the
    /// server's rate and the sources' count are checked by `validate(_:channels:serverSampleRate:)`.
    package func resolveFormat(forPath path: String) throws(CaptureError) -> FileFormat {
        let fileExtension = FileFormat.fileExtension(of: path)
        let container = try FileContainer(fileExtension: fileExtension)
        let encoding = format ?? container.defaultFormat
        guard container.formats.contains(encoding) else {
            if container == .flac, encoding == .float || encoding == .pcm {
                throw .format(.bitDepthNotAvailable(format: "FLAC", requested: encoding == .float ? "float" : "\(bitDepth ?? 24)-bit",
                                                    allowed: [8, 16, 24]))
            }
            throw .format(.containerCannotHold(format: encoding.displayName, fileExtension: fileExtension.lowercased(),
                                               containers: encoding.containers.map(\.rawValue)))
        }

        var depth: Int?
        if let depths = encoding.bitDepths {
            depth = bitDepth ?? depths.standard
            if let depth, !depths.allowed.contains(depth) {
                throw .format(.bitDepthNotAvailable(format: encoding == .float ? "float" : encoding.displayName,
                                                    requested: "\(depth)-bit", allowed: depths.allowed))
            }
        } else if let bitDepth {
            throw .format(.bitDepthNotApplicable(format: encoding.displayName, requested: bitDepth))
        }

        var order: Endianness?
        let orders = container.endiannesses(for: encoding, bitDepth: depth ?? 0)
        if let endianness {
            guard !orders.isEmpty else {
                let what = depth == 8 ? "8-bit samples" : encoding.displayName
                throw .format(.endiannessNotApplicable(what))
            }
            guard orders.contains(endianness) else {
                let others = FileContainer.allCases.filter {
                    $0.formats.contains(encoding) && $0.endiannesses(for: encoding, bitDepth: depth ?? 0).contains(endianness)
                }
                throw .format(.endiannessNotAvailable(endianness, format: "\(encoding == .float ? "float" : encoding.displayName) in \(container.displayName)",
                                                      containers: others.map(\.rawValue)))
            }
            order = endianness
        } else {
            order = orders.first
        }

        if let quality {
            guard encoding.takesQuality else { throw .format(.qualityNotApplicable(encoding.displayName)) }
            guard (0...1).contains(quality) else { throw .format(.qualityOutOfRange(quality)) }
        }
        if let compressionLevel {
            guard encoding == .flac else { throw .format(.compressionLevelNotApplicable(encoding.displayName)) }
            guard Self.compressionLevels.contains(compressionLevel) else {
                throw .format(.compressionLevelOutOfRange(compressionLevel))
            }
        }

        let resolved = FileFormat(container: container, encoding: encoding, bitDepth: depth, endianness: order,
                                  quality: quality, compressionLevel: compressionLevel)
        if let sampleRate { try resolved.validate(sampleRate: sampleRate) }
        if let channelCount { try resolved.validate(channels: channelCount) }
        return resolved
    }

    /// Checks a resolved format against what the take delivers: the sources' channel count (which
    /// `channelCount`, when set, must match) and the file's rate (`sampleRate`, or the server's).
    package func validate(_ format: FileFormat, channels: Int, serverSampleRate: Int) throws(CaptureError) {
        if let channelCount, channelCount != channels {
            throw .format(.channelCountMismatch(requested: channelCount, sources: channels))
        }
        try format.validate(channels: channels)
        try format.validate(sampleRate: sampleRate ?? serverSampleRate)
    }
}
