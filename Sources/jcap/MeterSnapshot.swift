import JackCapture

/// What the console shows at one moment: the take's state and every channel's meter.
struct MeterSnapshot: Equatable {
    enum State: Equatable {
        /// Waiting for the ports to be patched by hand.
        case waitingForPorts
        /// A session between takes: the meters run, nothing is recorded.
        case ready
        /// Armed; the start is this many frames away.
        case countdown(frames: Int64)
        case recording
        /// `jcap play`: playing; `elapsedFrames` is the file frame playing.
        case playing
        /// Paused by the user: nothing is recorded until resumed.
        case paused
        case finished
    }

    struct Channel: Equatable {
        var name: String
        var reading: MeterReading
        /// A session's track number, the one its arming key types (nil: a plain recording's channel).
        var label: String? = nil
        /// Recording in the next (or this) take; a disarmed track is drawn dimmed.
        var armed = true
        /// The clip indicator as the core latches it (nil: the reading's clips).
        var clipLatched: Bool? = nil
        /// Dead, as the core finds it: unpatched, or silent while others carry signal.
        var dead: DeadTrack? = nil

        var isClipped: Bool { clipLatched ?? reading.isClipped }
    }

    var state: State
    var sampleRate: Int
    var elapsedFrames: Int64
    /// Frames left of a take with a length.
    var remainingFrames: Int64?
    var bufferFill: Double
    var xruns: Int64
    var lostFrames: Int64
    var channels: [Channel]
    /// A first line above the take's state: a session's name, take number and disk time left.
    var title: String?
    /// A question waiting for its key (stop? quit? discard?), shown in the header.
    var question: String?
    /// The session recording, the take number running and the seconds of recording the disk
    /// still holds, when known (`--meter json` gives them as fields).
    var sessionName: String? = nil
    var takeNumber: Int? = nil
    var diskSecondsLeft: Double? = nil
}

extension MeterSnapshot {
    /// The names the console gives channels: each source's port name, without its client when
    /// that leaves the names distinct (`out_1` rather than `synth:out_1`).
    static func channelNames(sources: [String]) -> [String] {
        let short = sources.map { name in name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? name }
        return Set(short).count == short.count ? short : sources
    }
}

/// Disk time as an engineer says it: `2 h 05 min`, `45 min`, `40 s`.
func recordingTimeText(seconds: Double) -> String {
    let whole = Int64(max(0, min(seconds, 1e12)))
    if whole < 60 { return "\(whole) s" }
    let minutes = whole / 60
    if minutes < 60 { return "\(minutes) min" }
    let rest = minutes % 60
    return "\(minutes / 60) h \(rest < 10 ? "0" : "")\(rest) min"
}

/// `255,354`: a count with its thousands grouped.
func groupedDigits(_ value: Int64) -> String {
    let digits = String(value.magnitude)
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
        text.append(digit)
    }
    return (value < 0 ? "-" : "") + text
}

/// `HH:MM:SS.mmm` for a frame count.
func clockText(frames: Int64, sampleRate: Int) -> String {
    let milliseconds = frames * 1_000 / Int64(max(1, sampleRate))
    let h = milliseconds / 3_600_000, m = milliseconds / 60_000 % 60, s = milliseconds / 1_000 % 60
    let ms = milliseconds % 1_000
    func pad(_ value: Int64, _ digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
    return "\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)).\(pad(ms, 3))"
}
