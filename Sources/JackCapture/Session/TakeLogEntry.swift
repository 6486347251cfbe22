import Foundation

/// How a take stands in the take log (`takes.jsonl`). The raw values are what the log holds, in
/// words a person reading the file understands without this source.
public enum TakeStatus: String, Codable, Sendable, CaseIterable {
    /// The take has started and no end record followed: it is being recorded now, or its process
    /// was killed (`TakeLog.recoverInterruptedTakes` turns the latter into `interrupted`).
    case recording
    /// Every frame asked for is in the files.
    case complete
    /// The files are complete and aligned, but some frames in them are silence (`lost`); periods
    /// next to a loss whose placement the frame times could not decide are listed (`uncertain`).
    case framesLost = "frames lost"
    /// No frame was lost, but the frames of some periods may not be at their true position
    /// (`uncertain`): callbacks ran late several periods in a row and their frame times could
    /// not say where the periods belong.
    case placementUncertain = "placement uncertain"
    /// The take stopped early: its process was killed (found by recovery), or the server's
    /// sample rate changed. Everything written is in the files.
    case interrupted
    /// The JACK server went away mid-take: everything received is in the files.
    case serverShutdown = "server shutdown"
    /// The disk filled up mid-take: everything written is in the files.
    case diskFull = "disk full"
    /// Writing failed for another reason (an I/O error): everything written is in the files.
    case writeFailed = "write failed"
    /// Thrown away right after recording (the session's `d` key): the files are removed.
    case discarded
    /// Deleted later (`jcap takes`): the files are removed.
    case deleted

    /// The status a finished take's report comes to.
    ///
    /// A write failure counts as `diskFull` when the reason is ENOSPC or EDQUOT (the text
    /// `SoundFile.write` puts first), because a full disk is what a studio can fix at once.
    /// `cancelled` and `missedStart` leave no file and no audio, which is what a discarded take is.
    package init(_ outcome: TakeReport.Outcome) {
        switch outcome {
        case .complete: self = .complete
        case .lostFrames: self = .framesLost
        case .placementUncertain: self = .placementUncertain
        case .serverShutDown: self = .serverShutdown
        case .sampleRateChanged: self = .interrupted
        case .cancelled, .missedStart: self = .discarded
        case .writeFailed(let error):
            let full = [ENOSPC, EDQUOT].map { String(cString: strerror($0)) }
            if case .writeFailed(_, let reason) = error, full.contains(where: { reason.hasPrefix($0) }) {
                self = .diskFull
            } else {
                self = .writeFailed
            }
        }
    }

    /// True for a take whose files were removed on purpose.
    public var isRemoved: Bool { self == .deleted || self == .discarded }
}

