/// How a take ended.
public struct TakeReport: Sendable {
    public enum Outcome: Equatable, Sendable {
        /// Every frame asked for is in the file.
        case complete
        /// The file is complete and aligned, but some frames in it are silence (lost). Periods
        /// next to a loss whose placement the frame times could not decide are in `uncertainSpans`.
        /// On a NetJACK2 slave, also a link dropout: frames the master sent that never reached the
        /// server (`linkDropouts`); following the master's clock, a jump of it (`masterClockJumps`).
        case lostFrames
        /// No frame was lost, but some periods may not be at their true position
        /// (`uncertainSpans`): callbacks ran late several periods in a row.
        case placementUncertain
        /// Stopped before the start: nothing recorded, no file left.
        case cancelled
        /// The start frame passed before recording was ready: nothing recorded, no file left.
        case missedStart
        /// The JACK server went away: everything received is in the file.
        case serverShutDown
        /// Writing failed (a full disk): everything written is in the file.
        case writeFailed(CaptureError)
        /// The server's sample rate changed mid-take: the take stopped there, the file is valid.
        case sampleRateChanged(from: Int, to: Int)
    }

    public var outcome: Outcome
    public var path: String
    public var format: FileFormat
    /// The server's sample rate, which `frames` and every take position count in.
    public var sampleRate: Int
    public var sources: [String]
    public var portNames: [String]
    /// The file's sample rate: the server's, or another one it was resampled to.
    public var fileSampleRate: Int
    /// Frames in the file, at `fileSampleRate`.
    public var fileFrames: Int64
    /// Frames of the take, at the server's rate (what positions and lengths count).
    public var frames: Int64
    /// JACK frame time of the first frame.
    public var startFrame: UInt32?
    /// Silent spans written for frames that were lost, with their positions in the file.
    public var lostSpans: [LostSpan]
    public var overrunFrames: Int64
    public var skippedFrames: Int64
    public var xruns: Int64
    /// Each channel's highest peak and clipped samples over the take; nil with metering off.
    public var channelLevels: [ChannelLevels]?
    /// Everything that happened during the take, in order: start, pauses and resumes, stop,
    /// overruns, xruns, connections, period changes.
    public var events: [CaptureEvent] = []
    /// The take's stretches with files of their own, in order: one for a take that was not split.
    /// Each says its files (path, channels, frames), its first frame, lost spans and levels.
    public var segments: [TakeSegment] = []
    /// For a take aligned to capture latency: each channel's capture latency the take was aligned by. Frame
    /// times in the report (`startFrame`, events) are then converter time: JACK's frame at which
    /// the sound reached the converter.
    public var latencyAlignment: LatencyAlignment? = nil
    /// For a take that followed the master's clock (`--master-clock`): the master's frame time of
    /// the take's first frame, from the timecode (`MasterTimecode`). The master's frame of any
    /// later frame is this plus its position, plus the jumps before it (`masterClockJumps`).
    public var masterStartFrame: UInt32? = nil
    /// Events lost because a ring was full while the take ran (JACK's notifications or the
    /// callback's): connections, xruns or spans the report may leave out. 0 normally: the rings
    /// hold two announcements a channel.
    public var lostEvents = 0

    /// Every file the take wrote, in order.
    public var files: [TakeFileReport] { segments.flatMap(\.files) }

    /// JACK frame time just after the take's last frame (pauses make it later than
    /// start + frames).
    public var endFrame: UInt32? {
        for event in events.reversed() { if case .stopped(let frame, _) = event { return frame } }
        return startFrame.map { FrameTime.advance($0, by: Int(frames)) }
    }

    /// For a take that followed the transport: the transport's frame when it rolled, and its
    /// bar, beat and tick when a timebase master gave them.
    public var transportRoll: (transportFrame: UInt32, bbt: TransportBBT?)? {
        for event in events { if case .transportRolled(_, let frame, let bbt) = event { return (frame, bbt) } }
        return nil
    }

