/// Everything that can stop a take from starting, or spoil it, each with a one-line description
/// that names what is wrong in the library's terms (a program adds its own advice: jcap names its
/// flags).
public enum CaptureError: Error, Equatable, Sendable {
    case jack(JackError)
    /// A physical capture channel (1-based) the server does not have.
    case noSuchChannel(Int, available: Int)
    /// A port name or pattern that matched no output port.
    case noPortMatches(String)
    /// A physical playback channel (1-based) the server does not have: a player's destination.
    case noSuchPlaybackChannel(Int, available: Int)
    /// A port name or pattern that matched no input port: a player's destination.
    case noInputPortMatches(String)
    /// A channel list that does not parse.
    case badChannelList(String, reason: String)
    /// A start time that does not parse.
    case badTime(String, reason: String)
    /// A duration that does not parse.
    case badDuration(String, reason: String)
    /// A start time that has already passed (when asked for, or by the time recording was ready).
    case startInPast(String)
    /// The output file exists and overwriting was not asked for.
    case outputExists(String)
    /// The output file cannot be created.
    case outputUnwritable(String, reason: String)
    /// `--io direct` where the file cannot be written around the page cache: its file system
    /// refuses O_DIRECT, or its encoding is one libsndfile reads back while writing.
    case directIORefused(String, reason: String)
    /// An output file extension jcap does not know.
    case unsupportedExtension(String)
    /// A format, bit depth, byte order, encoder setting or sample rate the file cannot have.
    case format(FormatError)
    /// A trigger level that does not parse as a level in dBFS.
    case badTriggerLevel(String)
    /// A trigger level outside -160 to 0 dBFS (or not a finite number).
    case triggerLevelOutOfRange(Double)
    /// More channels than the format allows.
    case tooManyChannels(container: String, maximum: Int, requested: Int)
    /// Writing the file failed mid-take (a full disk, an I/O error).
    case writeFailed(path: String, reason: String)
    /// libsamplerate cannot convert between these rates (a rate that is not positive, a ratio
    /// beyond 256:1), or failed while converting.
    case sampleRateConversion(inputRate: Int, outputRate: Int, reason: String)
    /// A ring buffer longer than this machine can hold (memory available, and the process's
    /// address-space and data limits, less a safety margin: `MemoryBudget`).
    case bufferTooLarge(requestedSeconds: Double, maximumSeconds: Double, channels: Int, sampleRate: Int)
    /// A ring buffer length that is not a finite number of seconds above zero.
    case badBufferLength(Double)
    /// `Take.start` called a second time, or a new take asked of a client while one is open.
    case alreadyStarted
    /// A take was asked of a `CaptureClient` already closed.
    case clientClosed
    /// libsndfile would not write this metadata (a bext chunk, an iXML chunk, a tag) to the file:
    /// the container cannot hold it, or audio was already written.
    case metadataRefused(path: String, item: String, reason: String)
    /// The file's metadata could not be read back.
    case metadataUnreadable(path: String, item: String, reason: String)
    /// Following the JACK transport on a NetJACK2 slave: the transport does not cross the link.
    case transportOnNetJackSlave
    /// Following the master's clock (`--master-clock`): the port named carries no timecode that
    /// decodes (`MasterTimecode`), so no frame of the master's clock can be known.
    case noMasterTimecode(port: String)
}