/// One take as the take log knows it: what a start record says, completed by its end record,
/// notes and any later record (see `TakeLog` for how records merge).
///
/// The JSON keys are snake_case. The log (and `TakeListing.json`) writes them in the order below,
/// `take` first, so even a line cut short still names its take (`TakeLog.nextTakeNumber` relies
/// on that); `Encodable` gives the same keys and values, in whatever order the encoder picks.
/// Optional values that are nil are left out of the JSON.
public struct TakeLogEntry: Codable, Sendable, Equatable {
    /// The take number (`take-NNN` in its file names), at least 1.
    public var take: Int
    public var status: TakeStatus
    /// JACK frame time of the take's first frame.
    public var startFrame: UInt32?
    /// Wall-clock time of the first frame, UTC, ISO 8601 with microseconds
    /// (`2026-11-22T14:03:07.123456Z`; `TakeLogTime` writes and reads it).
    public var startTime: String?
    /// For a take that followed the JACK transport: the transport's frame when it
    /// rolled, and its bar, beat and tick (`12|3|0480`) when a timebase master gave them.
    public var transportFrame: UInt32?
    public var bbt: String?
    /// For a take started by sound, or by the transport with a pre-roll: how many
    /// frames into the take the trigger (or the roll) fell.
    public var triggerPosition: Int64?
    /// For an overdub (`SessionOverdub`): the take played while this one was recorded,
    /// and how the two were aligned.
    public var overdub: TakeLogOverdub?
    /// The session part this host recorded (`jcap session FILE --part NAME`): the take holds
    /// only that part's tracks; another host's log holds the rest under the same take number.
    public var part: String?
    /// Recorded on a NetJACK2 slave: the link's network latency (`jackd -d net -l`), in cycles.
    /// The take's frames are the master's audio in the master's cycle (docs/netjack.md).
    public var netjackLatencyCycles: Int?
    /// Following the master's clock (`--master-clock`): the master's frame time of the take's
    /// first frame, from the timecode (the master's frame of a later frame is this plus its
    /// position, plus the master clock's jumps before it).
    public var masterStartFrame: UInt32?
    /// The server's sample rate, which `frames` and every position count in.
    public var sampleRate: Int
    /// Frames in the take at `sampleRate`: 0 while recording; for a recovered take the shortest
    /// of its files.
    public var frames: Int64
    /// The take's files, relative to the session folder.
    public var files: [TakeLogFile]
    /// The take's tracks in recording order.
    public var tracks: [TakeLogTrack]
    /// Xruns: where in the take each fell, and the frames JACK's clock skipped there (0 when the
    /// server reported an xrun that skipped nothing the take holds).
    public var xruns: [TakeLogSpan]
    /// Spans written as silence because their frames were lost.
    public var lost: [TakeLogSpan]
    /// Periods copied after JACK had begun the next one: at their true place, but their samples
    /// may be partly the next period's (or, on a NetJACK2 slave, silence).
    public var late: [TakeLogSpan] = []
    /// Spans whose frames may not be at their true position (placement uncertain).
    public var uncertain: [TakeLogSpan] = []
    /// NetJACK2 link dropouts: near each position, about `frames` frames the master sent never
    /// reached the slave; nothing in the files stands for them (`CaptureEvent.linkDropout`).
    public var dropouts: [TakeLogSpan] = []
    /// Following the master's clock: where it jumped against the take's frames, each with the
    /// jump in frames (the master's frames missing from the files there; negative: repeated),
    /// exact (`CaptureEvent.masterClockJump`).
    public var masterJumps: [TakeLogSpan] = []
    /// Where JACK 2 renumbered its clock at a period change, each with the step in frames
    /// (negative: back): the files go on without a break, and from each position their frames
    /// sit that much later on JACK's clock (`CaptureEvent.clockRenumbered`).
    public var clockSteps: [TakeLogSpan] = []
    /// Paused spans.
    public var pauses: [TakeLogPause]
    /// Sources connected to or disconnected from tracks during the take, in take order (none:
    /// the key is left out of the JSON).
    public var patching: [TakeLogPatch] = []
    /// Events lost because a ring was full (`TakeReport.lostEvents`): the entry may leave out
    /// connections, xruns or spans. 0: the key is left out of the JSON.
    public var lostEvents = 0
    /// Markers the engineer dropped while recording, in the order dropped (none: the key is left
    /// out of the JSON).
    public var markers: [TakeLogMarker] = []
    /// How the engineer marked the take (circled, false start, no good).
    public var mark: TakeMark?
    /// A note the user wrote about the take.
    public var note: String?

    public init(take: Int, status: TakeStatus, startFrame: UInt32? = nil, startTime: String? = nil,
                sampleRate: Int, frames: Int64 = 0, files: [TakeLogFile] = [], tracks: [TakeLogTrack] = [],
                xruns: [TakeLogSpan] = [], lost: [TakeLogSpan] = [], pauses: [TakeLogPause] = [],
                note: String? = nil, mark: TakeMark? = nil) {
        self.take = take
        self.status = status
        self.startFrame = startFrame
        self.startTime = startTime
        self.sampleRate = sampleRate
        self.frames = frames
        self.files = files
        self.tracks = tracks
        self.xruns = xruns
        self.lost = lost
        self.pauses = pauses
        self.note = note
        self.mark = mark
    }

    enum CodingKeys: String, CodingKey {
        case take, status
        case startFrame = "start_frame"
        case startTime = "start_time"
        case transportFrame = "transport_frame"
        case bbt
        case triggerPosition = "trigger_position"
        case overdub
        case part
        case netjackLatencyCycles = "netjack_latency_cycles"
        case masterStartFrame = "master_start_frame"
        case masterJumps = "master_jumps"
        case clockSteps = "clock_steps"
        case sampleRate = "sample_rate"
        case lostEvents = "lost_events"
        case frames, files, tracks, xruns, lost, late, uncertain, dropouts, pauses, patching, markers, mark, note
    }

