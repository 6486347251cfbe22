import Atomics
import CJack

/// Something that happened during a take, with the JACK frame time and the take position (frames
/// recorded so far) it happened at.
///
/// Events the process callback publishes (start, pause, resume, stop, overrun, skipped frames)
/// carry exact frame times. Events JACK announces on its notification thread (xruns, buffer-size
/// and sample-rate changes) carry the server's estimate of the frame time when they were
/// announced. Connections are placed on the cycle they took effect in where the callback saw it
/// (`ConnectionTiming`).
public enum CaptureEvent: Equatable, Sendable {
    /// The take's first frame.
    case started(frameTime: UInt32)
    /// Recording paused: the frame at `frameTime` is the first one not recorded; `position`
    /// frames are in the take.
    case paused(frameTime: UInt32, position: Int64)
    /// Recording resumed: the frame at `frameTime` is recorded at `position` in the take.
    case resumed(frameTime: UInt32, position: Int64)
    /// The take ended before the frame at `frameTime`; it holds `position` frames.
    case stopped(frameTime: UInt32, position: Int64)
    /// The disk fell behind: `frames` frames at `position` were dropped (and written as silence).
    case overrun(position: Int64, frames: Int64)
    /// JACK's clock jumped over `frames` frames (an xrun): they reached no client and are written
    /// as silence at `position`.
    case framesSkipped(position: Int64, frames: Int64)
    /// The callback copied the period at `position` after JACK had begun the next one (it ran
    /// late): the period is at its true place, but JACK 2 shares port buffers, so if its source
    /// ran first the copy may hold the next period's samples. Reported, never guessed at.
    case lateCopy(position: Int64, frames: Int64)
    /// The `frames` frames at `position` may not be at their true position: the frame times the
    /// callbacks read could not decide where they belong (a gap read right after a late callback,
    /// a run of late callbacks longer than the timeline looks ahead), or a later reading proved
    /// them placed late. They may belong up to a few periods earlier; every frame outside such a
    /// span is at its true position or reported lost.
    case placementUncertain(position: Int64, frames: Int64)
    /// The server is a NetJACK2 slave and its link to the master dropped out near `position`:
    /// about `frames` frames (whole periods, `LinkDropout`) that the master ran never reached this
    /// server's clock. Nothing in the file stands for them; from there on the take is that much
    /// earlier against the master's clock.
    case linkDropout(position: Int64, frames: Int64)
    /// Following the master's clock (`--master-clock`, `MasterClockWatch`): from `position` on,
    /// the take's frames sit `frames` frames later on the master's clock than the ones before
    /// (a master xrun, a link dropout: that many of the master's frames are not in the file;
    /// earlier, when negative), exact to the frame.
    case masterClockJump(position: Int64, frames: Int64)
    /// The period changed and JACK 2 numbered the first cycle after it by the new period,
    /// though a whole old period of time had passed: its clock stepped `frames` frames (the new
    /// period less the old) with no frame missing or repeated. The take goes on without a break;
    /// from `position` on its frames sit `frames` frames later on JACK's clock than the ones
    /// before (earlier when negative).
    case clockRenumbered(position: Int64, frames: Int64)
    /// The server reported an xrun (jack_set_xrun_callback).
    case xrun(frameTime: UInt32, position: Int64)
    /// A source was connected to a channel's port: from `position` (`timing` says how exactly)
    /// the channel records it.
    case portConnected(channel: Int, source: String, frameTime: UInt32, position: Int64, timing: ConnectionTiming)
    /// A channel's source was disconnected, or its client quit: from `position` the channel
    /// records silence (or its other sources).
    case portDisconnected(channel: Int, source: String, frameTime: UInt32, position: Int64, timing: ConnectionTiming)
    /// The server's period changed (jack_set_buffer_size_callback); recording goes on.
    case bufferSizeChanged(frames: Int, frameTime: UInt32, position: Int64)
    /// The server's sample rate changed (jack_set_sample_rate_callback): the take stops there.
    case sampleRateChanged(from: Int, to: Int, position: Int64)
    /// The server shut down (jack_on_info_shutdown): no frame follows `position`.
    case serverShutDown(position: Int64)
    /// The JACK transport started rolling on the frame at `frameTime`, which
    /// starts the take: the transport's own position then, and its bar, beat and tick when a
    /// timebase master gives them.
    case transportRolled(frameTime: UInt32, transportFrame: UInt32, bbt: TransportBBT?)
    /// Sound reached the trigger level on the frame at `frameTime`, `position`
    /// frames into the take (its pre-roll).
    case triggered(frameTime: UInt32, position: Int64)
    /// A clock-aligned split: the next file begins at take frame `position`; the
    /// boundary fell on JACK frame `frameTime`.
    case fileSplit(frameTime: UInt32, position: Int64)
}

