import Atomics
import CJack

/// Where the engine is in a take, as the process callback last published it.
public enum CapturePhase: Int, Sendable {
    /// Not armed: the process callback returns at once.
    case idle
    /// Armed, waiting for the start frame.
    case waiting
    /// Copying every cycle's frames to the ring.
    case recording
    /// The stop frame has passed (or the take was cancelled before it started): every frame of
    /// the take is on the ring, and `position` is the take's final length.
    case finished
    /// The start frame had already passed when the first armed cycle ran.
    case missedStart
    /// Started, and paused: cycles pass without being recorded until a resume.
    case paused
}

/// What the process callback shares with other threads. It lives at one address for the life of
/// the engine, so the C callbacks reach it through a plain pointer, with no reference counting.
/// Every field is fixed before activation or is an atomic; the callback's own working state is
/// behind `own`, which no other thread reads (see `ProcessCallbackState`).
struct CaptureProcessState {
    static var noRequest: Int64 { @_noAllocation @_noLocks get { -1 } }
    /// The longest full port name JACK 2 gives (REAL_JACK_PORT_NAME_SIZE: client and port).
    static let longestPortName = 320

    // Fixed before activation.
    let client: OpaquePointer
    let ports: UnsafeMutablePointer<OpaquePointer?>
    let channelCount: Int
    let ring: RingBuffer
    /// The sample rate the engine runs at; a notification of another stops the take.
    let sampleRate: Int
    /// The callback's own state: touched only by the thread that holds `callbackOwnership`.
    let own: UnsafeMutablePointer<ProcessCallbackState>
    /// Who may touch `own`: the process callback while it runs (`callbackRunning`), or, once the
    /// server is gone and no callback will follow, the thread that flushes the last cycles
    /// (`flushedAfterShutdown`). Claimed by compare-and-exchange, so the callback never waits.
    let callbackOwnership: UnsafeAtomic<Int>
    static var callbackIdle: Int { @_noAllocation @_noLocks get { 0 } }
    static var callbackRunning: Int { @_noAllocation @_noLocks get { 1 } }
    static var flushedAfterShutdown: Int { @_noAllocation @_noLocks get { 2 } }

