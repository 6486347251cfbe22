/// Everything that can stop jcap from recording, or spoil a take, each with a one-line message
/// that names what is wrong.
public enum CaptureError: Error, Equatable, Sendable {
    case jack(JackError)
    /// `--channels` asked for a physical capture channel the server does not have.
    case noSuchChannel(Int, available: Int)
    /// A `--port` name or pattern matched no output port.
    case noPortMatches(String)
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
    /// An output file extension jcap does not know.
    case unsupportedExtension(String)
    /// A sample format the container cannot hold.
    case unsupportedEncoding(String)
    /// More channels than the container allows.
    case tooManyChannels(container: String, maximum: Int, requested: Int)
    /// Writing the file failed mid-take (a full disk, an I/O error).
    case writeFailed(path: String, reason: String)
    /// libsamplerate cannot convert between these rates (a rate that is not positive, a ratio
    /// beyond 256:1), or failed while converting.
    case sampleRateConversion(inputRate: Int, outputRate: Int, reason: String)
}

extension CaptureError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .jack(let error): return error.description
        case .noSuchChannel(let channel, let available):
            return available == 0
                ? "no capture channel \(channel): the JACK server has no physical capture ports (use --port)"
                : "no capture channel \(channel): the JACK server has \(available) (1-\(available))"
        case .noPortMatches(let pattern):
            return "no JACK output port matches '\(pattern)' (jack_lsp lists them)"
        case .badChannelList(let text, let reason):
            return "bad channel list '\(text)': \(reason)"
        case .badTime(let text, let reason):
            return "bad start time '\(text)': \(reason)"
        case .badDuration(let text, let reason):
            return "bad duration '\(text)': \(reason)"
        case .startInPast(let text):
            return "start time \(text) has already passed"
        case .outputExists(let path):
            return "'\(path)' already exists (use --overwrite to replace it)"
        case .outputUnwritable(let path, let reason):
            return "cannot create '\(path)': \(reason)"
        case .unsupportedExtension(let ext):
            return "unsupported file extension '\(ext)' (use \(FileContainer.allExtensionsList))"
        case .unsupportedEncoding(let reason):
            return reason
        case .tooManyChannels(let container, let maximum, let requested):
            return "\(container) holds at most \(maximum) channels, not \(requested) (use .wav, .w64 or .caf)"
        case .writeFailed(let path, let reason):
            return "writing '\(path)' failed: \(reason)"
        case .sampleRateConversion(let inputRate, let outputRate, let reason):
            return "cannot convert \(inputRate) Hz to \(outputRate) Hz: \(reason)"
        }
    }
}