/// Bar, beat and tick (from 1, 1 and 0) of the JACK transport, as a timebase master gives them.
public struct TransportBBT: Equatable, Sendable, CustomStringConvertible {
    public var bar: Int
    public var beat: Int
    public var tick: Int

    public init(bar: Int, beat: Int, tick: Int) {
        self.bar = bar
        self.beat = beat
        self.tick = tick
    }

    /// `12|3|0480`, as Ardour writes BBT.
    public var description: String {
        let ticks = String(tick)
        return "\(bar)|\(beat)|" + String(repeating: "0", count: max(0, 4 - ticks.count)) + ticks
    }

    /// Packed in one integer for an event record: bar, beat and tick in 32, 16 and 16 bits.
    @_noAllocation @_noLocks
    static func packed(bar: Int32, beat: Int32, tick: Int32) -> Int64 {
        (Int64(max(0, bar)) << 32) | (Int64(max(0, beat) & 0xFFFF) << 16) | Int64(max(0, tick) & 0xFFFF)
    }

    init?(packed: Int64) {
        guard packed >= 0 else { return nil }
        self.init(bar: Int(packed >> 32), beat: Int((packed >> 16) & 0xFFFF), tick: Int(packed & 0xFFFF))
    }
}

extension CaptureEvent {
    /// The frame a trigger or a transport roll fell on, for those events.
    package var frameTimeOfTrigger: UInt32? {
        switch self {
        case .transportRolled(let frame, _, _), .triggered(let frame, _): frame
        default: nil
        }
    }

    /// A take's pauses from its events: where in the take each fell, and the JACK frames it
    /// skipped (no end while still paused).
    package static func pauses(in events: [CaptureEvent]) -> [(position: Int64, fromFrame: UInt32, toFrame: UInt32?)] {
        var spans: [(position: Int64, fromFrame: UInt32, toFrame: UInt32?)] = []
        for event in events {
            switch event {
            case .paused(let frame, let position): spans.append((position, frame, nil))
            case .resumed(let frame, _): if !spans.isEmpty { spans[spans.count - 1].toFrame = frame }
            default: break
            }
        }
        return spans
    }
}

extension CaptureEvent: CustomStringConvertible {
    public var description: String {
        switch self {
        case .started(let frame): "started at JACK frame \(frame)"
        case .paused(let frame, let position): "paused at JACK frame \(frame) (take frame \(position))"
        case .resumed(let frame, let position): "resumed at JACK frame \(frame) (take frame \(position))"
        case .stopped(let frame, let position): "stopped before JACK frame \(frame) (\(position) frames)"
        case .overrun(let position, let frames): "disk overrun: \(frames) frames lost at take frame \(position)"
        case .framesSkipped(let position, let frames): "xrun: JACK skipped \(frames) frames at take frame \(position)"
        case .lateCopy(let position, let frames):
            "late callback: the \(frames) frames at take frame \(position) were copied after JACK began the next period; some may be the next period's samples (or, on a NetJACK2 slave, silence) instead"
        case .placementUncertain(let position, let frames):
            "placement uncertain: the \(frames) frames at take frame \(position) may belong up to a few periods earlier (callbacks ran late around an xrun)"
        case .linkDropout(let position, let frames):
            "NetJACK2 link dropout near take frame \(position): about \(frames) frames the master sent never reached this server; the rest of the take is that much earlier against the master's clock"
        case .masterClockJump(let position, let frames):
            "master clock jump at take frame \(position): from here on the take's frames are \(frames) frames \(frames < 0 ? "earlier" : "later") on the master's clock (\(frames < 0 ? "frames repeated" : "frames missing"))"
        case .clockRenumbered(let position, let frames):
            "JACK's clock stepped \(frames > 0 ? "+" : "")\(frames) frames at the period change (take frame \(position)), no frame missing; the take goes on without a break, \(abs(frames)) frames \(frames < 0 ? "earlier" : "later") on JACK's clock from here"
        case .xrun(let frame, let position): "xrun near JACK frame \(frame) (take frame \(position))"
        case .portConnected(let channel, let source, let frame, let position, let timing):
            "channel \(channel + 1): \(source) connected \(timing.preposition) JACK frame \(frame) (take frame \(position))"
                + timing.uncertainty
        case .portDisconnected(let channel, let source, let frame, let position, let timing):
            "channel \(channel + 1): \(source) disconnected \(timing.preposition) JACK frame \(frame) (take frame \(position)); recording silence"
        case .bufferSizeChanged(let frames, let frame, let position):
            "JACK period changed to \(frames) frames near JACK frame \(frame) (take frame \(position)); recording goes on"
        case .sampleRateChanged(let from, let to, let position):
            "JACK sample rate changed from \(from) to \(to) Hz at take frame \(position); the take stops there"
        case .serverShutDown(let position): "the JACK server shut down at take frame \(position)"
        case .transportRolled(let frame, let transportFrame, let bbt):
            "the transport rolled at JACK frame \(frame) (transport frame \(transportFrame)\(bbt.map { ", bar \($0)" } ?? ""))"
        case .triggered(let frame, let position): "triggered at JACK frame \(frame), \(position) frames into the take"
        case .fileSplit(let frame, let position): "next file from take frame \(position) (clock boundary at JACK frame \(frame))"
        }
    }
}

