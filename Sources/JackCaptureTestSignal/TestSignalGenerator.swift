import Atomics
import CJack
import JackCapture

/// A JACK client whose output ports play a test signal on `out_1` ... `out_N`: by default the
/// frame-time code (channel `c` carrying `TestSignal.sample(frameTime:channel:)` at every frame
/// time), or a sine or silence for the meters. Its process callback is real-time safe like jcap's.
public final class TestSignalGenerator: @unchecked Sendable {
    // @unchecked: `state` is raw memory shared with the JACK process callback (only atomics cross).
    package let client: JackClient
    public let portNames: [String]
    private let state: UnsafeMutablePointer<GeneratorState>

    struct GeneratorState {
        let client: OpaquePointer
        let ports: UnsafeMutablePointer<OpaquePointer?>
        let channelCount: Int
        let table: TestSignal.Table
        let serverGone: UnsafeAtomic<Bool>
        /// Each port's declared capture latency in frames (0: none declared).
        let captureLatencies: UnsafeMutablePointer<Int>
        /// Transport requests on chosen frames: in the cycle that holds `frames[i]`, the callback
        /// asks the transport to roll (`rolls[i]`) or stop; `nextRequest` is the next to make.
        let requestFrames: UnsafeMutablePointer<UInt32>
        let requestRolls: UnsafeMutablePointer<Bool>
        let requestCount: Int
        let nextRequest: UnsafeAtomic<Int>
        /// What the transport did, as seen each cycle: the frame each roll and stop took effect
        /// on (`changeFrames`, `changeRolls`), `changeCount` of them so far (64 at most).
        let changeFrames: UnsafeMutablePointer<UInt32>
        let changeRolls: UnsafeMutablePointer<Bool>
        let changeCount: UnsafeAtomic<Int>
        let transportPosition: UnsafeMutablePointer<jack_position_t>
        let wasRolling: UnsafeAtomic<Bool>
        /// With `loudCount` above 0, the signal plays at full level only inside the windows
        /// [loudFrom[i], loudTo[i]) and 2^-10 of it (exactly, about -72 dBFS at most) elsewhere.
        let loudFrom: UnsafeMutablePointer<UInt32>
        let loudTo: UnsafeMutablePointer<UInt32>
        let loudCount: Int
        /// The clock as this client saw it: each cycle's start should be the last one's plus its
        /// frames. Where it is not, the signal itself skipped (or repeated) frames: noted in
        /// `jumpExpected`/`jumpActual` (`jumpCount` so far, `jumpCapacity` kept), so a test can
        /// tell a disturbed signal from a recorder's fault.
        let lastCycleEnd: UnsafeAtomic<UInt32>
        let hasLastCycle: UnsafeAtomic<Bool>
        let jumpExpected: UnsafeMutablePointer<UInt32>
        let jumpActual: UnsafeMutablePointer<UInt32>
        let jumpCount: UnsafeAtomic<Int>
        static var changeCapacity: Int { @_noAllocation @_noLocks get { 64 } }
        static var jumpCapacity: Int { @_noAllocation @_noLocks get { 1_024 } }
    }

    /// A request the callback makes of the JACK transport on a chosen frame.
    public struct TransportRequest: Equatable, Sendable {
        public var frame: UInt32
        public var rolls: Bool
        public init(frame: UInt32, rolls: Bool) {
            self.frame = frame
            self.rolls = rolls
        }
    }

