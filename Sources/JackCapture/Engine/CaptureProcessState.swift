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
}

/// Everything the process callback touches. It lives at one address for the life of the engine,
/// so the C callback reaches it through a plain pointer, with no reference counting: the fields
/// other threads read or write are atomics, the rest are the callback's own.
struct CaptureProcessState {
    static var immediateStart: Int64 { @_noAllocation @_noLocks get { -1 } }
    static var noStop: Int64 { @_noAllocation @_noLocks get { -1 } }
    static var unlimitedLength: Int64 { @_noAllocation @_noLocks get { -1 } }

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

    // The callback's own.
    var start: UInt32 = 0
    var expectedFrameTime: UInt32 = 0
    var waitedCycles = 0
    var takePosition: Int64 = 0

    init(client: OpaquePointer, ports: [OpaquePointer], ring: RingBuffer) {
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
        for atomic in [requestedStart, requestedLength, requestedStop, position, startFrame,
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

/// JACK's xrun callback (jack_set_xrun_callback): counts them.
@_noAllocation @_noLocks
func captureXrunCallback(_ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    _ = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee.xruns
        .loadThenWrappingIncrement(ordering: .relaxed)
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

extension CaptureProcessState {
    /// One JACK cycle: the frames [f0, f0 + n) where f0 is jack_last_frame_time.
    @_noAllocation @_noLocks
    mutating func process(frameCount nframes: UInt32) {
        let taken = advanceTake(frameCount: nframes)
        if meteringEnabled.load(ordering: .relaxed) {
            measureLevels(frameCount: nframes, taken: taken)
        }
    }

    /// Moves the take along by one cycle; returns the span of the cycle copied into it.
    @_noAllocation @_noLocks
    private mutating func advanceTake(frameCount nframes: UInt32) -> Range<Int> {
        let current = phase.load(ordering: .acquiring)
        guard current == CapturePhase.waiting.rawValue || current == CapturePhase.recording.rawValue
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
            } else {
                offset = untilStart
            }
            startFrame.store(Int64(start), ordering: .relaxed)
        } else {
            let jump = FrameTime.distance(from: expectedFrameTime, to: cycleStart)
            if jump > 0 {
                // JACK's clock skipped frames (an xrun): keep the take aligned with it.
                takePosition += Int64(jump)
                _ = skippedFrames.loadThenWrappingIncrement(by: Int64(jump), ordering: .relaxed)
            }
        }
        expectedFrameTime = FrameTime.advance(cycleStart, by: n)

        // Where in this cycle the take ends, if it does.
        var end = n
        var finishing = false
        let length = requestedLength.load(ordering: .relaxed)
        if length != Self.unlimitedLength {
            if takePosition >= length {
                takePosition = length
                end = offset
                finishing = true
            } else if Int64(end - offset) >= length - takePosition {
                end = offset + Int(length - takePosition)
                finishing = true
            }
        }
        if stopRequest != Self.noStop {
            let untilStop = FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: stopRequest))
            if untilStop < end {
                finishing = true
                if untilStop >= offset {
                    end = untilStop
                } else {
                    // The stop frame lies in a cycle already on the ring (a stop "now" names a
                    // frame the server has just delivered): end the take there. The writer holds
                    // the newest block back until the take ends, so it can cut it to this length.
                    end = offset
                    takePosition = max(0, takePosition - Int64(offset - untilStop))
                }
            }
        }

        let count = end - offset
        if count > 0 {
            copyToRing(frames: count, from: offset, of: nframes, cycleStart: cycleStart)
            takePosition += Int64(count)
        }
        position.store(takePosition, ordering: .releasing)
        if finishing {
            phase.store(CapturePhase.finished.rawValue, ordering: .releasing)
        } else if current == CapturePhase.waiting.rawValue {
            phase.store(CapturePhase.recording.rawValue, ordering: .releasing)
        }
        return count > 0 ? offset..<end : 0..<0
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