extension CaptureError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .jack(let error): return error.description
        case .noSuchChannel(let channel, let available):
            return available == 0
                ? "no capture channel \(channel): the JACK server has no physical capture ports"
                : "no capture channel \(channel): the JACK server has \(available) (1-\(available))"
        case .noPortMatches(let pattern):
            return "no JACK output port matches '\(pattern)'"
        case .noSuchPlaybackChannel(let channel, let available):
            return available == 0
                ? "no playback channel \(channel): the JACK server has no physical playback ports"
                : "no playback channel \(channel): the JACK server has \(available) (1-\(available))"
        case .noInputPortMatches(let pattern):
            return "no JACK input port to play to matches '\(pattern)'"
        case .badChannelList(let text, let reason):
            return "bad channel list '\(text)': \(reason)"
        case .badTime(let text, let reason):
            return "bad start time '\(text)': \(reason)"
        case .badDuration(let text, let reason):
            return "bad duration '\(text)': \(reason)"
        case .startInPast(let text):
            return "start time \(text) has already passed"
        case .outputExists(let path):
            return "'\(path)' already exists"
        case .outputUnwritable(let path, let reason):
            return "cannot create '\(path)': \(reason)"
        case .directIORefused(let path, let reason):
            return "cannot write '\(path)' around the page cache: \(reason)"
        case .unsupportedExtension(let ext):
            return "unsupported file extension '\(ext)' (use \(FileContainer.allExtensionsList))"
        case .format(let error):
            return error.description
        case .badTriggerLevel(let text):
            return "bad trigger level '\(text)': use a level in dBFS, like -40dB"
        case .triggerLevelOutOfRange(let decibels):
            return "trigger level \(decibels) dBFS is out of range: use a level from -160 to 0 dBFS"
        case .tooManyChannels(let container, let maximum, let requested):
            return "\(container) holds at most \(maximum) channels, not \(requested) (use PCM or float in a .wav, .w64 or .caf file)"
        case .writeFailed(let path, let reason):
            return "writing '\(path)' failed: \(reason)"
        case .sampleRateConversion(let inputRate, let outputRate, let reason):
            return "cannot convert \(inputRate) Hz to \(outputRate) Hz: \(reason)"
        case .bufferTooLarge(let requested, let maximum, let channels, let sampleRate):
            return "the buffer cannot hold \(CaptureError.seconds(requested)): this machine can hold at most "
                + "\(CaptureError.seconds(maximum)) of \(channels) channel\(channels == 1 ? "" : "s") at \(sampleRate) Hz"
        case .badBufferLength(let seconds):
            return "bad buffer length \(seconds) s: use a finite number of seconds above 0 (default 4)"
        case .clientClosed:
            return "the capture client is closed: open a new one to record"
        case .alreadyStarted:
            return "a take is already under way: finish it before starting another"
        case .metadataRefused(let path, let item, let reason):
            return "cannot write \(item) to '\(path)': \(reason)"
        case .metadataUnreadable(let path, let item, let reason):
            return "cannot read \(item) from '\(path)': \(reason)"
        case .transportOnNetJackSlave:
            return "this server is a NetJACK2 slave, and JACK transport does not cross NetJACK2: "
                + "follow the transport on the master"
        case .noMasterTimecode(let port):
            return "no master timecode on '\(port)': run jcap timecode on the master, patched to a spare "
                + "slave channel (to_slave_N), and give that channel's capture port here; the link must carry float samples"
        }
    }
}

extension CaptureError {
    /// Seconds as short text: `312.5s`, `100000s`, `0.048s` (to the millisecond, rounded down, so a
    /// maximum is never overstated), `1e+30s`.
    static func seconds(_ value: Double) -> String {
        guard value.isFinite, value >= 0, value < 1e15 else { return "\(value)s" }
        let milliseconds = (value * 1_000).rounded(.down)
        var text = String(Int64(milliseconds / 1_000))
        let fraction = Int64(milliseconds.truncatingRemainder(dividingBy: 1_000))
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "s"
    }
}