    /// - Parameter captureLatencies: a capture latency in frames to declare for each port, as a
    ///   source behind a converter would (cycled over the ports; empty: none). The signal itself is
    ///   not delayed: a recorder aligned to the latency finds the port's samples shifted by it.
    /// - Parameter transportRequests: transport rolls and stops to ask for, each in the cycle that
    ///   holds its frame (JACK makes it take effect from the next cycle on); in frame order.
    /// - Parameter loudWindows: JACK frame windows `[from, to)` outside which the signal plays at
    ///   2^-10 of its level (exactly, for checking), for a sound trigger; empty: full level always.
    package init(client: JackClient, channels: Int, captureLatencies: [Int] = [], transportRequests: [TransportRequest] = [],
                loudWindows: [(from: UInt32, to: UInt32)] = [],
                signal: (Int) -> TestSignal.Table = { _ in .code() }) throws(JackError) {
        self.client = client
        // Built before any port exists: a port appears to others only once it can be connected.
        let table = signal(client.sampleRate)
        var ports: [OpaquePointer] = []
        for index in 1...max(1, channels) {
            ports.append(try client.registerAudioOutput(named: "out_\(index)"))
        }
        portNames = ports.map { client.fullName(of: $0) }
        let list = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: ports.count)
        list.initialize(from: ports.map { Optional($0) }, count: ports.count)
        let latencies = UnsafeMutablePointer<Int>.allocate(capacity: ports.count)
        latencies.initialize(from: ports.indices.map { captureLatencies.isEmpty ? 0 : captureLatencies[$0 % captureLatencies.count] },
                             count: ports.count)
        state = .allocate(capacity: 1)
        let requestFrames = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, transportRequests.count))
        requestFrames.initialize(from: transportRequests.map(\.frame), count: transportRequests.count)
        let requestRolls = UnsafeMutablePointer<Bool>.allocate(capacity: max(1, transportRequests.count))
        requestRolls.initialize(from: transportRequests.map(\.rolls), count: transportRequests.count)
        let changeFrames = UnsafeMutablePointer<UInt32>.allocate(capacity: GeneratorState.changeCapacity)
        changeFrames.initialize(repeating: 0, count: GeneratorState.changeCapacity)
        let changeRolls = UnsafeMutablePointer<Bool>.allocate(capacity: GeneratorState.changeCapacity)
        changeRolls.initialize(repeating: false, count: GeneratorState.changeCapacity)
        let loudFrom = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, loudWindows.count))
        loudFrom.initialize(from: loudWindows.map(\.from), count: loudWindows.count)
        let loudTo = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, loudWindows.count))
        loudTo.initialize(from: loudWindows.map(\.to), count: loudWindows.count)
        let jumpExpected = UnsafeMutablePointer<UInt32>.allocate(capacity: GeneratorState.jumpCapacity)
        jumpExpected.initialize(repeating: 0, count: GeneratorState.jumpCapacity)
        let jumpActual = UnsafeMutablePointer<UInt32>.allocate(capacity: GeneratorState.jumpCapacity)
        jumpActual.initialize(repeating: 0, count: GeneratorState.jumpCapacity)
        let position = UnsafeMutablePointer<jack_position_t>.allocate(capacity: 1)
        position.initialize(to: jack_position_t())
        state.initialize(to: GeneratorState(client: client.handle, ports: list, channelCount: ports.count,
                                            table: table, serverGone: .create(false), captureLatencies: latencies,
                                            requestFrames: requestFrames, requestRolls: requestRolls,
                                            requestCount: transportRequests.count, nextRequest: .create(0),
                                            changeFrames: changeFrames, changeRolls: changeRolls, changeCount: .create(0),
                                            transportPosition: position, wasRolling: .create(false),
                                            loudFrom: loudFrom, loudTo: loudTo, loudCount: loudWindows.count,
                                            lastCycleEnd: .create(0), hasLastCycle: .create(false), jumpExpected: jumpExpected,
                                            jumpActual: jumpActual, jumpCount: .create(0)))
        if !captureLatencies.isEmpty {
            client.setLatencyCallback({ mode, argument in
                guard mode == JackCaptureLatency, let argument else { return }
                argument.assumingMemoryBound(to: GeneratorState.self).pointee.declareCaptureLatencies()
            }, argument: UnsafeMutableRawPointer(state))
            state.pointee.declareCaptureLatencies()
        }
        client.setProcessCallback(testSignalProcessCallback, argument: UnsafeMutableRawPointer(state))
        client.setShutdownCallback({ _, _, argument in
            argument?.assumingMemoryBound(to: GeneratorState.self).pointee.serverGone.store(true, ordering: .releasing)
        }, argument: UnsafeMutableRawPointer(state))
        try client.activate()
        if !captureLatencies.isEmpty { client.recomputeTotalLatencies() }
    }

    /// The transport's rolls (`true`) and stops, with the frame each took effect on, as the
    /// process callback saw them (only when it was given transport requests).
    public var transportChanges: [(frame: UInt32, rolls: Bool)] {
        let count = min(state.pointee.changeCount.load(ordering: .acquiring), GeneratorState.changeCapacity)
        return (0..<count).map { (state.pointee.changeFrames[$0], state.pointee.changeRolls[$0]) }
    }

    /// Becomes the transport's timebase master (jack_set_timebase_callback): bar, beat and tick
    /// at 120 beats a minute in 4/4, 1920 ticks a beat, counted from transport frame 0.
    public func becomeTimebaseMaster() -> Bool {
        jack_set_timebase_callback(client.handle, 0, { _, _, position, _, _ in
            guard let position else { return }
            TestSignalGenerator.fillBBT(position)
        }, nil) == 0
    }

    /// Bar, beat and tick for the position's frame, at 120 beats a minute in 4/4.
    static func fillBBT(_ position: UnsafeMutablePointer<jack_position_t>) {
        let rate = Int64(max(1, position.pointee.frame_rate))
        let ticksPerBeat: Int64 = 1_920
        // Ticks since frame 0: 2 beats a second.
        let ticks = Int64(position.pointee.frame) * 2 * ticksPerBeat / rate
        let beats = ticks / ticksPerBeat
        position.pointee.valid = jack_position_bits_t(rawValue: position.pointee.valid.rawValue | JackPositionBBT.rawValue)
        position.pointee.bar = Int32(beats / 4 + 1)
        position.pointee.beat = Int32(beats % 4 + 1)
        position.pointee.tick = Int32(ticks % ticksPerBeat)
        position.pointee.bar_start_tick = Double((beats / 4) * 4 * ticksPerBeat)
        position.pointee.beats_per_bar = 4
        position.pointee.beat_type = 4
        position.pointee.ticks_per_beat = Double(ticksPerBeat)
        position.pointee.beats_per_minute = 120
    }

    /// Where this client saw JACK's clock jump: the frame a cycle should have started on after
    /// the last one, and the frame it did start on (the signal skipped the frames between). The
    /// signal is right everywhere else; a recording's fault next to one of these may be the
    /// signal's, not the recorder's.
    public var clockJumps: [(expected: UInt32, actual: UInt32)] {
        let count = min(state.pointee.jumpCount.load(ordering: .acquiring), GeneratorState.jumpCapacity)
        return (0..<count).map { (state.pointee.jumpExpected[$0], state.pointee.jumpActual[$0]) }
    }

    /// True once the server has shut the client down: nothing will play any more.
    public var serverGone: Bool { state.pointee.serverGone.load(ordering: .acquiring) }

    deinit {
        client.deactivate()
        state.pointee.ports.deallocate()
        state.pointee.table.deallocate()
        state.pointee.serverGone.destroy()
        state.pointee.captureLatencies.deallocate()
        state.pointee.requestFrames.deallocate()
        state.pointee.requestRolls.deallocate()
        state.pointee.changeFrames.deallocate()
        state.pointee.changeRolls.deallocate()
        state.pointee.transportPosition.deallocate()
        state.pointee.nextRequest.destroy()
        state.pointee.changeCount.destroy()
        state.pointee.wasRolling.destroy()
        state.pointee.loudFrom.deallocate()
        state.pointee.loudTo.deallocate()
        state.pointee.lastCycleEnd.destroy()
        state.pointee.hasLastCycle.destroy()
        state.pointee.jumpExpected.deallocate()
        state.pointee.jumpActual.deallocate()
        state.pointee.jumpCount.destroy()
        state.deallocate()
    }
}

