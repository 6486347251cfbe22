/// Why the browser remote could not start: a one-line message naming what is wrong.
public enum WebRemoteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `--remote` or `[remote]` that does not parse.
    case badAddress(String, reason: String)
    /// A token that cannot be one (too short, or characters a URL would have to escape).
    case badToken(reason: String)
    /// The server could not listen there (address in use, not this machine's).
    case cannotListen(WebRemoteAddress, reason: String)
    /// The page's files are missing from the installation.
    case pageMissing(String)

    public var description: String {
        switch self {
        case .badAddress(let text, let reason): "remote address '\(text)': \(reason)"
        case .badToken(let reason): "remote token: \(reason)"
        case .cannotListen(let address, let reason): "the browser remote cannot listen on \(address): \(reason)"
        case .pageMissing(let name): "the browser remote's page is missing (\(name)); reinstall jcap"
        }
    }
}