    // Written by other threads, read by the callback.
    /// The take armed last (numbered from 1); a new number makes the callback start a new take.
    let armedTake: UInt32Atomic
    let requestedStart: UnsafeAtomic<Int64>
    /// A start named as a moment on JACK's clock, in nanoseconds (a wall-clock start), or
    /// `noRequest`: the callback decides its frame in the cycle it falls in (`ClockStart`).
    let requestedClockStart: UnsafeAtomic<Int64>
    let requestedLength: UnsafeAtomic<Int64>
    /// Frames the armed take runs behind JACK's clock, aligned to its sources' capture latency
    /// (`LatencyAlignment.shift`; 0 without latency alignment), and its longest channel delay.
    let requestedAlignment: UnsafeAtomic<Int>
    let requestedLongestDelay: UnsafeAtomic<Int>
    /// The armed take's delay lines (a `DelayLineSet` pointer's bits, 0 for none), until the
    /// callback takes them at the take's first cycle; and those a later take replaced, for the
    /// arming thread to free. Each is exchanged, never read and written apart, so memory is freed
    /// only once the callback has let go of it.
    let pendingDelayLines: UnsafeAtomic<Int>
    let retiredDelayLines: UnsafeAtomic<Int>
    /// The callback watches the JACK transport every cycle, armed or not, so it
    /// knows the frame each roll began on even when a take is armed after it.
    let watchesTransport: UnsafeAtomic<Bool>
    /// The armed take starts on the frame the transport starts rolling and ends on the frame it
    /// stops (`CaptureStart.onTransportRoll`).
    let requestedTransportFollow: UnsafeAtomic<Bool>
    /// Frames of pre-roll the armed take keeps while it waits for its trigger or the transport,
    /// at most the engine's `maximumPreRollFrames`.
    let requestedPreRoll: UnsafeAtomic<Int>
    /// The armed take starts on the first sample of any channel at or above this amplitude (a
    /// Float's bits; 0: no level trigger), and, with `requestedTriggerStop` above 0, ends after
    /// that many frames below it.
    let requestedTriggerLevel: UnsafeAtomic<Int>
    let requestedTriggerStop: UnsafeAtomic<Int>
    /// For a take armed `.onCue`: `cueAwaited` until the cue, then the JACK frame it names
    /// (`noRequest` for other takes).
    let requestedCue: UnsafeAtomic<Int64>
    static var cueAwaited: Int64 { @_noAllocation @_noLocks get { -2 } }
    /// The longest pre-roll the callback has room to hold (`PreRollQueue`).
    let maximumPreRollFrames: Int
    /// The server is a NetJACK2 slave: the callback reports link dropouts (`LinkDropout`) and
    /// copies the next period's packets may have met (`NetSlaveCopyWindow`).
    let onNetJackSlave: Bool
    /// The port the master's timecode comes in on (`--master-clock`, `MasterTimecode`), or nil:
    /// the callback decodes it every cycle and follows the take on the master's clock.
    let timecodePort: OpaquePointer?
    /// The offset the armed take starts at on the master's clock (master frame time less this
    /// server's, as a UInt32), or `noRequest`: the first placed cycle's.
    let requestedMasterOffset: UnsafeAtomic<Int64>
    let requestedStop: UnsafeAtomic<Int64>
    /// A pause (while recording) or resume (while paused) at this JACK frame time, or `noRequest`.
    /// The callback clears each once it has acted on it.
    let requestedPause: UnsafeAtomic<Int64>
    let requestedResume: UnsafeAtomic<Int64>
    /// A clock-aligned split's boundary as a moment on JACK's clock, in nanoseconds; it is for
    /// the boundary `requestedSplitBoundary` names. The callback decides its frame in the cycle it
    /// falls in (`ClockSplit`).
    let requestedSplitMoment: UnsafeAtomic<Int64>
    /// The boundary `requestedSplitMoment` is for: the take's number in the high 32 bits, the
    /// boundary's (1, 2, ...) in the low ones (`SplitTag`); written after the moment (releasing).
    let requestedSplitBoundary: UnsafeAtomic<Int64>
    /// Whether the callback measures levels; when off, metering costs one atomic load a cycle.
    let meteringEnabled: UnsafeAtomic<Bool>
    /// Test hook: the next cycle's callback spins this many microseconds before reading the
    /// clock, as a callback the scheduler ran late would (0: none).
    let stallMicroseconds: UnsafeAtomic<Int>

    // Written by the callback, read by other threads.
    /// The JACK frame just after the last cycle the callback finished, or -1 before its first:
    /// `Take.start` waits for the cycle at which the inputs carry their sources' audio.
    let lastCycleEnd: UnsafeAtomic<Int64>
    // They describe `activeTake`.
    /// The take the counters below describe (0 before the first).
    let activeTake: UInt32Atomic
    let phase: UnsafeAtomic<Int>
    /// Frames of the take so far, counting frames lost on overrun or skipped by an xrun.
    let position: UnsafeAtomic<Int64>
    /// JACK frame time of the take's first frame, or -1 before it starts.
    let startFrame: UnsafeAtomic<Int64>
    let overrunFrames: UnsafeAtomic<Int64>
    let overrunCycles: UnsafeAtomic<Int64>
    /// Frames of the take that JACK's clock jumped over (an xrun): they never reached any client.
    let skippedFrames: UnsafeAtomic<Int64>
    /// The last split boundary the planner has placed (or found before the take's start), tagged
    /// like `requestedSplitBoundary`: the next may be asked for once this names the last one.
    let placedSplitBoundary: UnsafeAtomic<Int64>
    /// Cycles the callback ran while a take was armed.
    let cycles: UnsafeAtomic<Int64>
    /// Callbacks that read a frame time later than their cycle's (they ran late).
    let lateCycles: UnsafeAtomic<Int64>
    /// With a timecode port: the master's frame time less this server's, as the last two cycles
    /// read it alike (a UInt32), or `noRequest` when they did not (or it did not decode).
    let masterOffset: UnsafeAtomic<Int64>
    let meters: MeterAccumulators

    // Written by JACK's notification thread.
    /// Xruns the server reported (jack_set_xrun_callback) since the engine was activated.
    let xruns: UnsafeAtomic<Int64>
    /// Set when the server shut the client down (jack_on_info_shutdown).
    let serverGone: UnsafeAtomic<Bool>
    /// Set when the server's sample rate changed: the rate it changed to.
    let changedSampleRate: UnsafeAtomic<Int>
    /// The server's period, as the buffer-size callback last heard it.
    let periodFrames: UnsafeAtomic<Int>

