import Atomics
import CJack

/// When a take starts.
package enum CaptureStart: Equatable, Sendable {
    /// On the first cycle after arming, at its first frame.
    case immediately
    /// At this JACK frame time, exactly.
    case atFrame(UInt32)
    /// At this moment of JACK's clock (`jack_get_time`, in nanoseconds): the frame is decided in
    /// the cycle the moment falls in (`ClockStart`), the same frame in every client of the server.
    case atJackNanoseconds(Int64)
    /// On the frame the JACK transport starts rolling, ending on the frame it stops
    /// (`watchTransport` must be on before that roll begins).
    case onTransportRoll
    /// On the first sample of any channel at or above this amplitude.
    case onLevel(Float)
    /// On the frame `cue(atFrame:)` names later (a key), a pre-roll before it.
    case onCue
}

/// A snapshot of an engine's counters, read without disturbing the process callback.
public struct CaptureStatus: Equatable, Sendable {
    public var phase: CapturePhase
    /// Frames of the take so far (including frames lost and padded).
    public var position: Int64
    /// JACK frame time of the take's first frame, once it has started.
    public var startFrame: UInt32?
    /// Frames dropped because the ring was full (the disk fell behind).
    public var overrunFrames: Int64
    /// Cycles dropped whole because the ring was full.
    public var overrunCycles: Int64
    /// Frames JACK's clock jumped over during the take (xruns).
    public var skippedFrames: Int64
    /// Xruns the server reported while the client was active.
    public var xruns: Int64
    /// How full the ring is, 0 to 1.
    public var bufferFill: Double
    /// The server shut down.
    public var serverGone: Bool

    /// Frames of the take that hold silence instead of what was played.
    public var lostFrames: Int64 { overrunFrames + skippedFrames }
}