    /// Decodes a whole entry: `take` and `status` are required, everything else has its default
    /// (0, empty, nil) when missing, so a hand-written line `{"take":3,"status":"complete"}` reads.
    public init(from decoder: any Decoder) throws {
        let record = try TakeLogRecord(from: decoder)
        guard let status = record.status else {
            throw DecodingError.keyNotFound(CodingKeys.status, .init(codingPath: decoder.codingPath,
                                                                     debugDescription: "no status"))
        }
        self = record.merged(into: nil, status: status)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(take, forKey: .take)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(startFrame, forKey: .startFrame)
        try container.encodeIfPresent(startTime, forKey: .startTime)
        try container.encodeIfPresent(transportFrame, forKey: .transportFrame)
        try container.encodeIfPresent(bbt, forKey: .bbt)
        try container.encodeIfPresent(triggerPosition, forKey: .triggerPosition)
        try container.encodeIfPresent(overdub, forKey: .overdub)
        try container.encodeIfPresent(part, forKey: .part)
        try container.encodeIfPresent(netjackLatencyCycles, forKey: .netjackLatencyCycles)
        try container.encodeIfPresent(masterStartFrame, forKey: .masterStartFrame)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(frames, forKey: .frames)
        try container.encode(files, forKey: .files)
        try container.encode(tracks, forKey: .tracks)
        try container.encode(xruns, forKey: .xruns)
        try container.encode(lost, forKey: .lost)
        if !late.isEmpty { try container.encode(late, forKey: .late) }
        if !uncertain.isEmpty { try container.encode(uncertain, forKey: .uncertain) }
        if !dropouts.isEmpty { try container.encode(dropouts, forKey: .dropouts) }
        if !masterJumps.isEmpty { try container.encode(masterJumps, forKey: .masterJumps) }
        if !clockSteps.isEmpty { try container.encode(clockSteps, forKey: .clockSteps) }
        try container.encode(pauses, forKey: .pauses)
        if !patching.isEmpty { try container.encode(patching, forKey: .patching) }
        if lostEvents > 0 { try container.encode(lostEvents, forKey: .lostEvents) }
        if !markers.isEmpty { try container.encode(markers, forKey: .markers) }
        try container.encodeIfPresent(mark, forKey: .mark)
        try container.encodeIfPresent(note, forKey: .note)
    }

    /// Why the entry cannot be written, or nil: numbers a reader would trip over (a take below 1,
    /// negative lengths or positions). Checked before appending, so the log only holds what it
    /// can read back.
    func invalidity() -> String? {
        if take < 1 { return "take number \(take) is below 1" }
        if sampleRate < 0 { return "sample rate \(sampleRate) is negative" }
        if lostEvents < 0 { return "lost event count \(lostEvents) is negative" }
        if frames < 0 { return "frame count \(frames) is negative" }
        for file in files {
            if file.path.isEmpty { return "a file has an empty path" }
            if let frames = file.frames, frames < 0 { return "file \(file.path) has \(frames) frames" }
        }
        for span in xruns + lost + late + uncertain + dropouts where span.position < 0 || span.frames < 0 {
            return "span of \(span.frames) frames at \(span.position) is negative"
        }
        for jump in masterJumps where jump.position < 0 { return "master clock jump at \(jump.position) is negative" }
        for step in clockSteps where step.position < 0 { return "clock step at \(step.position) is negative" }
        if let triggerPosition, triggerPosition < 0 { return "trigger position \(triggerPosition) is negative" }
        if let overdub, overdub.take < 1 { return "overdub of take \(overdub.take), below 1" }
        if let overdub, overdub.playbackLatency < 0 { return "playback latency \(overdub.playbackLatency) is negative" }
        for pause in pauses where pause.position < 0 {
            return "pause at \(pause.position) is negative"
        }
        for patch in patching where patch.position < 0 || (patch.uncertainFrames ?? 0) < 0 {
            return "patch change at \(patch.position) is negative"
        }
        for marker in markers where marker.position < 0 {
            return "marker at \(marker.position) is negative"
        }
        if let latency = tracks.lazy.flatMap({ [$0.captureLatency, $0.alignedLatency].compactMap { $0 } }).first(where: { $0 < 0 }) {
            return "capture latency \(latency) is negative"
        }
        return nil
    }
}