    // Events for the reporting thread: the callback writes `events`, JACK's notification thread
    // writes `notifications`.
    let events: RingBuffer
    let notifications: RingBuffer
    let droppedEvents: UnsafeAtomic<Int>

    init(client: OpaquePointer, ports: [OpaquePointer], ring: RingBuffer, sampleRate: Int, periodFrames: Int,
         maximumPreRollFrames: Int = 0, onNetJackSlave: Bool = false, timecodePort: OpaquePointer? = nil) {
        self.client = client
        self.ports = .allocate(capacity: ports.count)
        self.ports.initialize(from: ports.map { Optional($0) }, count: ports.count)
        channelCount = ports.count
        self.ring = ring
        self.sampleRate = sampleRate
        own = .allocate(capacity: 1)
        own.initialize(to: ProcessCallbackState(preRollCapacity: PreRollQueue.capacity(forPreRollFrames: maximumPreRollFrames),
                                                channelCount: ports.count))
        self.maximumPreRollFrames = maximumPreRollFrames
        self.onNetJackSlave = onNetJackSlave
        self.timecodePort = timecodePort
        requestedMasterOffset = .create(Self.noRequest)
        masterOffset = .create(Self.noRequest)
        callbackOwnership = .create(Self.callbackIdle)
        armedTake = .create(0)
        requestedStart = .create(Self.noRequest)
        requestedClockStart = .create(Self.noRequest)
        lastCycleEnd = .create(Self.noRequest)
        requestedLength = .create(Self.noRequest)
        requestedAlignment = .create(0)
        requestedLongestDelay = .create(0)
        pendingDelayLines = .create(0)
        retiredDelayLines = .create(0)
        watchesTransport = .create(false)
        requestedTransportFollow = .create(false)
        requestedPreRoll = .create(0)
        requestedTriggerLevel = .create(0)
        requestedTriggerStop = .create(0)
        requestedCue = .create(Self.noRequest)
        requestedStop = .create(Self.noRequest)
        requestedPause = .create(Self.noRequest)
        requestedResume = .create(Self.noRequest)
        requestedSplitMoment = .create(Self.noRequest)
        requestedSplitBoundary = .create(0)
        placedSplitBoundary = .create(0)
        meteringEnabled = .create(false)
        stallMicroseconds = .create(0)
        activeTake = .create(0)
        phase = .create(CapturePhase.idle.rawValue)
        position = .create(0)
        startFrame = .create(-1)
        overrunFrames = .create(0)
        overrunCycles = .create(0)
        skippedFrames = .create(0)
        cycles = .create(0)
        lateCycles = .create(0)
        meters = MeterAccumulators(channelCount: ports.count)
        xruns = .create(0)
        serverGone = .create(false)
        changedSampleRate = .create(0)
        self.periodFrames = .create(periodFrames)
        // Room for every channel's announcements of a connection swapped (two, each with the
        // longest port name JACK allows), and its two switches: a source client with hundreds of
        // ports quitting at once fills them within one round of the event pump (at 64 KiB, 55 of
        // 1024 disconnections went unsaid).
        events = RingBuffer(capacity: max(64 * 1_024, ports.count * 4 * CaptureEventRecord.byteCount))
        notifications = RingBuffer(capacity: max(64 * 1_024, ports.count * 2 * (CaptureEventRecord.byteCount + Self.longestPortName)))
        droppedEvents = .create(0)
    }

