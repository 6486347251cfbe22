/// A failure the core ran into: the library error as it came, so a surface can word it (jcap adds
/// its flags) and map it to a status.
public enum ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    case capture(CaptureError)
    case session(StudioSessionError)
    case player(PlayerError)

    public var description: String {
        switch self {
        case .capture(let error): error.description
        case .session(let error): error.description
        case .player(let error): error.description
        }
    }
}