/// One file of a take.
public struct TakeLogFile: Codable, Sendable, Equatable {
    /// Relative to the session folder (`take-007-Kick In.wav`), never absolute and never with a
    /// `..` component: the log describes the folder it lives in, so the folder can be moved.
    public var path: String
    /// The names of the tracks in the file, in channel order.
    public var tracks: [String]
    /// Frames in the file at its own sample rate, when known (after the take, or measured by
    /// recovery).
    public var frames: Int64?

    public init(path: String, tracks: [String], frames: Int64? = nil) {
        self.path = path
        self.tracks = tracks
        self.frames = frames
    }

    enum CodingKeys: String, CodingKey { case path, tracks, frames }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        tracks = try container.decodeIfPresent([String].self, forKey: .tracks) ?? []
        frames = try container.decodeIfPresent(Int64.self, forKey: .frames)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(tracks, forKey: .tracks)
        try container.encodeIfPresent(frames, forKey: .frames)
    }
}

/// One track of a take: what it was called, where it came from and how loud it got.
public struct TakeLogTrack: Codable, Sendable, Equatable {
    /// The floor the log writes for a peak: silence is -inf dBFS, which JSON cannot hold.
    public static let peakFloor = DecibelText.floor

    public var name: String
    /// The JACK port it recorded (`system:capture_3`).
    public var source: String
    /// The source's capture latency in frames (jack_port_get_latency_range), when known.
    public var captureLatency: Int?
    /// For a take aligned to capture latency: the capture latency, in frames, the track was aligned by (its
    /// file starts with the sound that reached the converter at the take's start frame).
    public var alignedLatency: Int?
    /// Highest peak over the take in dBFS, at least `peakFloor`; nil with metering off.
    public var highestPeakDBFS: Double?
    /// Samples at or beyond full scale; nil with metering off (0 would claim none clipped).
    public var clippedSamples: Int64?

    public init(name: String, source: String, captureLatency: Int? = nil, alignedLatency: Int? = nil,
                highestPeakDBFS: Double? = nil, clippedSamples: Int64? = nil) {
        self.name = name
        self.source = source
        self.captureLatency = captureLatency
        self.alignedLatency = alignedLatency
        self.highestPeakDBFS = highestPeakDBFS
        self.clippedSamples = clippedSamples
    }

    enum CodingKeys: String, CodingKey {
        case name, source
        case captureLatency = "capture_latency"
        case alignedLatency = "aligned_latency"
        case highestPeakDBFS = "highest_peak_dbfs"
        case clippedSamples = "clipped_samples"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
        source = try container.decodeIfPresent(String.self, forKey: .source) ?? ""
        captureLatency = try container.decodeIfPresent(Int.self, forKey: .captureLatency)
        alignedLatency = try container.decodeIfPresent(Int.self, forKey: .alignedLatency)
        highestPeakDBFS = try container.decodeIfPresent(Double.self, forKey: .highestPeakDBFS).map(Self.floored)
        clippedSamples = try container.decodeIfPresent(Int64.self, forKey: .clippedSamples)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(source, forKey: .source)
        try container.encodeIfPresent(captureLatency, forKey: .captureLatency)
        try container.encodeIfPresent(alignedLatency, forKey: .alignedLatency)
        // JSON has no infinities or NaN: silence (-inf) becomes the floor, and a value that is no
        // level at all (NaN, +inf from a broken sample) is left out rather than failing the append.
        if let peak = highestPeakDBFS, !peak.isNaN, peak != .infinity {
            try container.encode(Self.floored(peak), forKey: .highestPeakDBFS)
        }
        try container.encodeIfPresent(clippedSamples, forKey: .clippedSamples)
    }

    static func floored(_ peak: Double) -> Double { max(peakFloor, peak) }
}

/// How an overdub lined up with the take it played: frame k of the overdub is what reached the
/// converters while frame k of take `take` was leaving the outputs.
public struct TakeLogOverdub: Codable, Sendable, Equatable {
    /// The take played.
    public var take: Int
    /// The JACK frame its first frame was played on.
    public var playbackStartFrame: UInt32
    /// The playback latency, in frames, of the ports it played to (the largest): the overdub's
    /// start frame is this much after `playbackStartFrame`, and each track is aligned to its
    /// capture latency as well (`aligned_latency`).
    public var playbackLatency: Int