/// Why a file cannot have the format asked for; each description names what would work where the
/// library can say it (a container, the depths a format holds).
public enum FormatError: Error, Equatable, Sendable {
    /// A format name (`AudioFormat(name:)`) that names no format.
    case unknownFormat(String)
    /// AAC was asked for (by extension or by name).
    case noAACEncoder
    /// The container does not hold the encoding (ALAC in WAV).
    case containerCannotHold(format: String, fileExtension: String, containers: [String])
    /// A bit depth the format does not come in (32-bit FLAC, 16-bit float).
    case bitDepthNotAvailable(format: String, requested: String, allowed: [Int])
    /// A bit depth for a codec whose sample size is fixed (16-bit Vorbis).
    case bitDepthNotApplicable(format: String, requested: Int)
    /// A byte order for samples that have none (FLAC, 8-bit PCM).
    case endiannessNotApplicable(String)
    /// A byte order the container cannot store (big-endian WAV).
    case endiannessNotAvailable(Endianness, format: String, containers: [String])
    /// A quality setting for a format without one.
    case qualityNotApplicable(String)
    case qualityOutOfRange(Double)
    /// A compression level for a format other than FLAC.
    case compressionLevelNotApplicable(String)
    case compressionLevelOutOfRange(Int)
    /// A sample rate outside 1 Hz to 768 kHz.
    case sampleRateOutOfRange(Int)
    /// A sample rate the codec does not take (MP3 at 96 kHz).
    case sampleRateNotAvailable(Int, format: String, allowed: String)
    case noChannels
    /// `channelCount` set to other than the number of sources.
    case channelCountMismatch(requested: Int, sources: Int)
    /// libsndfile refused a format jcap's own checks let through.
    case libsndfileRefused(format: String, reason: String)
}

extension FormatError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unknownFormat(let name):
            if name.lowercased() == "aac" || name.lowercased() == "m4a" { return FormatError.noAACEncoder.description }
            return "unknown format '\(name)' (use \(AudioFormat.namesList))"
        case .noAACEncoder:
            return "AAC cannot be written: libsndfile has no AAC encoder (ALAC in a .caf file, MP3, Opus and Vorbis can be)"
        case .containerCannotHold(let format, let fileExtension, let containers):
            let here = fileExtension.isEmpty ? "" : ", not .\(fileExtension)"
            return "\(format) needs a \(containers.map { "." + $0 }.joinedAsPhrase()) file\(here)"
        case .bitDepthNotAvailable(let format, let requested, let allowed):
            let kind = format == "float" ? "float samples are" : "\(format) holds"
            let depths = allowed.map(String.init).joinedAsPhrase()
            let integers = format == "float" ? "" : " integer"
            return "\(kind) \(depths)-bit\(integers) samples, not \(requested)"
        case .bitDepthNotApplicable(let format, _):
            return "\(format) has a fixed sample size and takes no bit depth"
        case .endiannessNotApplicable(let what):
            return "\(what) have no byte order"
        case .endiannessNotAvailable(let endianness, let format, let containers):
            let elsewhere = containers.isEmpty ? "" : " (only in a \(containers.map { "." + $0 }.joinedAsPhrase()) file)"
            return "\(format) is not written \(endianness.rawValue)-endian\(elsewhere)"
        case .qualityNotApplicable(let format):
            return "a quality setting applies to mp3, vorbis and opus, not \(format)"
        case .qualityOutOfRange(let quality):
            return "quality \(quality) is out of range (0 for the smallest file to 1 for the best quality)"
        case .compressionLevelNotApplicable(let format):
            return "a compression level applies to FLAC, not \(format)"
        case .compressionLevelOutOfRange(let level):
            return "compression level \(level) is out of range (0, fastest, to 8, smallest)"
        case .sampleRateOutOfRange(let rate):
            return "sample rate \(rate) Hz is out of range (use \(RecordingSettings.sampleRates.lowerBound) to \(RecordingSettings.sampleRates.upperBound) Hz)"
        case .sampleRateNotAvailable(let rate, let format, let allowed):
            return "\(format) cannot be written at \(rate) Hz (it takes \(allowed))"
        case .noChannels:
            return "a file needs at least one channel"
        case .channelCountMismatch(let requested, let sources):
            return "the file is set to \(requested) channels but \(sources) sources are recorded (leave the channel count to the sources)"
        case .libsndfileRefused(let format, let reason):
            return "libsndfile cannot write \(format): \(reason)"
        }
    }
}
