/// What one session take's log entry says of its segment of the engine's take: a session's takes
/// back to back, or a split take's pieces, are the segments of one engine take, whose report and
/// events cover them all. Each entry's status and points come from its own segment only, so a
/// loss in one take never marks another.
package enum SessionTakeSegment {
    /// Whether a point event at take position `position` (a link dropout, a master-clock jump, an
    /// xrun) belongs to `segment`: from its first frame up to the next segment's first (the last
    /// segment's end is past its last frame: events there came as or after the take stopped,
    /// such as the xruns of a loaded server while the files close, and no file holds them).
    package static func holds(_ position: Int64, in segment: TakeSegment) -> Bool {
        position >= segment.position && position < max(segment.position + segment.frames, segment.position + 1)
    }

    /// The status the segment's own account calls for: frames lost when it holds a lost span, a
    /// link dropout or a master-clock jump; placement uncertain when an uncertain period falls
    /// within its frames; complete otherwise.
    package static func status(of segment: TakeSegment, events: [CaptureEvent]) -> TakeStatus {
        let end = segment.position + segment.frames
        let points = TakeReport.spans(in: events).dropouts + TakeReport.masterClockJumps(in: events)
        if !segment.lostSpans.isEmpty || points.contains(where: { holds($0.position, in: segment) }) { return .framesLost }
        let uncertain = TakeReport.spans(in: events).uncertain.contains { $0.clipped(from: segment.position, to: end) != nil }
        return uncertain ? .placementUncertain : .complete
    }

    /// The last segment's status, once the engine's take is over: how the take ended (`outcome`,
    /// for the whole run) where that is about the end (the server gone, the disk full, a failed
    /// write, ...), and otherwise what the last segment itself holds (`status(of:events:)`):
    /// frames lost in an earlier take are that take's, not the last one's.
    package static func status(ofLast segment: TakeSegment, outcome: TakeReport.Outcome, diskFull: Bool,
                               events: [CaptureEvent]) -> TakeStatus {
        switch outcome {
        case .complete, .lostFrames, .placementUncertain:
            diskFull ? .diskFull : status(of: segment, events: events)
        case .serverShutDown: .serverShutdown
        case .writeFailed: TakeStatus(outcome)   // ENOSPC, EDQUOT: disk full
        case .sampleRateChanged: .interrupted
        case .cancelled, .missedStart: .discarded
        }
    }
}