    /// For a take started by sound or by the transport with a pre-roll: how many frames into the
    /// take the trigger (or the roll) fell.
    public var triggerPosition: Int64? {
        for event in events { if case .triggered(_, let position) = event { return position } }
        return transportRollPosition
    }

    /// Where in the take the transport's roll fell (its pre-roll), when it followed the transport.
    var transportRollPosition: Int64? {
        guard let start = startFrame else { return nil }
        for event in events {
            if case .transportRolled(let frame, _, _) = event { return Int64(max(0, FrameTime.distance(from: start, to: frame))) }
        }
        return nil
    }

    /// The paused spans: where in the take each pause fell, and the JACK frames it skipped.
    public var pauses: [(position: Int64, fromFrame: UInt32, toFrame: UInt32?)] { CaptureEvent.pauses(in: events) }

    public var lostFrames: Int64 { lostSpans.reduce(0) { $0 + $1.frames } }

    /// Periods copied after JACK had begun the next one, as take positions: at their true place,
    /// but some of their samples may be the next period's (or, on a NetJACK2 slave, silence).
    public var lateCopySpans: [LostSpan] { Self.spans(in: events).late }

    /// Spans whose frames may not be at their true position, as take positions, in order and
    /// merged where they touch.
    public var uncertainSpans: [LostSpan] { Self.spans(in: events).uncertain }

    /// NetJACK2 link dropouts (`CaptureEvent.linkDropout`): near each position, about `frames`
    /// frames the master sent never reached the server; the take is that much earlier against
    /// the master's clock from there on.
    public var linkDropouts: [LostSpan] { Self.spans(in: events).dropouts }

    /// Following the master's clock: where the master's frames jumped against the take's
    /// (`CaptureEvent.masterClockJump`), each with the jump in frames (negative: back).
    public var masterClockJumps: [LostSpan] { Self.masterClockJumps(in: events) }

    package static func masterClockJumps(in events: [CaptureEvent]) -> [LostSpan] {
        events.compactMap { if case .masterClockJump(let position, let frames) = $0 { LostSpan(position: position, frames: frames) } else { nil } }
    }

    /// Where JACK 2 renumbered its clock at a period change (`CaptureEvent.clockRenumbered`),
    /// each with the step in frames (negative: back): the take went on without a break, and from
    /// each position on its frames sit that much later on JACK's clock.
    public var clockSteps: [LostSpan] { Self.clockSteps(in: events) }

    package static func clockSteps(in events: [CaptureEvent]) -> [LostSpan] {
        events.compactMap { if case .clockRenumbered(let position, let frames) = $0 { LostSpan(position: position, frames: frames) } else { nil } }
    }

    /// The late copies, uncertain placements and link dropouts among `events`, each in order
    /// (late copies and uncertain placements merged where they touch).
    package static func spans(in events: [CaptureEvent]) -> (late: [LostSpan], uncertain: [LostSpan], dropouts: [LostSpan]) {
        var late: [LostSpan] = [], uncertain: [LostSpan] = [], dropouts: [LostSpan] = []
        for event in events {
            switch event {
            case .lateCopy(let position, let frames): late.append(LostSpan(position: position, frames: frames))
            case .placementUncertain(let position, let frames): uncertain.append(LostSpan(position: position, frames: frames))
            case .linkDropout(let position, let frames): dropouts.append(LostSpan(position: position, frames: frames))
            default: break
            }
        }
        return (LostSpan.merged(late), LostSpan.merged(uncertain), dropouts)
    }
    public var channels: Int { sources.count }
    public var seconds: Double { Double(frames) / Double(max(1, sampleRate)) }
}

/// A channel's levels over a whole take.
public struct ChannelLevels: Equatable, Sendable {
    /// dBFS.
    public var highestPeak: Float
    /// Samples at or beyond full scale.
    public var clipCount: Int64
}
