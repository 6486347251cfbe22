/// Why a command was not carried out: it does not apply to what jcap is doing now.
public enum ControlRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// A take is recording; `record` and `discardLastTake` wait until it stops.
    case takeRecording(ControlCommand)
    /// Nothing is recording or playing to pause, resume or stop.
    case nothingRunning(ControlCommand)
    /// `pause` when already paused.
    case alreadyPaused
    /// `resume` when not paused.
    case notPaused
    /// Already stopping.
    case stopping
    /// Takes start by themselves here (at their start time, on the transport or on sound).
    case takesStartThemselves
    /// Only a session has tracks to arm and a take log (discard, marks, notes).
    case needsSession(ControlCommand)
    /// Only playback seeks.
    case needsPlayback(ControlCommand)
    /// Recording cannot seek, and playback does not record.
    case notWhilePlaying(ControlCommand)
    /// The log has no take left to discard.
    case noTakeToDiscard
    /// `confirmDiscard` with no question asked.
    case nothingToConfirm
    /// A question is waiting for `confirmDiscard`.
    case awaitingConfirmation(take: Int)
    /// The JACK server is gone: takes wait until it is back.
    case serverGone
    /// It has all ended.
    case finished

    public var description: String {
        switch self {
        case .takeRecording(.discardLastTake): "a take is recording; stop it before discarding"
        case .takeRecording(let command) where command.isArming: "a take is recording; stop it before arming or disarming a track"
        case .takeRecording: "a take is recording; s twice stops it"
        case .nothingRunning(let command): "nothing is recording or playing to \(Self.verb(command))"
        case .alreadyPaused: "already paused"
        case .notPaused: "not paused"
        case .stopping: "already stopping"
        case .takesStartThemselves: "takes start by themselves here (at their start, on the transport or on sound)"
        case .needsSession(let command): "only a session can \(Self.verb(command))"
        case .needsPlayback(let command): "only playback can \(Self.verb(command))"
        case .notWhilePlaying(let command): "playback cannot \(Self.verb(command))"
        case .noTakeToDiscard: "no take to discard"
        case .nothingToConfirm: "no question to answer"
        case .awaitingConfirmation(let take): "first answer whether to discard take \(take) (y/n)"
        case .serverGone: "the JACK server is gone; takes record again when it is back"
        case .finished: "it has ended"
        }
    }

    private static func verb(_ command: ControlCommand) -> String {
        switch command {
        case .record: "record"
        case .pause: "pause"
        case .resume: "resume"
        case .togglePause: "pause or resume"
        case .stop, .requestStop, .confirmStop: "stop"
        case .discardLastTake, .confirmDiscard: "discard a take"
        case .arm: "arm a track"
        case .disarm: "disarm a track"
        case .mark: "mark a take"
        case .note: "set a note"
        case .dropMarker: "drop a marker"
        case .clearClips: "clear clip indicators"
        case .seekTo, .seekBy: "seek"
        case .quit, .requestQuit, .confirmQuit: "quit"
        }
    }
}

extension ControlCommand {
    /// `arm` or `disarm`.
    var isArming: Bool {
        switch self {
        case .arm, .disarm: true
        default: false
        }
    }
}
