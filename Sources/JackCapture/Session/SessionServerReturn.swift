/// What `StudioSession.reopenOnReturnedServer` found.
public enum SessionServerReturn: Sendable {
    /// The server is not back yet.
    case notYet
    /// The server is back, but a track's source is not (its client has not started yet): the
    /// session waits for it. The error says which.
    case sourcesMissing(StudioSessionError)
    /// The session's ports are open on the server again and connected to their sources.
    case reopened
}
