import JackCapture

/// The JSON the server sends each page: the state (25 times a second while it changes), the
/// take list (when the log changes) and what happened (refusals, questions, answers).
enum WebRemoteMessages {
    struct Track: Encodable {
        var name: String
        var armed: Bool
        /// dBFS, on the console's scale (`ChannelMeters`): sample peak, peak held, RMS average.
        var peak: Double
        var hold: Double
        var average: Double
        var clipped: Bool
        /// "unpatched", "silent" or nil.
        var dead: String?
    }

    struct State: Encodable {
        var type = "state"
        var revision: UInt64
        var session: String?
        var mode: String
        var take: Int?
        var nextTake: Int?
        var lastTake: Int?
        var lastTakeMark: String?
        var seconds: Double
        var remainingSeconds: Double?
        var diskSecondsLeft: Double?
        var xruns: Int64
        var lostFrames: Int64
        var pendingStop: Int?
        var pendingDiscard: Int?
        var refusedMessages: Int
        var tracks: [Track]
    }

    struct TakeFile: Encodable {
        var index: Int
        var name: String
    }

    struct Take: Encodable {
        var take: Int
        var status: String
        var seconds: Double
        var time: String?
        /// The loudest track's highest peak, dBFS.
        var peak: Double?
        var lostFrames: Int64
        var mark: String?
        var note: String?
        var files: [TakeFile]
    }

    struct Takes: Encodable {
        var type = "takes"
        var takes: [Take]
    }

    struct Event: Encodable {
        var sequence: UInt64
        /// "refused", "asked", "told".
        var kind: String
        var text: String
    }

    struct Events: Encodable {
        var type = "events"
        var events: [Event]
    }

    /// Finite, and no lower than the meters' floor: JSON has no infinities.
    static func decibels(_ value: Float) -> Double {
        value.isFinite ? Double(max(value, -160)) : -160
    }

    static func state(_ state: ControlState, revision: UInt64, refused: Int) -> State {
        let armed = Set(state.armedTracks)
        let rate = Double(max(state.sampleRate, 1))
        return State(revision: revision, session: state.sessionName, mode: state.mode.rawValue, take: state.currentTake,
                     nextTake: state.nextTake, lastTake: state.lastTake, lastTakeMark: state.lastTakeMark?.rawValue,
                     seconds: Double(state.position) / rate, remainingSeconds: state.remainingFrames.map { Double($0) / rate },
                     diskSecondsLeft: state.recordingSecondsLeft.flatMap { $0.isFinite ? $0 : nil },
                     xruns: state.xruns, lostFrames: state.lostFrames, pendingStop: state.pendingStop,
                     pendingDiscard: state.pendingDiscard, refusedMessages: refused,
                     tracks: state.meters.map { meter in
                         Track(name: meter.name, armed: armed.contains(meter.name), peak: decibels(meter.reading.peakPower),
                               hold: decibels(meter.reading.peakHold), average: decibels(meter.reading.averagePower),
                               clipped: meter.clipped, dead: meter.dead.map(dead))
                     })
    }

    static func dead(_ dead: DeadTrack) -> String {
        switch dead {
        case .unpatched: "unpatched"
        case .silent: "silent"
        }
    }

    static func takes(_ entries: [TakeLogEntry]) -> Takes {
        Takes(takes: entries.filter { !$0.status.isRemoved }.reversed().map { entry in
            let peaks = entry.tracks.compactMap(\.highestPeakDBFS)
            return Take(take: entry.take, status: entry.status.rawValue,
                        seconds: Double(entry.frames) / Double(max(entry.sampleRate, 1)), time: entry.startTime,
                        peak: peaks.max(), lostFrames: entry.lost.reduce(0) { $0 &+ $1.frames },
                        mark: entry.mark?.rawValue, note: entry.note,
                        files: entry.files.enumerated().map { TakeFile(index: $0.offset, name: $0.element.path) })
        })
    }

    /// What a page tells of an event, or nil for what it shows otherwise (the meters, the state).
    static func event(_ numbered: ControlMailbox.NumberedEvent) -> Event? {
        let sequence = numbered.sequence
        switch numbered.event {
        case .refused(_, let refusal): return Event(sequence: sequence, kind: "refused", text: refusal.description)
        case .stopAsked(let take, _): return Event(sequence: sequence, kind: "asked", text: "Stop take \(take)?")
        case .discardAsked(let take): return Event(sequence: sequence, kind: "asked", text: "Discard take \(take)?")
        case .keptRecording(let take): return Event(sequence: sequence, kind: "told", text: "Take \(take) goes on recording")
        case .takeKept(let take): return Event(sequence: sequence, kind: "told", text: "Take \(take) kept")
        case .takeDiscarded(let take): return Event(sequence: sequence, kind: "told", text: "Take \(take) discarded")
        case .noteSet(let take): return Event(sequence: sequence, kind: "told", text: "Note set on take \(take)")
        case .takeMarked(let take, let mark):
            return Event(sequence: sequence, kind: "told",
                         text: mark.map { "Take \(take) marked \(TakeListing.markText($0))" } ?? "Take \(take) unmarked")
        case .trackArmed(let track, let armed):
            return Event(sequence: sequence, kind: "told", text: "\(track) \(armed ? "armed" : "disarmed")")
        case .sessionTakeStarted(let take, _), .cuedTakeStarted(let take, _, _):
            return Event(sequence: sequence, kind: "told", text: "Take \(take.currentNumber) recording")
        case .sessionTakeFinished(let take, let entries):
            return Event(sequence: sequence, kind: "told",
                         text: entries.isEmpty ? "Take \(take.currentNumber) did not start" : "Take \(take.currentNumber) stopped")
        case .error(let error), .failed(let error): return Event(sequence: sequence, kind: "refused", text: error.description)
        case .serverShutDown: return Event(sequence: sequence, kind: "refused", text: "The JACK server went away; waiting for it")
        case .serverReturned: return Event(sequence: sequence, kind: "told", text: "The JACK server is back")
        default: return nil
        }
    }

    /// Whether the event changes the take log (the page's take list is read again).
    static func changesTakeLog(_ event: ControlEvent) -> Bool {
        switch event {
        case .sessionTakeStarted, .cuedTakeStarted, .sessionTakeFinished, .takeDiscarded, .noteSet, .takeMarked,
             .markerDropped, .serverReturned:
            true
        default: false
        }
    }
}
