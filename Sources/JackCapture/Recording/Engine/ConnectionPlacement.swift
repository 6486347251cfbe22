/// Where a connection made or broken during a take lands in it.
public enum ConnectionTiming: Equatable, Sendable {
    /// The server's estimate when it announced the change. Its graph switched at the start of a
    /// cycle within a few periods of it; the callback did not see which (the take was not copying
    /// that cycle, or the port mixes two or more sources, whose buffer does not change).
    case near
    /// The first frame of the cycle whose frames the port read from its new sources. For a
    /// connection from a hardware input, `uncertainFrames` (that cycle's) may hold the input's
    /// audio from before: JACK's drivers fill a capture port only while it is connected, and they
    /// fill it before the graph switches.
    case exact(uncertainFrames: Int)

    /// "at" or "near", before the frame.
    public var preposition: String {
        if case .exact = self { "at" } else { "near" }
    }

    /// What the report adds about the frames that may be older audio (empty when none may be).
    public var uncertainty: String {
        guard case .exact(let frames) = self, frames > 0 else { return "" }
        return "; its first \(frames) frames may be that input's audio from before (JACK fills a hardware input only while it is connected)"
    }
}

/// Pairs the connections JACK announces with the cycles they took effect in.
///
/// JACK's notification thread announces that a channel's port was connected or disconnected
/// when the server makes the change, with the server's frame estimate then. The server applies
/// it at the start of a later cycle: the next, or later while a client still runs the last. The
/// process callback sees that cycle exactly, because the port's buffer changes (its own, zeroed,
/// when unconnected; the source's, when it has one). Each switch takes the announcements for its
/// channel made up to `appliedWithin` periods before it (several, when changes were applied
/// together), or, when the notification thread ran late, the oldest one after it. An older
/// announcement belongs to a switch the callback could not place (a change while paused): taken by
/// a later one it would be said exact on the wrong frame. What finds no partner once the callback
/// has planned every cycle it could have fallen in goes out as it is: an announcement `near` its
/// frame; a switch alone, as nothing (every change is announced).
struct ConnectionPlacement {
    struct Announcement: Equatable {
        var channel: Int
        var source: String
        var connected: Bool
        /// The source is a hardware (physical) port.
        var hardware: Bool
        var frameTime: UInt32
        var position: Int64
    }

    /// A channel's port read from new sources from the cycle at `frameTime` (`frames` long), at
    /// take frame `position`.
    struct Switch: Equatable {
        var channel: Int
        var frameTime: UInt32
        var position: Int64
        var frames: Int
    }

    /// The announcement a notification record stands for, if it is one.
    static func announcement(from record: CaptureEventRecord, source: String) -> Announcement? {
        let connected = record.kind == CaptureEventRecord.Kind.portConnected.rawValue
        guard connected || record.kind == CaptureEventRecord.Kind.portDisconnected.rawValue else { return nil }
        let flag = CaptureEventRecord.hardwareSourceFlag
        return Announcement(channel: Int(record.value & (flag - 1)), source: source, connected: connected,
                            hardware: record.value & flag != 0, frameTime: record.frameTime, position: record.position)
    }

    /// The switch a process callback record stands for, if it is one.
    static func change(from record: CaptureEventRecord) -> Switch? {
        guard record.kind == CaptureEventRecord.inputChangedKind else { return nil }
        return Switch(channel: Int(record.value), frameTime: record.frameTime, position: record.position, frames: Int(record.extra))
    }

    private var announcements: [Announcement] = []
    private var switches: [Switch] = []

    /// The server applies a change at the start of the next cycle, or of a later one while a
    /// client still runs the last (or the last ran over): within this many periods of it.
    static let appliedWithin = 4

    var isEmpty: Bool { announcements.isEmpty && switches.isEmpty }

    mutating func announce(_ announcement: Announcement) { announcements.append(announcement) }

    mutating func observe(_ change: Switch) { switches.append(change) }

    /// The events ready to go out, in the order they happened: pairs, and what waited past
    /// `horizon` frames before `lastCycleEnd` (the last frame the callback has read; nil: release
    /// everything, no cycle will come).
    mutating func release(lastCycleEnd: UInt32?, horizon: Int) -> [CaptureEvent] {
        var ready: [(Int64, CaptureEvent)] = []
        var remaining: [Switch] = []
        for change in switches {
            let window = Self.appliedWithin * change.frames
            var taken = announcements.indices.filter {
                let before = FrameTime.distance(from: announcements[$0].frameTime, to: change.frameTime)
                return announcements[$0].channel == change.channel && before >= 0 && before <= window
            }
            if taken.isEmpty, let late = announcements.firstIndex(where: {
                $0.channel == change.channel && FrameTime.distance(from: change.frameTime, to: $0.frameTime) <= horizon
            }) {
                taken = [late]
            }
            if taken.isEmpty {
                if let end = lastCycleEnd, FrameTime.distance(from: change.frameTime, to: end) <= horizon {
                    remaining.append(change)
                }
                continue
            }
            for index in taken {
                let announced = announcements[index]
                let uncertain = announced.connected && announced.hardware ? change.frames : 0
                ready.append((change.position, Self.event(announced, frameTime: change.frameTime, position: change.position,
                                                          timing: .exact(uncertainFrames: uncertain))))
            }
            for index in taken.reversed() { announcements.remove(at: index) }
        }
        switches = remaining
        announcements.removeAll { announced in
            if let end = lastCycleEnd, FrameTime.distance(from: announced.frameTime, to: end) <= horizon { return false }
            ready.append((announced.position, Self.event(announced, frameTime: announced.frameTime,
                                                         position: announced.position, timing: .near)))
            return true
        }
        // Stable: events at one position keep the order they were announced in.
        return ready.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
    }

    private static func event(_ announced: Announcement, frameTime: UInt32, position: Int64,
                              timing: ConnectionTiming) -> CaptureEvent {
        announced.connected
            ? .portConnected(channel: announced.channel, source: announced.source, frameTime: frameTime,
                             position: position, timing: timing)
            : .portDisconnected(channel: announced.channel, source: announced.source, frameTime: frameTime,
                                position: position, timing: timing)
    }
}