extension TestSignalGenerator.GeneratorState {
    func declareCaptureLatencies() {
        for channel in 0..<channelCount {
            guard let port = ports[channel] else { continue }
            JackClient.setCaptureLatency(JackLatencyRange(minimum: captureLatencies[channel], maximum: captureLatencies[channel]),
                                         of: port)
        }
    }
}

@_noAllocation @_noLocks
func testSignalProcessCallback(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: TestSignalGenerator.GeneratorState.self)
    let start = jack_last_frame_time(state.pointee.client)
    noteClockJump(state, cycleStart: start, frames: frameCount)
    if state.pointee.requestCount > 0 { driveTransport(state, cycleStart: start, frames: Int(frameCount)) }
    for channel in 0..<state.pointee.channelCount {
        if let port = state.pointee.ports[channel], let buffer = jack_port_get_buffer(port, frameCount) {
            let samples = buffer.assumingMemoryBound(to: Float.self)
            state.pointee.table.render(into: samples, frames: Int(frameCount), start: start, channel: channel)
            if state.pointee.loudCount > 0 { quietOutsideWindows(state, samples, frames: Int(frameCount), start: start) }
        }
    }
    return 0
}

/// Notes a cycle that does not start where the last one ended (the signal jumps there too).
@_noAllocation @_noLocks
func noteClockJump(_ state: UnsafeMutablePointer<TestSignalGenerator.GeneratorState>, cycleStart: UInt32, frames: jack_nframes_t) {
    let expected = state.pointee.lastCycleEnd.load(ordering: .relaxed)
    if state.pointee.hasLastCycle.load(ordering: .relaxed) && expected != cycleStart {
        let count = state.pointee.jumpCount.load(ordering: .relaxed)
        if count < TestSignalGenerator.GeneratorState.jumpCapacity {
            state.pointee.jumpExpected[count] = expected
            state.pointee.jumpActual[count] = cycleStart
        }
        state.pointee.jumpCount.store(count + 1, ordering: .releasing)
    }
    state.pointee.lastCycleEnd.store(cycleStart &+ frames, ordering: .relaxed)
    state.pointee.hasLastCycle.store(true, ordering: .relaxed)
}

