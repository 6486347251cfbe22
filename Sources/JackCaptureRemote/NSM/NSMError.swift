/// Why jcap could not run under the session manager `NSM_URL` names.
public enum NSMError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The OSC port to talk to the manager could not be opened.
    case cannotListen(OSCError)
    /// The manager answered the announce with `/error`.
    case announceRefused(code: Int32, message: String)
    /// No `/reply` to the announce within the time given.
    case noReply(url: String, seconds: Double)
    /// The session the manager asked for could not be opened (its `/error` reply was sent).
    case openFailed(NSMErrorCode, String)

    public var description: String {
        switch self {
        case .cannotListen(let error): return "cannot talk to the session manager: \(error)"
        case .announceRefused(let code, let message):
            return "the session manager refused jcap (error \(code)): \(message)"
        case .noReply(let url, let seconds):
            return "no reply from the session manager at NSM_URL=\(url) within \(Int(seconds)) s (is it running?)"
        case .openFailed(_, let message): return message
        }
    }
}