/// One event on an event ring: fixed-size, so the process callback writes it with two copies and
/// no allocation. Notification records are followed by `textByteCount` bytes of a port name.
struct CaptureEventRecord: Equatable {
    enum Kind: Int32 {
        case started, paused, resumed, stopped, overrun, framesSkipped
        case xrun, portConnected, portDisconnected, bufferSizeChanged, sampleRateChanged
        case lateCopy
        case transportRolled
        case triggered
        case fileSplit
        case placementUncertain
        case linkDropout
        case masterClockJump
        /// From the process callback: a channel's port read from new sources from this cycle
        /// (`value` the channel, `extra` the cycle's frames). Paired with its announcement
        /// (`ConnectionPlacement`), never an event of its own.
        case inputChanged
        case clockRenumbered
    }

    /// The process callback's kinds as plain constants: an enum's `rawValue` is a call the
    /// real-time checker cannot see into. `CaptureEventTests` checks they match `Kind`.
    static var startedKind: Int32 { @_noAllocation @_noLocks get { 0 } }
    static var pausedKind: Int32 { @_noAllocation @_noLocks get { 1 } }
    static var resumedKind: Int32 { @_noAllocation @_noLocks get { 2 } }
    static var stoppedKind: Int32 { @_noAllocation @_noLocks get { 3 } }
    static var overrunKind: Int32 { @_noAllocation @_noLocks get { 4 } }
    static var framesSkippedKind: Int32 { @_noAllocation @_noLocks get { 5 } }
    static var lateCopyKind: Int32 { @_noAllocation @_noLocks get { 11 } }
    static var transportRolledKind: Int32 { @_noAllocation @_noLocks get { 12 } }
    static var triggeredKind: Int32 { @_noAllocation @_noLocks get { 13 } }
    static var splitKind: Int32 { @_noAllocation @_noLocks get { 14 } }
    static var placementUncertainKind: Int32 { @_noAllocation @_noLocks get { 15 } }
    static var linkDropoutKind: Int32 { @_noAllocation @_noLocks get { 16 } }
    static var masterClockJumpKind: Int32 { @_noAllocation @_noLocks get { 17 } }
    static var inputChangedKind: Int32 { @_noAllocation @_noLocks get { 18 } }
    static var clockRenumberedKind: Int32 { @_noAllocation @_noLocks get { 19 } }
    /// Set in a connection announcement's `value` (above the channel) when the other port is a
    /// hardware input.
    static var hardwareSourceFlag: Int64 { 1 << 32 }

    var kind: Int32
    var frameTime: UInt32
    var position: Int64
    /// Frames (overrun, skipped), the channel (connections, with `hardwareSourceFlag`), the new
    /// period or sample rate.
    var value: Int64
    /// The old sample rate (sampleRateChanged), or the length of the port name that follows
    /// (connections).
    var extra: Int64

    static var byteCount: Int {
        @_noAllocation @_noLocks get { MemoryLayout<CaptureEventRecord>.stride }
    }
}

