/// Everything about a player that changes after it is made, behind the player's lock (`Locked`).
struct PlayerControl {
    weak var delegate: PlayerDelegate?
    /// The JACK client's owner, the process state and the reader's thread, once prepared.
    var host: JackHost?
    var state: PlayerStatePointer?
    var butler: Butler?
    /// The meters of what the ports play, once prepared (`isMeteringEnabled`).
    var channelMeters: ChannelMeters?
    var metering = false
    var commandSequence: Int64 = 0
    var seekRequest = SeekRequest(generation: 0, frame: 0)
    var playRequested = false
    var loops = 0
    var rateEnabled = false
    var playbackRate = PlaybackRate.normal
    /// Whether `enableRate` was set when the player was prepared (what counts from then on).
    var preparedWithRate = false
    var serverRate: Int?
    var quality = SampleRateConverterQuality.best
    var gain: (volume: Float, pan: Float) = (1, 0)
    /// The stereo monitor mix the player was prepared with, its solos and mutes as they are now.
    var mix: PlaybackMix?
    var recordedUnderruns: [PlaybackUnderrun] = []
    var finishedSeen = 0
    var reportedShutdown = false
    var reportedShutdownInterruption = false
    var recordedDecodeErrors: [PlayerError] = []
    var recordedInterruptions: [PlayerInterruption] = []
    /// Full names of the output ports, once prepared.
    var portNames: [String] = []
    /// The ports each output was connected to when prepared (empty: none).
    var connections: [[String]] = []

    /// A new seek for the callback and the reader to follow. Returns the reader's butler, to wake
    /// once the lock is let go.
    @discardableResult
    mutating func seek(to frame: Int64) -> Butler? {
        seekRequest = seekRequest.next(to: frame)
        state?.pointee.seek.store(seekRequest.packed, ordering: .releasing)
        return butler
    }

    /// The file frame that plays next.
    func position(durationFrames: Int64) -> Int64 {
        guard let state else { return seekRequest.frame }
        // Until the callback has taken the last seek, the position is the seek's (for a seek
        // from the playing frame, the callback's).
        let position = state.pointee.position.load(ordering: .acquiring)
        guard seekRequest.isFromPlayingFrame || state.pointee.generation.load(ordering: .relaxed) == seekRequest.generation
        else { return seekRequest.frame }
        // The cycle the file ends in counts on past its end until the end is seen.
        return min(position, durationFrames)
    }
}
