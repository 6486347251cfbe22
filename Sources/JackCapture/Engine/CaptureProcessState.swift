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

/// Everything the process callback touches. It lives at one address for the life of the engine,
/// so the C callback reaches it through a plain pointer, with no reference counting: the fields
/// other threads read or write are atomics, the rest are the callback's own.
struct CaptureProcessState {
    static var immediateStart: Int64 { @_noAllocation @_noLocks get { -1 } }
    static var noStop: Int64 { @_noAllocation @_noLocks get { -1 } }
    static var unlimitedLength: Int64 { @_noAllocation @_noLocks get { -1 } }
    static var noRequest: Int64 { @_noAllocation @_noLocks get { -1 } }

    // Fixed before activation.
    let client: OpaquePointer
    let ports: UnsafeMutablePointer<OpaquePointer?>
    let channelCount: Int
    let ring: RingBuffer
    let header: UnsafeMutablePointer<CaptureBlockHeader>
    /// Silence to copy for a port whose buffer JACK cannot give (it always can for a registered
    /// port; the fallback keeps a take aligned rather than trapping on the real-time thread).
    let zeros: UnsafeMutableRawPointer
    static var zerosByteCount: Int {
        @_noAllocation @_noLocks get { 16_384 }
    }

    // Written by other threads, read by the callback.
    let phase: UnsafeAtomic<Int>
    let requestedStart: UnsafeAtomic<Int64>
    let requestedLength: UnsafeAtomic<Int64>
    let requestedStop: UnsafeAtomic<Int64>
    /// A pause (while recording) or resume (while paused) at this JACK frame time, or `noRequest`.
    /// The callback clears each once it has acted on it.
    let requestedPause: UnsafeAtomic<Int64>
    let requestedResume: UnsafeAtomic<Int64>

    // Written by the callback, read by other threads.
    /// Frames of the take so far, counting frames lost on overrun or skipped by an xrun.
    let position: UnsafeAtomic<Int64>
    /// JACK frame time of the take's first frame, or -1 before it starts.
    let startFrame: UnsafeAtomic<Int64>
    let overrunFrames: UnsafeAtomic<Int64>
    let overrunCycles: UnsafeAtomic<Int64>
    /// Frames of the take that JACK's clock jumped over (an xrun): they never reached any client.
    let skippedFrames: UnsafeAtomic<Int64>
    let cycles: UnsafeAtomic<Int64>
    /// Xruns the server reported (jack_set_xrun_callback), and the take position at the last one.
    let xruns: UnsafeAtomic<Int64>
    /// Set when the server shut the client down (jack_on_info_shutdown).
    let serverGone: UnsafeAtomic<Bool>
    /// Whether the callback measures levels; when off, metering costs one atomic load a cycle.
    let meteringEnabled: UnsafeAtomic<Bool>
    let meters: MeterAccumulators
    /// The sample rate the take runs at; a notification of another stops the take.
    let sampleRate: Int
    /// Set when the server's sample rate changed mid-take: the rate it changed to.
    let changedSampleRate: UnsafeAtomic<Int>
    /// The server's period, as the buffer-size callback last heard it.
    let periodFrames: UnsafeAtomic<Int>

    // Events for the reporting thread: the callback writes `events`, JACK's notification thread
    // writes `notifications`.
    let events: RingBuffer
    let notifications: RingBuffer
    let droppedEvents: UnsafeAtomic<Int>
    let eventRecord: UnsafeMutablePointer<CaptureEventRecord>

    // The callback's own.
    var start: UInt32 = 0
    var expectedFrameTime: UInt32 = 0
    var waitedCycles = 0
    var takePosition: Int64 = 0
    /// The take position where the current run of recorded frames began (the start or the last
    /// resume): a stop named in an earlier cycle can cut back no further than this.
    var segmentStart: Int64 = 0

