/// How a take ended.
public struct TakeReport: Sendable {
    public enum Outcome: Equatable, Sendable {
        /// Every frame asked for is in the file.
        case complete
        /// The file is complete and aligned, but some frames in it are silence (lost).
        case lostFrames
        /// Stopped before the start: nothing recorded, no file left.
        case cancelled
        /// The start frame passed before recording was ready: nothing recorded, no file left.
        case missedStart
        /// The JACK server went away: everything received is in the file.
        case serverShutDown
        /// Writing failed (a full disk): everything written is in the file.
        case writeFailed(CaptureError)
    }

    public var outcome: Outcome
    public var path: String
    public var format: FileFormat
    public var sampleRate: Int
    public var sources: [String]
    public var portNames: [String]
    /// Frames in the file.
    public var frames: Int64
    /// JACK frame time of the first frame.
    public var startFrame: UInt32?
    /// Silent spans written for frames that were lost, with their positions in the file.
    public var lostSpans: [LostSpan]
    public var overrunFrames: Int64
    public var skippedFrames: Int64
    public var xruns: Int64
    /// Each channel's highest peak and clipped samples over the take; nil with metering off.
    public var channelLevels: [ChannelLevels]?

    public var lostFrames: Int64 { lostSpans.reduce(0) { $0 + $1.frames } }
    public var channels: Int { sources.count }
    public var seconds: Double { Double(frames) / Double(max(1, sampleRate)) }
}

/// A channel's levels over a whole take.
public struct ChannelLevels: Equatable, Sendable {
    /// dBFS.
    public var highestPeak: Float
    /// Samples at or beyond full scale.
    public var clipCount: Int64
}