    public init(take: Int, playbackStartFrame: UInt32, playbackLatency: Int) {
        self.take = take
        self.playbackStartFrame = playbackStartFrame
        self.playbackLatency = playbackLatency
    }

    enum CodingKeys: String, CodingKey {
        case take
        case playbackStartFrame = "playback_start_frame"
        case playbackLatency = "playback_latency"
    }
}

/// A marker dropped on a take while it recorded: its take position in frames, and as a time
/// (`h:mm:ss.mmm` from the take's start, as `jcap takes` lists lengths) for a person reading the log.
public struct TakeLogMarker: Codable, Sendable, Equatable {
    public var position: Int64
    public var time: String?

    public init(position: Int64, time: String? = nil) {
        self.position = position
        self.time = time
    }

    /// A marker at `position`, its time at `sampleRate`.
    public init(position: Int64, sampleRate: Int) {
        self.init(position: position, time: TakeListing.duration(frames: position, sampleRate: sampleRate))
    }
}

/// A track's source connected or disconnected during a take (`CaptureEvent.portConnected` and
/// `portDisconnected`): from `position` on the track holds its new sources.
public struct TakeLogPatch: Codable, Sendable, Equatable {
    /// The take frame the change lands on; exact unless `exact` is false (then the server's
    /// estimate when it announced it, within a few periods).
    public var position: Int64
    public var track: String
    /// The other port: the source connected or disconnected.
    public var source: String
    public var connected: Bool
    public var exact: Bool
    /// A hardware input's connection: the frames from `position` that may be its audio from
    /// before it was connected (nil: none may be).
    public var uncertainFrames: Int64?

    public init(position: Int64, track: String, source: String, connected: Bool, exact: Bool, uncertainFrames: Int64? = nil) {
        self.position = position
        self.track = track
        self.source = source
        self.connected = connected
        self.exact = exact
        self.uncertainFrames = uncertainFrames
    }

    enum CodingKeys: String, CodingKey {
        case position, track, source, connected, exact
        case uncertainFrames = "uncertain_frames"
    }

    /// The change a connection event of a take stands for, on `tracks` (in channel order); nil
    /// for other events, and for a change announced before the take's first frame (a take
    /// starting on an unpatched input, a session repatched for it): no change within the take.
    package init?(_ event: CaptureEvent, tracks: [String]) {
        let channel: Int, source: String, position: Int64, timing: ConnectionTiming, connected: Bool
        switch event {
        case .portConnected(let c, let s, _, let p, let t): (channel, source, position, timing, connected) = (c, s, p, t, true)
        case .portDisconnected(let c, let s, _, let p, let t): (channel, source, position, timing, connected) = (c, s, p, t, false)
        default: return nil
        }
        guard channel < tracks.count else { return nil }
        let uncertain: Int64?
        switch timing {
        case .near:
            guard position > 0 else { return nil }
            uncertain = nil
        case .exact(let frames): uncertain = frames > 0 ? Int64(frames) : nil
        }
        self.init(position: position, track: tracks[channel], source: source, connected: connected,
                  exact: timing != .near, uncertainFrames: uncertain)
    }
}

/// A span of a take: where it starts (a take frame) and how many frames it covers.
public struct TakeLogSpan: Codable, Sendable, Equatable {
    public var position: Int64
    public var frames: Int64

    public init(position: Int64, frames: Int64) {
        self.position = position
        self.frames = frames
    }

    /// A lost span as the disk writer reports it.
    package init(_ span: LostSpan) {
        self.init(position: span.position, frames: span.frames)
    }
}

/// A pause: the take frame it fell at and the JACK frames it skipped (`toFrame` is nil when the
/// take ended paused).
public struct TakeLogPause: Codable, Sendable, Equatable {
    public var position: Int64
    public var fromFrame: UInt32
    public var toFrame: UInt32?

    public init(position: Int64, fromFrame: UInt32, toFrame: UInt32? = nil) {
        self.position = position
        self.fromFrame = fromFrame
        self.toFrame = toFrame
    }

    enum CodingKeys: String, CodingKey {
        case position
        case fromFrame = "from_frame"
        case toFrame = "to_frame"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
        try container.encode(fromFrame, forKey: .fromFrame)
        try container.encodeIfPresent(toFrame, forKey: .toFrame)
    }
}