    init(client: OpaquePointer, ports: [OpaquePointer], ring: RingBuffer, sampleRate: Int, periodFrames: Int) {
        self.client = client
        self.ports = .allocate(capacity: ports.count)
        self.ports.initialize(from: ports.map { Optional($0) }, count: ports.count)
        channelCount = ports.count
        self.ring = ring
        header = .allocate(capacity: 1)
        header.initialize(to: CaptureBlockHeader(position: 0, frameCount: 0, frameTime: 0))
        zeros = .allocate(byteCount: Self.zerosByteCount, alignment: 64)
        zeros.initializeMemory(as: UInt8.self, repeating: 0, count: Self.zerosByteCount)
        phase = .create(CapturePhase.idle.rawValue)
        requestedStart = .create(Self.immediateStart)
        requestedLength = .create(Self.unlimitedLength)
        requestedStop = .create(Self.noStop)
        position = .create(0)
        startFrame = .create(-1)
        overrunFrames = .create(0)
        overrunCycles = .create(0)
        skippedFrames = .create(0)
        cycles = .create(0)
        xruns = .create(0)
        serverGone = .create(false)
        meteringEnabled = .create(false)
        meters = MeterAccumulators(channelCount: ports.count)
        requestedPause = .create(Self.noRequest)
        requestedResume = .create(Self.noRequest)
        self.sampleRate = sampleRate
        changedSampleRate = .create(0)
        self.periodFrames = .create(periodFrames)
        events = RingBuffer(capacity: 64 * 1_024)
        notifications = RingBuffer(capacity: 64 * 1_024)
        droppedEvents = .create(0)
        eventRecord = .allocate(capacity: 1)
        eventRecord.initialize(to: CaptureEventRecord(kind: 0, frameTime: 0, position: 0, value: 0, extra: 0))
    }

    func deallocate() {
        ports.deallocate()
        header.deallocate()
        zeros.deallocate()
        ring.deallocate()
        phase.destroy()
        serverGone.destroy()
        meteringEnabled.destroy()
        meters.deallocate()
        events.deallocate()
        notifications.deallocate()
        droppedEvents.destroy()
        changedSampleRate.destroy()
        periodFrames.destroy()
        eventRecord.deallocate()
        for atomic in [requestedStart, requestedLength, requestedStop, requestedPause, requestedResume, position, startFrame,
                       overrunFrames, overrunCycles, skippedFrames, cycles, xruns] {
            atomic.destroy()
        }
    }
}

// MARK: - The process callback

/// JACK's process callback for a capture engine (jack_set_process_callback). `argument` is the
/// engine's `CaptureProcessState`.
@_noAllocation @_noLocks
func captureProcessCallback(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    argument.assumingMemoryBound(to: CaptureProcessState.self).pointee.process(frameCount: frameCount)
    return 0
}

/// JACK's xrun callback (jack_set_xrun_callback): counts them and reports where. JACK 2 calls it
/// on the client's notification thread, not the process thread.
func captureXrunCallback(_ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    _ = state.xruns.loadThenWrappingIncrement(ordering: .relaxed)
    state.notify(.xrun, value: 0)
    return 0
}

/// JACK's shutdown callback (jack_on_info_shutdown): the server is gone, no cycle will follow.
@_noAllocation @_noLocks
func captureShutdownCallback(_ code: jack_status_t, _ reason: UnsafePointer<CChar>?,
                             _ argument: UnsafeMutableRawPointer?) {
    guard let argument else { return }
    argument.assumingMemoryBound(to: CaptureProcessState.self).pointee.serverGone
        .store(true, ordering: .releasing)
}

/// JACK's port-connect callback (jack_set_port_connect_callback), on the notification thread:
/// reports connections made to or broken from the engine's ports, with the other port's name.
func capturePortConnectCallback(_ a: jack_port_id_t, _ b: jack_port_id_t, _ connect: Int32,
                                _ argument: UnsafeMutableRawPointer?) {
    guard let argument else { return }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    guard let first = jack_port_by_id(state.client, a), let second = jack_port_by_id(state.client, b) else { return }
    for channel in 0..<state.channelCount {
        let port = state.ports[channel]
        let other: OpaquePointer
        if port == first { other = second } else if port == second { other = first } else { continue }
        let name = jack_port_name(other).map { String(cString: $0) } ?? "port \(connect != 0 ? b : a)"
        state.notify(connect != 0 ? .portConnected : .portDisconnected, value: Int64(channel), text: name)
    }
}

