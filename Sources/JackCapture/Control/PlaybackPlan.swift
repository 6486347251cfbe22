/// When a `Player` under a `ControlCore` starts, and from where.
public struct PlaybackPlan: Sendable {
    public enum Start: Equatable, Sendable {
        case now
        /// This JACK frame, exactly.
        case atFrame(UInt32)
        /// This wall-clock time (microseconds since the epoch), converted to JACK time until the
        /// start's cycle decides it.
        case atWallClock(microseconds: Int64)
    }

    public var start: Start
    /// The file frame it starts from.
    public var fromFrame: Int64

    public init(start: Start = .now, fromFrame: Int64 = 0) {
        self.start = start
        self.fromFrame = fromFrame
    }
}
