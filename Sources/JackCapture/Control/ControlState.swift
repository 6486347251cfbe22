/// What a running jcap is doing at one moment, for any surface to show: published by
/// `ControlCore.state`.
public struct ControlState: Equatable, Sendable {
    /// Its raw value is the word the remote surfaces send (OSC `/jcap/state`, the page's JSON).
    public enum Mode: String, Equatable, Sendable {
        /// A session between takes: the meters run, nothing is recorded.
        case ready
        /// A take (or playback) waits: for its start time, the transport, sound, or its ports.
        case waiting
        case recording
        case paused
        case playing
        /// Asked to stop; the take is being finished.
        case stopping
        case finished
    }

    /// One track's (or output port's) meter.
    public struct TrackMeter: Equatable, Sendable {
        public var name: String
        /// Levels with peak hold, the highest peak and the clip count (silent when metering is off).
        public var reading: MeterReading
        /// The clip indicator: latched on the first sample at full scale (in a session from the
        /// moment it opens) until `clearClips`; a recording's shows its take's clips.
        public var clipped: Bool
        /// The track is dead (a session's: its source unpatched, or silent while others are not).
        public var dead: DeadTrack?

        public init(name: String, reading: MeterReading, clipped: Bool? = nil, dead: DeadTrack? = nil) {
            self.name = name
            self.reading = reading
            self.clipped = clipped ?? reading.isClipped
            self.dead = dead
        }
    }

    public var mode: Mode
    /// Waiting for ports patched by hand (`connectsPorts` off).
    public var waitsForPorts = false
    /// Frames until a scheduled start, while waiting for one.
    public var framesToStart: Int64?
    /// A session's take recording now.
    public var currentTake: Int?
    /// The number the next take will get (for slating), in a session.
    public var nextTake: Int?
    /// A session's last take (the one recording, or the newest in the log not discarded or
    /// deleted): the one the marking keys mark; and its mark and note.
    public var lastTake: Int?
    public var lastTakeMark: TakeMark?
    public var lastTakeNote: String?
    /// A session's name.
    public var sessionName: String?
    /// Frames recorded (for playback: the file frame playing).
    public var position: Int64 = 0
    /// Frames left of a take with a length, or of the files playing.
    public var remainingFrames: Int64?
    /// Frames a second: the server's when recording, the files' when playing.
    public var sampleRate: Int
    /// Seconds of recording the disk has room for, in a session.
    public var recordingSecondsLeft: Double?
    /// How full the ring between the JACK thread and the disk (or reader) is, 0 to 1.
    public var bufferFill: Double = 0
    public var xruns: Int64 = 0
    /// Frames lost (recording) or played as silence (playback underruns).
    public var lostFrames: Int64 = 0
    /// The tracks that record: a session's armed tracks, or the channels of a recording.
    public var armedTracks: [String] = []
    public var meters: [TrackMeter] = []
    /// The take `discardLastTake` asked about, until `confirmDiscard` answers.
    public var pendingDiscard: Int?
    /// The take `requestStop` asked about, until confirmed, declined or lapsed.
    public var pendingStop: Int?
    /// The take `requestQuit` asked about, until confirmed, declined or lapsed.
    public var pendingQuit: Int?

    public init(mode: Mode, sampleRate: Int) {
        self.mode = mode
        self.sampleRate = sampleRate
    }
}