/// JACK's buffer-size callback (jack_set_buffer_size_callback): the period changes; the process
/// callback copies whatever period it is given, so recording goes on. Only reported.
func captureBufferSizeCallback(_ frames: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    // JACK also calls it on activation, with the period the engine already has: not a change.
    guard state.periodFrames.exchange(Int(frames), ordering: .relaxed) != Int(frames) else { return 0 }
    state.notify(.bufferSizeChanged, value: Int64(frames))
    return 0
}

/// JACK's sample-rate callback (jack_set_sample_rate_callback). JACK calls it once when it is
/// installed; a rate other than the take's stops the take at the next cycle: frames at another
/// rate cannot continue the same file.
func captureSampleRateCallback(_ rate: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    guard Int(rate) != state.sampleRate else { return 0 }
    // The next cycle ends the take at its first frame: every frame at the old rate is kept, none
    // at the new one is.
    state.changedSampleRate.store(Int(rate), ordering: .releasing)
    state.notify(.sampleRateChanged, value: Int64(rate), extra: Int64(state.sampleRate))
    return 0
}

extension CaptureProcessState {
    /// Publishes an event from JACK's notification thread, at the server's current frame estimate.
    func notify(_ kind: CaptureEventRecord.Kind, value: Int64, extra: Int64 = 0, text: String = "") {
        let record = CaptureEventRecord(kind: kind.rawValue, frameTime: jack_frame_time(client),
                                        position: position.load(ordering: .acquiring), value: value, extra: extra)
        notifications.publish(record, text: text, dropped: droppedEvents)
    }

    /// Publishes an event from the process callback.
    @_noAllocation @_noLocks
    func emit(_ kind: Int32, frameTime: UInt32, position: Int64, value: Int64 = 0) {
        eventRecord.pointee.kind = kind
        eventRecord.pointee.frameTime = frameTime
        eventRecord.pointee.position = position
        eventRecord.pointee.value = value
        eventRecord.pointee.extra = 0
        events.publish(UnsafePointer(eventRecord), dropped: droppedEvents)
    }
}

extension CaptureProcessState {
    /// One JACK cycle: the frames [f0, f0 + n) where f0 is jack_last_frame_time.
    @_noAllocation @_noLocks
    mutating func process(frameCount nframes: UInt32) {
        let taken = advanceTake(frameCount: nframes)
        if meteringEnabled.load(ordering: .relaxed) {
            measureLevels(frameCount: nframes, taken: taken)
        }
    }

