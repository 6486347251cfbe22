import JackCapture

/// The messages jcap sends of its state (`/jcap/state`, `/jcap/track`, `/jcap/meter`) and of its
/// takes (`/jcap/take`), built from the control core's state and events; the README's "Remote
/// control: OSC" gives each message's arguments.
struct OSCReport {
    var path: String
    var arguments: [OSCArgument]

    /// `/jcap/state s:mode i:take f:seconds i:next_take i:last_take s:last_mark i:xruns
    /// i:lost_frames f:disk_seconds_left s:session` (0 for no take, -1 for an unknown disk).
    static func state(_ state: ControlState) -> OSCReport {
        OSCReport(path: "/jcap/state", arguments: [
            .string(state.mode.rawValue),
            .int(int32(state.currentTake ?? 0)),
            .float(Float(state.position) / Float(max(state.sampleRate, 1))),
            .int(int32(state.nextTake ?? 0)),
            .int(int32(state.lastTake ?? 0)),
            .string(OSCRequest.word(for: state.lastTakeMark)),
            .int(int32(state.xruns)),
            .int(int32(state.lostFrames)),
            .float(state.recordingSecondsLeft.map { Float($0) } ?? -1),
            .string(state.sessionName ?? ""),
        ])
    }

    /// What a subscriber is told again when it changes: everything in `/jcap/state` but the
    /// running clocks (the take's seconds, the disk's).
    static func stateChange(_ state: ControlState) -> [OSCArgument] {
        var arguments = Self.state(state).arguments
        arguments[8] = .float(0)
        arguments[2] = .float(0)
        return arguments
    }

    /// `/jcap/track i:number s:name i:armed i:clipped s:dead` for each track, numbered from 1
    /// (dead: "", "unpatched" or "silent").
    static func tracks(_ state: ControlState) -> [OSCReport] {
        state.meters.enumerated().map { index, meter in
            let dead = switch meter.dead {
            case .unpatched?: "unpatched"
            case .silent?: "silent"
            case nil: ""
            }
            return OSCReport(path: "/jcap/track", arguments: [
                .int(int32(index + 1)), .string(meter.name), .int(state.armedTracks.contains(meter.name) ? 1 : 0),
                .int(meter.clipped ? 1 : 0), .string(dead),
            ])
        }
    }

    /// `/jcap/meter s:track f:peak_db f:average_db` for each track (-160 is silence).
    static func meters(_ state: ControlState) -> [OSCReport] {
        state.meters.map { meter in
            OSCReport(path: "/jcap/meter", arguments: [
                .string(meter.name), .float(meter.reading.peakPower), .float(meter.reading.averagePower),
            ])
        }
    }

    /// `/jcap/take i:take s:what ...` for the events about takes: started; finished f:seconds
    /// s:status (as the log says it); discarded; marked s:mark; noted; marker f:seconds.
    static func take(_ event: ControlEvent, sampleRate: Int) -> [OSCReport] {
        func report(_ take: Int, _ what: String, _ more: [OSCArgument] = []) -> OSCReport {
            OSCReport(path: "/jcap/take", arguments: [.int(int32(take)), .string(what)] + more)
        }
        let rate = Float(max(sampleRate, 1))
        switch event {
        case .sessionTakeStarted(let take, _), .cuedTakeStarted(let take, _, _):
            return [report(take.currentNumber, "started")]
        case .sessionTakeFinished(_, let entries):
            return entries.map { entry in
                report(entry.take, "finished", [.float(Float(entry.frames) / Float(max(entry.sampleRate, 1))),
                                                .string(entry.status.rawValue)])
            }
        case .takeDiscarded(let take): return [report(take, "discarded")]
        case .takeMarked(let take, let mark): return [report(take, "marked", [.string(OSCRequest.word(for: mark))])]
        case .noteSet(let take): return [report(take, "noted")]
        case .markerDropped(let take, let marker): return [report(take, "marker", [.float(Float(marker.position) / rate)])]
        default: return []
        }
    }

    private static func int32(_ value: some BinaryInteger) -> Int32 { Int32(clamping: value) }
}