extension RingBuffer {
    /// Publishes one fixed-size event record (the process callback's side of an event ring).
    @_noAllocation @_noLocks
    func publish(_ record: UnsafePointer<CaptureEventRecord>, dropped: UnsafeAtomic<Int>) {
        let size = CaptureEventRecord.byteCount
        guard writableByteCount() >= size else {
            _ = dropped.loadThenWrappingIncrement(ordering: .relaxed)
            return
        }
        stage(from: UnsafeRawPointer(record), byteCount: size, at: 0)
        commitWrite(byteCount: size)
    }

    /// Publishes a record followed by a name (the notification thread's side; not real-time).
    func publish(_ record: CaptureEventRecord, text: String, dropped: UnsafeAtomic<Int>) {
        var record = record
        let bytes = Array(text.utf8.prefix(1_024))
        if !bytes.isEmpty { record.extra = Int64(bytes.count) }
        let size = CaptureEventRecord.byteCount + bytes.count
        guard writableByteCount() >= size else {
            _ = dropped.loadThenWrappingIncrement(ordering: .relaxed)
            return
        }
        withUnsafeBytes(of: &record) { stage(from: $0.baseAddress!, byteCount: CaptureEventRecord.byteCount, at: 0) }
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { stage(from: base, byteCount: bytes.count, at: CaptureEventRecord.byteCount) }
        }
        commitWrite(byteCount: size)
    }

    /// Takes every published record (the consumer's side), with the name following each one for
    /// rings that carry names.
    func drainEvents(withText: Bool) -> [(CaptureEventRecord, String)] {
        var events: [(CaptureEventRecord, String)] = []
        var record = CaptureEventRecord(kind: 0, frameTime: 0, position: 0, value: 0, extra: 0)
        while readableByteCount() >= CaptureEventRecord.byteCount {
            withUnsafeMutableBytes(of: &record) { peek(into: $0.baseAddress!, byteCount: CaptureEventRecord.byteCount, at: 0) }
            var text = ""
            var size = CaptureEventRecord.byteCount
            let named = record.kind == CaptureEventRecord.Kind.portConnected.rawValue
                || record.kind == CaptureEventRecord.Kind.portDisconnected.rawValue
            if withText && named && record.extra > 0 {
                let count = Int(record.extra)
                var bytes = [UInt8](repeating: 0, count: count)
                bytes.withUnsafeMutableBytes { peek(into: $0.baseAddress!, byteCount: count, at: CaptureEventRecord.byteCount) }
                text = String(decoding: bytes, as: UTF8.self)
                size += count
            }
            commitRead(byteCount: size)
            events.append((record, text))
        }
        return events
    }
}

extension CaptureEvent {
    /// The event a ring record stands for.
    init?(record: CaptureEventRecord, text: String) {
        guard let kind = CaptureEventRecord.Kind(rawValue: record.kind) else { return nil }
        let frame = record.frameTime, position = record.position
        switch kind {
        case .started: self = .started(frameTime: frame)
        case .paused: self = .paused(frameTime: frame, position: position)
        case .resumed: self = .resumed(frameTime: frame, position: position)
        case .stopped: self = .stopped(frameTime: frame, position: position)
        case .overrun: self = .overrun(position: position, frames: record.value)
        case .framesSkipped: self = .framesSkipped(position: position, frames: record.value)
        case .lateCopy: self = .lateCopy(position: position, frames: record.value)
        case .xrun: self = .xrun(frameTime: frame, position: position)
        case .portConnected, .portDisconnected, .inputChanged:
            // Placed on their cycle first (`ConnectionPlacement`).
            return nil
        case .bufferSizeChanged: self = .bufferSizeChanged(frames: Int(record.value), frameTime: frame, position: position)
        case .sampleRateChanged: self = .sampleRateChanged(from: Int(record.extra), to: Int(record.value), position: position)
        case .transportRolled:
            self = .transportRolled(frameTime: frame, transportFrame: UInt32(truncatingIfNeeded: record.value),
                                    bbt: TransportBBT(packed: record.extra))
        case .triggered: self = .triggered(frameTime: frame, position: position)
        case .fileSplit: self = .fileSplit(frameTime: frame, position: position)
        case .placementUncertain: self = .placementUncertain(position: position, frames: record.value)
        case .linkDropout: self = .linkDropout(position: position, frames: record.value)
        case .masterClockJump: self = .masterClockJump(position: position, frames: record.value)
        case .clockRenumbered: self = .clockRenumbered(position: position, frames: record.value)
        }
    }
}
