/// Where the player's process callback is, as it last published it.
public enum PlaybackPhase: Int, Sendable {
    /// Not sending audio (before `play`, paused, stopped, or finished).
    case idle = 0
    /// Asked to start on a frame (or a moment) that has not come yet.
    case waiting = 1
    case playing = 2
}
