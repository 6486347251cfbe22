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
    /// A session: set a take's note in the log (empty text removes it).
    case note(take: Int, text: String)
    /// Playback: go to this file frame.
    case seekTo(frame: Int64)
    /// Playback: move this many file frames (negative: back).
    case seekBy(frames: Int64)
    /// End: finish any take and stop.
    case quit
    /// Playback of a mix (`PlaybackMix`): mute or unmute the mix's track (file) `track`, from 1.
    case toggleMute(track: Int)
    /// Playback of a mix: solo or unsolo track `track`, from 1.
    case toggleSolo(track: Int)
}