    func deallocate() {
        for bits in [pendingDelayLines.load(ordering: .acquiring), retiredDelayLines.load(ordering: .acquiring)] {
            if let set = UnsafeMutablePointer<DelayLineSet>(bitPattern: bits) { DelayLineSet.free(set) }
        }
        if let set = own.pointee.delayLines { DelayLineSet.free(set) }
        ports.deallocate()
        own.pointee.deallocate()
        own.deinitialize(count: 1)
        own.deallocate()
        ring.deallocate()
        meters.deallocate()
        events.deallocate()
        notifications.deallocate()
        armedTake.destroy()
        activeTake.destroy()
        for atomic in [callbackOwnership, phase, stallMicroseconds, changedSampleRate, periodFrames, droppedEvents,
                       requestedAlignment, requestedLongestDelay, pendingDelayLines, retiredDelayLines,
                       requestedPreRoll, requestedTriggerLevel, requestedTriggerStop] {
            atomic.destroy()
        }
        meteringEnabled.destroy()
        serverGone.destroy()
        watchesTransport.destroy()
        requestedTransportFollow.destroy()
        for atomic in [requestedSplitMoment, requestedSplitBoundary, placedSplitBoundary] { atomic.destroy() }
        for atomic in [requestedStart, requestedClockStart, lastCycleEnd, requestedCue, requestedLength, requestedStop, requestedPause, requestedResume, position,
                       startFrame, overrunFrames, overrunCycles, skippedFrames, cycles, lateCycles, xruns,
                       requestedMasterOffset, masterOffset] {
            atomic.destroy()
        }
    }
}

typealias UInt32Atomic = UnsafeAtomic<UInt32>

/// The process callback's own working state: the take it is running, the cycles read and not yet
/// planned, and the planner. Only the thread holding `CaptureProcessState.callbackOwnership`
/// touches it, so it needs no atomics.
struct ProcessCallbackState {
    var take: UInt32 = 0
    var timeline = CycleTimeline()
    var planner = CyclePlanner()
    /// The take's requests as the callback last loaded them.
    var requests = TakeRequests()
    /// A clock start's frame, once a cycle has decided it (-1 before).
    var clockStartFrame: Int64 = -1
    /// Whether a cycle of this take has asked about its clock start yet.
    var clockStartAsked = false
    /// The take's latency alignment (`LatencyAlignment`): frames behind JACK's clock, the longest
    /// channel delay, the delay lines, and an immediate start's frame once the first cycle set it.
    var alignment = 0
    var longestDelay = 0
    var delayLines: UnsafeMutablePointer<DelayLineSet>?
    var alignedImmediateStart: Int64 = -1
    /// The transport as the callback last saw it (`watchesTransport`): rolling or not, the frame
    /// the current roll began on (known only when the callback saw it begin), the transport's
    /// frame and packed bar-beat-tick then (`TransportBBT.packed`, -1 for none), and the frame it
    /// last stopped on. `transportPosition` is where `jack_transport_query` writes.
    var transportWatched = false
    var transportRolling = false
    var rollStartSeen = false
    var rollFrame: UInt32 = 0
    var rollTransportFrame: UInt32 = 0
    var rollBBT: Int64 = -1
    var stopFrame: UInt32 = 0
    let transportPosition: UnsafeMutablePointer<jack_position_t>
    /// This take follows the transport: the frames it started and stopped on (-1 before).
    var followsTransport = false
    var transportStart: Int64 = -1
    var transportStop: Int64 = -1
    /// Cycles placed and held while the take waits for its trigger (`PreRollQueue`), the frames
    /// of pre-roll it keeps, and whether its start is still undecided (a level trigger or the
    /// transport not yet seen).
    var preRoll: PreRollQueue
    var preRollFrames = 0
    var awaitingTrigger = false
    /// A level trigger: the amplitude (0: none), the frames below it that end the take (0:
    /// never), the frame it fired on and the take's start then (-1 before), the last frame at or
    /// above it, and the take's stop once decided.
    var triggerLevel: Float = 0
    var triggerStopFrames = 0
    var triggerFrame: Int64 = -1
    var triggerStart: Int64 = -1
    var lastLoudFrame: UInt32 = 0
    var triggerStop: Int64 = -1
    /// A take armed `.onCue`, and its start once cued (-1 before).
    var followsCue = false
    var cueStart: Int64 = -1
    /// The split being decided or placed (`SplitState`).
    var split = SplitState()
    /// On a NetJACK2 slave: the take's cycles as placed, watched for link dropouts.
    var linkDropouts = LinkDropoutWatch()
    /// On a NetJACK2 slave: when the cycles began, for copies the next packets may have met.
    var copyWindow = NetSlaveCopyWindow()
    /// With a timecode port: the master's frame time of this cycle's first frame as decoded (-1:
    /// it did not decode), the offset the cycle before read (-1: none), and the take's frames on
    /// the master's clock (`MasterClockWatch`).
    var cycleMasterFrame: Int64 = -1
    var lastMasterOffset: Int64 = -1
    var masterClock = MasterClockWatch()
    /// Scratch header for the block being committed, and record for the event being published:
    /// memory of their own, so the ring copies from a stable address.
    let header: UnsafeMutablePointer<CaptureBlockHeader>
    let eventRecord: UnsafeMutablePointer<CaptureEventRecord>
    /// Each channel's port buffer in the last cycle copied (nil: not known since the take began or
    /// a cycle was dropped). JACK hands a port its own zeroed buffer when unconnected and its
    /// source's with one source, so a new buffer is a connection or disconnection taking effect
    /// (`ConnectionPlacement`).
    let inputBuffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// How many sources fed each channel's buffer in that cycle (jack_port_connected). With two
    /// or more JACK mixes them into the port's own buffer, whose address stays the same when a
    /// third is added or one of three taken away: the count tells that change's cycle.
    let inputSources: UnsafeMutablePointer<Int32>
    /// The `cycleSerial`s of each channel's changes, `changeSlots` a channel, a change in slot
    /// serial % `changeSlots` (-1: none): a cycle is planned `CycleTimeline.lookahead` cycles after
    /// it is read, so a later change of the same channel does not hide an earlier one's. (A cycle
    /// held longer, in a pre-roll, may find its slot taken: its change is then said near its frame.)
    let inputChangeSerials: UnsafeMutablePointer<Int64>
    static var changeSlots: Int { @_noAllocation @_noLocks get { 8 } }
    let inputChannelCount: Int
    var inputBuffersKnown = false
    /// Counts the cycles the callback has run: tells a cycle's input changes from later ones'.
    var cycleSerial: Int64 = 0
    /// The frame count and reading of the last cycle the take's timeline read (0 frames: none yet
    /// this take): a cycle of another count is the first after a period change
    /// (`PendingCycle.renumbering`).
    var lastCycleFrames = 0
    var lastCycleReading: UInt32 = 0