    /// Moves the take along by one cycle; returns the span of the cycle copied into it (from the
    /// first frame copied to the last, pauses included).
    @_noAllocation @_noLocks
    private mutating func advanceTake(frameCount nframes: UInt32) -> Range<Int> {
        let current = phase.load(ordering: .acquiring)
        guard current == CapturePhase.waiting.rawValue || current == CapturePhase.recording.rawValue
                || current == CapturePhase.paused.rawValue
        else { return 0..<0 }
        _ = cycles.loadThenWrappingIncrement(ordering: .relaxed)
        let n = Int(nframes)
        let cycleStart = jack_last_frame_time(client)
        let stopRequest = requestedStop.load(ordering: .acquiring)
        var offset = 0

        if current == CapturePhase.waiting.rawValue {
            let startRequest = requestedStart.load(ordering: .relaxed)
            if waitedCycles == 0 {
                start = startRequest == Self.immediateStart ? cycleStart : UInt32(truncatingIfNeeded: startRequest)
            }
            if stopRequest != Self.noStop
                && FrameTime.distance(from: start, to: UInt32(truncatingIfNeeded: stopRequest)) <= 0 {
                // Stopped before the start frame: the take is cancelled, and empty.
                phase.store(CapturePhase.finished.rawValue, ordering: .releasing)
                return 0..<0
            }
            let untilStart = FrameTime.distance(from: cycleStart, to: start)
            if untilStart >= n {
                waitedCycles += 1
                return 0..<0
            }
            if untilStart < 0 {
                if waitedCycles == 0 {
                    phase.store(CapturePhase.missedStart.rawValue, ordering: .releasing)
                    return 0..<0
                }
                // An xrun made JACK's clock jump over the start frame: those frames reached no
                // client. The take still starts at the start frame; they become silence.
                takePosition = Int64(-untilStart)
                _ = skippedFrames.loadThenWrappingIncrement(by: takePosition, ordering: .relaxed)
                emit(CaptureEventRecord.framesSkippedKind, frameTime: start, position: 0, value: takePosition)
            } else {
                offset = untilStart
            }
            startFrame.store(Int64(start), ordering: .relaxed)
            emit(CaptureEventRecord.startedKind, frameTime: start, position: 0)
        } else if current == CapturePhase.recording.rawValue {
            let jump = FrameTime.distance(from: expectedFrameTime, to: cycleStart)
            if jump > 0 {
                // JACK's clock skipped frames (an xrun): keep the take aligned with it.
                emit(CaptureEventRecord.framesSkippedKind, frameTime: expectedFrameTime, position: takePosition, value: Int64(jump))
                takePosition += Int64(jump)
                _ = skippedFrames.loadThenWrappingIncrement(by: Int64(jump), ordering: .relaxed)
            }
        }
        expectedFrameTime = FrameTime.advance(cycleStart, by: n)

        // Walk the cycle from the take's first frame in it, switching between recording and
        // paused at each requested frame, until its end or the take's.
        var recording = current != CapturePhase.paused.rawValue
        var cursor = offset
        var firstCopied = n, lastCopied = 0
        // The sample rate changed: this cycle is at the new rate, and the take ends before it.
        var finishing = changedSampleRate.load(ordering: .acquiring) != 0
        var endFrame = FrameTime.advance(cycleStart, by: offset)
        var cutBack = false
        let length = requestedLength.load(ordering: .relaxed)
        while cursor < n && !finishing {
            if recording {
                var end = n
                var pausing = false
                if length != Self.unlimitedLength {
                    if takePosition >= length {
                        takePosition = length
                        end = cursor
                        finishing = true
                    } else if Int64(end - cursor) >= length - takePosition {
                        end = cursor + Int(length - takePosition)
                        finishing = true
                    }
                }
                if stopRequest != Self.noStop {
                    let untilStop = FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: stopRequest))
                    if untilStop < end {
                        finishing = true
                        if untilStop >= cursor {
                            end = untilStop
                        } else {
                            // The stop frame lies in a cycle already on the ring (a stop "now"
                            // names a frame the server has just delivered): end the take there.
                            // The writer holds the newest block back until the take ends, so it
                            // can cut it to this length.
                            end = cursor
                            let cut = min(Int64(cursor - untilStop), takePosition - segmentStart)
                            takePosition -= cut
                            endFrame = FrameTime.advance(cycleStart, by: cursor - Int(cut))
                            cutBack = true
                        }
                    }
                }
                let pauseRequest = requestedPause.load(ordering: .acquiring)
                if pauseRequest != Self.noRequest {
                    let untilPause = FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: pauseRequest))
                    if untilPause < end && !(finishing && end == cursor) {
                        // A pause named in a cycle already copied takes effect here, at the
                        // first frame not yet copied; the event says where it landed.
                        end = max(cursor, untilPause)
                        finishing = false
                        pausing = true
                    }
                }
                let count = end - cursor
                if count > 0 {
                    copyToRing(frames: count, from: cursor, of: nframes, cycleStart: cycleStart)
                    takePosition += Int64(count)
                    firstCopied = min(firstCopied, cursor)
                    lastCopied = end
                }
                if pausing {
                    _ = requestedPause.compareExchange(expected: pauseRequest, desired: Self.noRequest, ordering: .relaxed)
                    recording = false
                    emit(CaptureEventRecord.pausedKind, frameTime: FrameTime.advance(cycleStart, by: end), position: takePosition)
                }
                if finishing && !cutBack {
                    endFrame = FrameTime.advance(cycleStart, by: end)
                }
                cursor = finishing ? end : (pausing ? end : n)
            } else {
                if stopRequest != Self.noStop
                    && FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: stopRequest)) < n {
                    // Stopped while paused: the take ends where it paused.
                    finishing = true
                    endFrame = FrameTime.advance(cycleStart, by: cursor)
                    break
                }
                let resumeRequest = requestedResume.load(ordering: .acquiring)
                guard resumeRequest != Self.noRequest else { break }
                let untilResume = FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: resumeRequest))
                guard untilResume < n else { break }
                _ = requestedResume.compareExchange(expected: resumeRequest, desired: Self.noRequest, ordering: .relaxed)
                cursor = max(cursor, untilResume)
                recording = true
                segmentStart = takePosition
                emit(CaptureEventRecord.resumedKind, frameTime: FrameTime.advance(cycleStart, by: cursor), position: takePosition)
            }
        }

        position.store(takePosition, ordering: .releasing)
        if finishing {
            emit(CaptureEventRecord.stoppedKind, frameTime: endFrame, position: takePosition)
            phase.store(CapturePhase.finished.rawValue, ordering: .releasing)
        } else {
            let next = recording ? CapturePhase.recording.rawValue : CapturePhase.paused.rawValue
            if next != current { phase.store(next, ordering: .releasing) }
        }
        return firstCopied < lastCopied ? firstCopied..<lastCopied : 0..<0
    }

    /// Feeds every port's cycle to the meters; `taken` is the part that went into the take.
    @_noAllocation @_noLocks
    private func measureLevels(frameCount nframes: UInt32, taken: Range<Int>) {
        for channel in 0..<channelCount {
            guard let port = ports[channel], let buffer = jack_port_get_buffer(port, nframes) else { continue }
            meters.measure(channel: channel, samples: UnsafePointer(buffer.assumingMemoryBound(to: Float.self)),
                           count: Int(nframes), taken: taken)
        }
        meters.finishCycle(frames: Int(nframes))
    }

    /// Copies frames [offset, offset + count) of every port as one block, or, when the ring lacks
    /// room for all of it, drops the whole block and counts it: the writer then sees the gap in
    /// the block positions and writes silence for it, so the take stays aligned.
    @_noAllocation @_noLocks
    private func copyToRing(frames count: Int, from offset: Int, of nframes: UInt32, cycleStart: UInt32) {
        let blockBytes = CaptureBlockHeader.blockByteCount(frames: count, channels: channelCount)
        guard ring.writableByteCount() >= blockBytes else {
            _ = overrunFrames.loadThenWrappingIncrement(by: Int64(count), ordering: .relaxed)
            _ = overrunCycles.loadThenWrappingIncrement(ordering: .relaxed)
            emit(CaptureEventRecord.overrunKind, frameTime: FrameTime.advance(cycleStart, by: offset), position: takePosition, value: Int64(count))
            return
        }
        header.pointee.position = takePosition
        header.pointee.frameCount = Int32(count)
        header.pointee.frameTime = FrameTime.advance(cycleStart, by: offset)
        ring.stage(from: UnsafeRawPointer(header), byteCount: CaptureBlockHeader.byteCount, at: 0)
        let channelBytes = count * MemoryLayout<Float>.stride
        var at = CaptureBlockHeader.byteCount
        for channel in 0..<channelCount {
            if let port = ports[channel], let buffer = jack_port_get_buffer(port, nframes) {
                ring.stage(from: UnsafeRawPointer(buffer) + offset * MemoryLayout<Float>.stride,
                           byteCount: channelBytes, at: at)
            } else {
                var zeroed = 0
                while zeroed < channelBytes {
                    let chunk = min(channelBytes - zeroed, Self.zerosByteCount)
                    ring.stage(from: UnsafeRawPointer(zeros), byteCount: chunk, at: at + zeroed)
                    zeroed += chunk
                }
            }
            at += channelBytes
        }
        ring.commitWrite(byteCount: blockBytes)
    }
}
