/// JACK's versions of an audio session's interruptions.
public enum RecorderInterruption: Equatable, Sendable {
    /// A channel's source was disconnected or its client quit: the channel records silence until
    /// a source is connected again (which ends the interruption).
    case sourceDisconnected(channel: Int, source: String)
    /// The server shut down: everything received is in the file; the take is over.
    case serverShutDown
    /// The server's sample rate changed: the take stopped at the change.
    case sampleRateChanged(from: Int, to: Int)
}