    init(preRollCapacity: Int = 1, channelCount: Int = 0) {
        inputChannelCount = channelCount
        inputBuffers = .allocate(capacity: max(1, channelCount))
        inputBuffers.initialize(repeating: nil, count: max(1, channelCount))
        inputSources = .allocate(capacity: max(1, channelCount))
        inputSources.initialize(repeating: 0, count: max(1, channelCount))
        inputChangeSerials = .allocate(capacity: max(1, channelCount) * Self.changeSlots)
        inputChangeSerials.initialize(repeating: -1, count: max(1, channelCount) * Self.changeSlots)
        preRoll = PreRollQueue(capacity: preRollCapacity)
        header = .allocate(capacity: 1)
        header.initialize(to: CaptureBlockHeader(take: 0, frameCount: 0, frameTime: 0))
        eventRecord = .allocate(capacity: 1)
        eventRecord.initialize(to: CaptureEventRecord(kind: 0, frameTime: 0, position: 0, value: 0, extra: 0))
        transportPosition = .allocate(capacity: 1)
        transportPosition.initialize(to: jack_position_t())
    }

    /// Forgets every channel's buffer: the next cycle copied learns them without a change.
    /// Notes that `channel`'s port buffer changed in the cycle numbered `serial`.
    @_noAllocation @_noLocks
    func noteInputChange(channel: Int, serial: Int64) {
        inputChangeSerials[channel * Self.changeSlots + Int(serial % Int64(Self.changeSlots))] = serial
    }

    /// Whether `channel`'s port buffer changed in the cycle numbered `serial`, as far as its slots
    /// still tell.
    @_noAllocation @_noLocks
    func inputChanged(channel: Int, serial: Int64) -> Bool {
        inputChangeSerials[channel * Self.changeSlots + Int(serial % Int64(Self.changeSlots))] == serial
    }

    @_noAllocation @_noLocks
    func forgetInputBuffers() {
        var channel = 0
        while channel < inputChannelCount {
            inputBuffers[channel] = nil
            channel += 1
        }
    }

    func deallocate() {
        inputBuffers.deallocate()
        inputSources.deallocate()
        inputChangeSerials.deallocate()
        header.deallocate()
        eventRecord.deallocate()
        transportPosition.deallocate()
        preRoll.deallocate()
    }
}
