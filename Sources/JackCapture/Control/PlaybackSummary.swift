/// How playback ended.
public struct PlaybackSummary: Sendable {
    /// Stopped by a command (not played to the end).
    public var stopped: Bool
    /// The file frame it ended on.
    public var position: Int64
    /// Each time the reader fell behind and silence played.
    public var underruns: [PlaybackUnderrun]
    public var underrunFrames: Int
    /// A file that stopped decoding partway (its ports played silence from there).
    public var decodeError: PlayerError?
    /// The JACK server went away.
    public var serverShutDown: Bool
    /// The server's sample rate changed to this one: playing stopped there.
    public var changedSampleRate: Int?
}
