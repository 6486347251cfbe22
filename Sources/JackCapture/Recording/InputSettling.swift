/// The first JACK frame from which the ports a client connected carry their sources' audio
/// (`CaptureClient.settledFrame`), shared by the client, which sets it whenever it connects, and
/// its takes, which begin no earlier (`Take.start`).
final class InputSettling: Sendable {
    private let settled = Locked<(frame: UInt32, setAt: UInt64)?>(nil)

    func set(_ frame: UInt32) {
        settled.withLock { $0 = (frame, JackClient.currentTimeMicroseconds) }
    }

    /// The frame, for a minute after it was set: it is a few periods after a connection, so by
    /// then every take is past it (and the distance to a frame that old wraps after 12 hours).
    var frame: UInt32? {
        settled.withLock { settled in
            guard let settled, JackClient.currentTimeMicroseconds &- settled.setAt < 60_000_000 else { return nil }
            return settled.frame
        }
    }
}
