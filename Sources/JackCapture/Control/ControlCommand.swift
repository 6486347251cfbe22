/// What any surface (the terminal's keys, a pipe of keys, signals, a program using the library)
/// can ask of a running jcap. `ControlCore.apply(_:from:)` carries it out or refuses it.
public enum ControlCommand: Equatable, Sendable {
    /// A session: record a new take now (with a pre-roll, the cued take starts).
    case record
    case pause
    case resume
    case togglePause
    /// Stop the take (a session stays open; take after take, the next one waits) or the playback.
    case stop
    /// A deliberate stop (a person's key): a session's take asks first, and stops on
    /// `confirmStop(true)` (or a second `requestStop`) within `ControlCore.confirmationSeconds`.
    /// A recording or playback stops at once.
    case requestStop
    /// The answer to `requestStop`'s question.
    case confirmStop(Bool)
    /// A person's quit: between takes it quits; during a session's take it asks first, and quits on
    /// `confirmQuit(true)` (or a second `requestQuit`) within `ControlCore.confirmationSeconds`.
    case requestQuit
    /// The answer to `requestQuit`'s question.
    case confirmQuit(Bool)
    /// A session: ask to discard the last take; `confirmDiscard` answers.
    case discardLastTake
    /// The answer to `discardLastTake`'s question: true removes the take's files.
    case confirmDiscard(Bool)
    /// A session: arm the track named so from the next take on (not while a take records).
    case arm(track: String)
    /// A session: disarm the track named so from the next take on (not while a take records).
    case disarm(track: String)
    /// A session: mark a take in the log (circled, false start, no good); nil clears the mark.
    case mark(take: Int, TakeMark?)
    /// A session: a marker at the recording take's current position, in the take log.
    case dropMarker
    /// A session: set a take's note in the log (empty text removes it).
    case note(take: Int, text: String)
    /// A session: clear the clip indicators latched on its tracks (the take log keeps the counts).
    case clearClips
    /// Playback: go to this file frame.
    case seekTo(frame: Int64)
    /// Playback: move this many file frames (negative: back).
    case seekBy(frames: Int64)
    /// End: finish any take and stop.
    case quit
}
