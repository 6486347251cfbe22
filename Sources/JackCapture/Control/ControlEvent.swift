/// What happened, in order, for a surface to tell (jcap's console prints each as a line). Events
/// carry the library's own objects and reports, never text.
public enum ControlEvent: Sendable {
    /// Recording waits for these ports to be patched by hand.
    case waitingForPorts([String])
    /// Stopped while waiting for the ports: nothing recorded.
    case stoppedBeforePortsConnected
    /// Take after take: the first waits for the transport (`level` nil) or for sound at `level` dBFS.
    case awaitingTakes(level: Double?, preRoll: CaptureDuration?)
    /// A recording's take was made and started (it may still wait for its start).
    case takeStarted(Take)
    /// A session's take started recording (`overdub`: playing the take it dubs along).
    case sessionTakeStarted(SessionTake, overdub: SessionOverdub?)
    /// A session's cued take started at `frame`, keeping `preRoll` before it.
    case cuedTakeStarted(SessionTake, frame: UInt32, preRoll: CaptureDuration?)
    /// Something the take reported: a pause, a resume, a connection, an xrun, the server.
    case capture(CaptureEvent)
    /// A file of a split take was closed.
    case segmentWritten(TakeSegment, of: Take)
    /// Asked to stop: the take ends before JACK frame `frame` (`take`: a session's take number).
    case stopping(take: Int?, frame: UInt32, origin: ControlOrigin)
    /// Asked to quit (a session finishes its take first).
    case quitting(origin: ControlOrigin)
    /// A recording's take ended.
    case takeFinished(Take, TakeReport)
    /// Take after take: the transport was already rolling when the take got ready; the next roll
    /// is waited for. `session`: a session's take.
    case transportAlreadyRolling(session: Bool)
    /// A session's take ended, with its log entries (none: it never started).
    case sessionTakeFinished(SessionTake, entries: [TakeLogEntry])
    /// An overdub's playback ended along with its take.
    case overdubPlayed(SessionOverdub)
    /// Playback began: from file frame `fromFrame` at JACK frame `jackFrame`, `late` frames late.
    case playbackStarted(fromFrame: Int64, jackFrame: UInt32, late: Int)
    case playbackPaused(atFrame: Int64)
    case playbackResumed(atFrame: Int64)
    case seeking(toFrame: Int64)
    /// Something outside the player changed under it: an output port lost its last connection
    /// (playing goes on), the server's period changed (playing goes on) or its sample rate changed
    /// (playing stops there; `playbackFinished` follows).
    case playbackInterrupted(PlayerInterruption)
    case playbackFinished(PlaybackSummary)
    /// `requestStop` asks: stop `take`? (`confirmStop` within `seconds` answers.)
    case stopAsked(take: Int, seconds: Double)
    /// `requestQuit` asks: end `take` and quit?
    case quitAsked(take: Int, seconds: Double)
    /// A stop or quit question was declined or lapsed: `take` goes on recording.
    case keptRecording(take: Int)
    /// `discardLastTake` asks: discard `take`?
    case discardAsked(take: Int)
    case takeKept(take: Int)
    case takeDiscarded(take: Int)
    case noteSet(take: Int)
    /// A marker was dropped on `take` (logged).
    case markerDropped(take: Int, TakeLogMarker)
    /// A session's track is armed (or disarmed) from the next take on.
    case trackArmed(track: String, armed: Bool)
    /// A take's mark was set (nil: cleared).
    case takeMarked(take: Int, TakeMark?)
    /// A session's track went dead (`dead`) or came back to life (nil).
    case trackDead(track: String, DeadTrack?)
    /// A command that does not apply now.
    case refused(ControlCommand, ControlRefusal)
    /// A failure that leaves things running (a take that could not start; try again).
    case error(ControlError)
    /// A failure that ended everything.
    case failed(ControlError)
    /// The JACK server went away (a session's take it cut short is finished and logged): the
    /// session waits for it to come back, until it does or `quit`.
    case serverShutDown
    /// The server is back, but not every track's source (its client has not started again): the
    /// session waits for them too. Told once.
    case serverBackWithoutSources(StudioSessionError)
    /// The server is back: the session's `ports` are open on it again, connected to `sources`.
    case serverReturned(ports: [String], sources: [String])
}