/// Notes what the transport did this cycle, then makes the transport requests whose frame lies in
/// this cycle (JACK rolls or stops it from the next cycle on).
@_noAllocation @_noLocks
func driveTransport(_ state: UnsafeMutablePointer<TestSignalGenerator.GeneratorState>, cycleStart: UInt32, frames: Int) {
    let rolling = jack_transport_query(state.pointee.client, state.pointee.transportPosition).rawValue
        == JackTransportRolling.rawValue
    if rolling != state.pointee.wasRolling.load(ordering: .relaxed) {
        state.pointee.wasRolling.store(rolling, ordering: .relaxed)
        let count = state.pointee.changeCount.load(ordering: .relaxed)
        if count < TestSignalGenerator.GeneratorState.changeCapacity {
            state.pointee.changeFrames[count] = cycleStart
            state.pointee.changeRolls[count] = rolling
            state.pointee.changeCount.store(count + 1, ordering: .releasing)
        }
    }
    var next = state.pointee.nextRequest.load(ordering: .relaxed)
    while next < state.pointee.requestCount
            && FrameTime.distance(from: cycleStart, to: state.pointee.requestFrames[next]) < frames {
        if state.pointee.requestRolls[next] {
            jack_transport_start(state.pointee.client)
        } else {
            jack_transport_stop(state.pointee.client)
        }
        next += 1
    }
    state.pointee.nextRequest.store(next, ordering: .relaxed)
}

/// Scales the samples outside every loud window by 2^-10.
@_noAllocation @_noLocks
func quietOutsideWindows(_ state: UnsafeMutablePointer<TestSignalGenerator.GeneratorState>, _ samples: UnsafeMutablePointer<Float>,
                         frames: Int, start: UInt32) {
    var index = 0
    while index < frames {
        let frame = FrameTime.advance(start, by: index)
        var loud = false
        var window = 0
        while window < state.pointee.loudCount {
            if FrameTime.distance(from: state.pointee.loudFrom[window], to: frame) >= 0
                && FrameTime.distance(from: frame, to: state.pointee.loudTo[window]) > 0 { loud = true }
            window += 1
        }
        if !loud { samples[index] *= 1.0 / 1_024 }
        index += 1
    }
}