/// The real-time half of jcap: a JACK client's input ports, the process callback that copies whole
/// periods from them into a lock-free ring, and the controls to start and stop on exact frames.
///
/// The process callback (`captureProcessCallback`) is `@_noAllocation @_noLocks`: it copies, counts
/// and publishes through atomics, nothing else. Everything here runs on other threads.
package final class CaptureEngine: @unchecked Sendable {
    // @unchecked: `state` and `ports` are raw memory shared with JACK's threads (only atomics cross).
    package let client: JackClient
    /// Full names of the engine's input ports (`jcap:in_1`), in channel order.
    package let portNames: [String]
    let ports: [OpaquePointer]
    /// The input port the master's timecode comes in on (`--master-clock`), not a channel of any
    /// take; nil when the engine does not follow the master's clock.
    let timecodePort: OpaquePointer?
    let state: UnsafeMutablePointer<CaptureProcessState>
    private let lastTake = Locked<UInt32>(0)
    /// Connections announced, and the cycles the callback saw inputs change in, not yet paired.
    private let connections = Locked(ConnectionPlacement())

    /// Registers one input port per name and allocates a ring of `bufferSeconds` of audio (at the
    /// server's current rate and period), touched so the callback never faults on it.
    ///
    /// `preRollSeconds`: the longest pre-roll a take may keep; the ring holds it
    /// on top of `bufferSeconds`.
    /// `onNetJackSlave`: the server is a NetJACK2 slave, so the callback reports periods its
    /// master ran that never reached the server's clock (`LinkDropout`), and copies that may have
    /// met the next period's packets (`NetSlaveCopyWindow`).
    /// `timecodePortName`: registers one more input port of that short name, for the master's
    /// timecode (`MasterTimecode`): each take is followed on the master's clock.
    package init(client: JackClient, portShortNames: [String], bufferSeconds: Double,
                 preRollSeconds: Double = 0, onNetJackSlave: Bool = false, timecodePortName: String? = nil) throws(JackError) {
        self.client = client
        var ports: [OpaquePointer] = []
        for name in portShortNames {
            ports.append(try client.registerAudioInput(named: name))
        }
        self.ports = ports
        timecodePort = try timecodePortName.map { name throws(JackError) in try client.registerAudioInput(named: name) }
        portNames = ports.map { client.fullName(of: $0) }
        let ring = RingBuffer(capacity: CaptureEngine.ringByteCount(
            seconds: bufferSeconds + max(0, preRollSeconds), sampleRate: client.sampleRate,
            period: client.bufferSize, channels: ports.count))
        state = .allocate(capacity: 1)
        let preRollFrames = Int((max(0, min(preRollSeconds, 3_600)) * Double(client.sampleRate)).rounded(.up))
        state.initialize(to: CaptureProcessState(client: client.handle, ports: ports, ring: ring,
                                                 sampleRate: client.sampleRate, periodFrames: client.bufferSize,
                                                 maximumPreRollFrames: preRollFrames,
                                                 onNetJackSlave: onNetJackSlave, timecodePort: timecodePort))
        meters = ChannelMeters(accumulators: state.pointee.meters, sampleRate: client.sampleRate)
    }

    /// The engine lives as long as its `CaptureClient`, whose host deactivates and closes the
    /// client first: nothing can run the callbacks once the state is freed here.
    deinit {
        state.pointee.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Bytes of ring for `seconds` of `channels` channels, with room for each cycle's header and
    /// never less than the cycles the callback holds back while their time settles
    /// (`CycleTimeline.capacity`) plus one, of the longest period JACK allows (8192 frames), so
    /// that the period may grow mid-take without every cycle overrunning. `Int.max` (which no
    /// machine holds) when the count overflows, or `seconds` is NaN; `MemoryBudget` checks it
    /// before allocating.
    package static func ringByteCount(seconds: Double, sampleRate: Int, period: Int, channels: Int) -> Int {
        let wanted = (seconds * Double(sampleRate)).rounded(.up)
        guard wanted < 0x1p62 else { return Int.max }
        let period = min(max(period, 1), 1 << 30)
        let frames = max(Int(max(wanted, 0)), (CycleTimeline.capacity + 1) * max(period, 8_192))
        let cycles = (frames + period - 1) / period + 1
        let (samples, o1) = frames.multipliedReportingOverflow(by: max(channels, 0))
        let (sampleBytes, o2) = samples.multipliedReportingOverflow(by: MemoryLayout<Float>.stride)
        let (headerBytes, o3) = cycles.multipliedReportingOverflow(by: CaptureBlockHeader.byteCount)
        let (bytes, o4) = sampleBytes.addingReportingOverflow(headerBytes)
        return o1 || o2 || o3 || o4 ? Int.max : bytes
    }

    package var channelCount: Int { ports.count }
    package var ring: RingBuffer { state.pointee.ring }

    /// Has `host` install the callbacks and activate the client (jack_activate). The callback
    /// does nothing until `arm`.
    package func activate(on host: JackHost) throws(JackError) {
        let callbacks = JackCallbacks(process: captureProcessCallback, argument: UnsafeMutableRawPointer(state),
                                      xrun: captureXrunCallback, shutdown: captureShutdownCallback,
                                      portConnect: capturePortConnectCallback, bufferSize: captureBufferSizeCallback,
                                      sampleRate: captureSampleRateCallback)
        try host.activate(callbacks)
    }

    /// Connections each input port has now (jack_port_connected).
    package func connectionCounts() -> [Int] { ports.map { client.connectionCount(of: $0) } }

    /// Numbers a new take, to arm with `arm(_:start:length:)` and to give its writer
    /// (`writerSource(forTake:)`). Takes are numbered from 1; one client records any number, one
    /// after another.
    package func reserveTake() -> UInt32 {
        lastTake.withLock { last in
            last &+= 1
            if last == 0 { last = 1 }
            return last
        }
    }

    /// Full name of the timecode's input port (`jcap:master_clock`), when the engine follows the
    /// master's clock.
    package var timecodePortName: String? { timecodePort.map { client.fullName(of: $0) } }

    /// Following the master's clock: the master's frame time less this server's, once two cycles
    /// in a row read the same from the timecode; nil before, or when the timecode does not decode.
    package var masterOffset: UInt32? {
        let offset = state.pointee.masterOffset.load(ordering: .relaxed)
        return offset < 0 ? nil : UInt32(truncatingIfNeeded: offset)
    }

    /// Arms take `take`: it starts at `start` and, with a `length`, stops after exactly that many
    /// frames. The take before it must have finished (a new take replaces it in the callback).
    /// `masterOffset`: following the master's clock, the offset the take starts at (nil: the
    /// first placed cycle's).
    ///
    /// `preRollFrames`: a take that waits for a trigger or the transport starts this much before
    /// it (at most the engine's room). `stopAfterQuietFrames`: a level-triggered take ends after
    /// this many frames below the level (0: it does not).
    package func arm(_ take: UInt32, start: CaptureStart, length: Int64?, alignment: LatencyAlignment? = nil,
                     preRollFrames: Int = 0, stopAfterQuietFrames: Int = 0, masterOffset: UInt32? = nil) {
        let pointer = state.pointee
        pointer.requestedMasterOffset.store(masterOffset.map(Int64.init) ?? CaptureProcessState.noRequest, ordering: .relaxed)
        // Delay lines the callback never took (a take re-armed before its first cycle) or gave
        // back: the callback holds neither any more.
        for slot in [pointer.pendingDelayLines, pointer.retiredDelayLines] {
            if let set = UnsafeMutablePointer<DelayLineSet>(bitPattern: slot.exchange(0, ordering: .acquiring)) {
                DelayLineSet.free(set)
            }
        }
        let lines = alignment.flatMap { DelayLineSet.make(delays: $0.delays) }
        pointer.pendingDelayLines.store(lines.map { Int(bitPattern: $0) } ?? 0, ordering: .releasing)
        pointer.requestedAlignment.store(alignment?.shift ?? 0, ordering: .relaxed)
        pointer.requestedLongestDelay.store(alignment?.longestDelay ?? 0, ordering: .relaxed)
        switch start {
        case .immediately:
            pointer.requestedStart.store(CaptureProcessState.noRequest, ordering: .relaxed)
            pointer.requestedClockStart.store(CaptureProcessState.noRequest, ordering: .relaxed)
        case .atFrame(let frame):
            pointer.requestedStart.store(Int64(frame), ordering: .relaxed)
            pointer.requestedClockStart.store(CaptureProcessState.noRequest, ordering: .relaxed)
        case .atJackNanoseconds(let moment):
            pointer.requestedStart.store(CaptureProcessState.noRequest, ordering: .relaxed)
            pointer.requestedClockStart.store(max(0, moment), ordering: .relaxed)
        case .onTransportRoll, .onLevel, .onCue:
            pointer.requestedStart.store(CaptureProcessState.noRequest, ordering: .relaxed)
            pointer.requestedClockStart.store(CaptureProcessState.noRequest, ordering: .relaxed)
        }
        var level: Float = 0
        if case .onLevel(let amplitude) = start { level = max(amplitude, .leastNormalMagnitude) }
        pointer.requestedTriggerLevel.store(Int(level.bitPattern), ordering: .relaxed)
        pointer.requestedTriggerStop.store(max(0, stopAfterQuietFrames), ordering: .relaxed)
        pointer.requestedPreRoll.store(max(0, preRollFrames), ordering: .relaxed)
        pointer.requestedCue.store(start == .onCue ? CaptureProcessState.cueAwaited : CaptureProcessState.noRequest,
                                   ordering: .relaxed)
        if start == .onTransportRoll { watchTransport() }
        pointer.requestedTransportFollow.store(start == .onTransportRoll, ordering: .relaxed)
        pointer.requestedLength.store(length ?? CaptureProcessState.noRequest, ordering: .relaxed)
        pointer.requestedStop.store(CaptureProcessState.noRequest, ordering: .relaxed)
        pointer.requestedPause.store(CaptureProcessState.noRequest, ordering: .relaxed)
        pointer.requestedResume.store(CaptureProcessState.noRequest, ordering: .relaxed)
        pointer.armedTake.store(take, ordering: .releasing)
    }

    /// Starts a take armed `.onCue` at JACK frame `frame` (a pre-roll before it, as far as the
    /// callback still holds frames).
    package func cue(atFrame frame: UInt32) {
        _ = state.pointee.requestedCue.compareExchange(expected: CaptureProcessState.cueAwaited, desired: Int64(frame),
                                                       ordering: .releasing)
    }

    /// Has the process callback watch the JACK transport from now on, armed or not, so that a
    /// take following it knows the exact frame of each roll (turned on once; it costs one
    /// jack_transport_query a cycle).
    package func watchTransport() {
        state.pointee.watchesTransport.store(true, ordering: .relaxed)
    }

    /// Moves the moment of a clock start not yet decided (`CaptureStart.atJackNanoseconds`) to a
    /// fresher conversion of the same wall-clock time. Once the callback has decided the frame,
    /// this changes nothing.
    package func updateClockStart(_ nanoseconds: Int64) {
        let pointer = state.pointee
        guard pointer.requestedClockStart.load(ordering: .relaxed) != CaptureProcessState.noRequest else { return }
        pointer.requestedClockStart.store(max(0, nanoseconds), ordering: .relaxed)
    }

    /// The take armed last, 0 before the first.
    package var armedTake: UInt32 { state.pointee.armedTake.load(ordering: .acquiring) }

    /// Ends the take just before JACK frame time `frame`: every frame before it is recorded,
    /// including the part of the cycle that contains it. Stopping before the start cancels the take.
    package func requestStop(atFrame frame: UInt32) {
        state.pointee.requestedStop.store(Int64(frame), ordering: .releasing)
    }

    /// Ends the take at the server's current frame time, which it returns.
    @discardableResult
    package func requestStopNow() -> UInt32 {
        let frame = client.estimatedFrameTime
        requestStop(atFrame: frame)
        return frame
    }

    /// Pauses the take at JACK frame time `frame`: it is the first frame not recorded. A frame the
    /// callback has already passed pauses at the first frame not yet copied; the `.paused` event
    /// says where it landed. Replaces a pause asked for earlier and not yet reached.
    package func requestPause(atFrame frame: UInt32) {
        state.pointee.requestedPause.store(Int64(frame), ordering: .releasing)
    }

    /// Resumes a paused take at JACK frame time `frame` (or at the next cycle, if it has passed):
    /// that frame follows the last one recorded before the pause, with nothing between.
    package func requestResume(atFrame frame: UInt32) {
        state.pointee.requestedResume.store(Int64(frame), ordering: .releasing)
    }

    /// The events published since the last call, in order: first the process callback's (exact
    /// frames), then the notification thread's. Connections wait until they are placed on the
    /// cycle they took effect in (`ConnectionPlacement`), a few periods; `releasingHeld` lets
    /// every one go now, as it stands (the take is over). One consumer at a time.
    package func takeEvents(releasingHeld: Bool = false) -> [CaptureEvent] {
        let s = state.pointee
        let fromCallback = s.events.drainEvents(withText: false)
        let announced = s.notifications.drainEvents(withText: true)
        let events = (fromCallback + announced).compactMap { CaptureEvent(record: $0.0, text: $0.1) }
        let end = s.lastCycleEnd.load(ordering: .acquiring)
        let releaseAll = releasingHeld || end < 0 || s.serverGone.load(ordering: .acquiring)
        // Past this many frames, the callback has planned every cycle a change could have
        // switched in: the next cycle or a deferred one, `lookahead` cycles before it is planned.
        let horizon = (CycleTimeline.lookahead + 4) * max(1, s.periodFrames.load(ordering: .relaxed))
        let placed = connections.withLock { placement in
            for (record, _) in fromCallback {
                if let change = ConnectionPlacement.change(from: record) { placement.observe(change) }
            }
            for (record, source) in announced {
                if let announcement = ConnectionPlacement.announcement(from: record, source: source) {
                    placement.announce(announcement)
                }
            }
            if placement.isEmpty { return [CaptureEvent]() }
            return placement.release(lastCycleEnd: releaseAll ? nil : UInt32(truncatingIfNeeded: end), horizon: horizon)
        }
        return events + placed
    }

    /// Events lost because a ring was full (the counters still count what they stood for).
    package var droppedEventCount: Int { state.pointee.droppedEvents.load(ordering: .relaxed) }

    /// The sample rate the server changed to mid-take, if it did (the take stopped there).
    package var changedSampleRate: Int? {
        let rate = state.pointee.changedSampleRate.load(ordering: .acquiring)
        return rate == 0 ? nil : rate
    }

    /// Runs the sample-rate notification exactly as JACK does (jack_set_sample_rate_callback's
    /// handler, with this engine's state). No JACK 2 backend on a test machine can change its
    /// rate while running, so this is how tests reach the handler.
    func simulateSampleRateNotification(_ rate: Int) {
        _ = captureSampleRateCallback(jack_nframes_t(rate), UnsafeMutableRawPointer(state))
    }

    /// Whether the process callback measures levels for `meters`. Off, it costs the callback one
    /// atomic load per cycle.
    package var isMeteringEnabled: Bool {
        get { state.pointee.meteringEnabled.load(ordering: .relaxed) }
        set { state.pointee.meteringEnabled.store(newValue, ordering: .relaxed) }
    }

    /// The channels' meters; `meters.update()` takes in what the callback measured. They run
    /// whether or not a take is recording.
    package let meters: ChannelMeters

    /// The phase of the take armed last: `.waiting` until the callback has taken it up.
    package var phase: CapturePhase {
        let s = state.pointee
        let armed = s.armedTake.load(ordering: .acquiring)
        guard armed != 0 else { return .idle }
        guard s.activeTake.load(ordering: .acquiring) == armed else { return .waiting }
        return CapturePhase(rawValue: s.phase.load(ordering: .acquiring)) ?? .idle
    }

    /// Once the server has shut down, publishes the cycles the callback had read but not yet
    /// placed, so the writer gets everything received. No callback runs after it.
    package func flushAfterShutdown() {
        state.pointee.flushAfterShutdown()
    }

    /// Test hook: the next cycle's callback runs `microseconds` late, as one the scheduler held
    /// back would: it copies its cycle, then spins, then reads JACK's clock.
    func stallNextCycle(microseconds: Int) {
        state.pointee.stallMicroseconds.store(microseconds, ordering: .relaxed)
    }

    /// The JACK frame just after the last cycle the process callback finished; nil before its
    /// first.
    package var lastCycleEnd: UInt32? {
        let end = state.pointee.lastCycleEnd.load(ordering: .acquiring)
        return end < 0 ? nil : UInt32(truncatingIfNeeded: end)
    }

    /// Callbacks so far in this take that ran late (read a later frame time than their cycle's).
    package var lateCycles: Int64 { state.pointee.lateCycles.load(ordering: .relaxed) }

    package var status: CaptureStatus {
        let s = state.pointee
        let start = s.startFrame.load(ordering: .relaxed)
        let ring = s.ring
        return CaptureStatus(
            phase: phase,
            position: s.position.load(ordering: .acquiring),
            startFrame: start < 0 ? nil : UInt32(truncatingIfNeeded: start),
            overrunFrames: s.overrunFrames.load(ordering: .relaxed),
            overrunCycles: s.overrunCycles.load(ordering: .relaxed),
            skippedFrames: s.skippedFrames.load(ordering: .relaxed),
            xruns: s.xruns.load(ordering: .relaxed),
            bufferFill: Double(ring.readableByteCount()) / Double(ring.capacity),
            serverGone: s.serverGone.load(ordering: .acquiring))
    }
}
