/// How a take aligned to its sources' capture latency moves its frames, so
/// that the first sample in the file is the sound that reached the converter at the start frame,
/// on every channel (as Ardour aligns its captures).
///
/// Channel `c`'s sound from converter time `t` arrives in jcap's port at frame `t + latency[c]`.
/// The take runs `shift` = the largest latency behind JACK's clock: the callback hands the planner
/// each cycle's frame time less `shift`, so every requested frame (start, stop, pause, resume,
/// a wall-clock start) names converter time. Channels with less latency are delayed by the
/// difference (`delays`) before they reach the ring, so all of a cycle's frames hold sound of
/// the same converter time.
public struct LatencyAlignment: Equatable, Sendable {
    /// Each channel's capture latency, in frames, as the take used it.
    public let latencies: [Int]

    public init(latencies: [Int]) {
        self.latencies = latencies.map { max(0, $0) }
    }

    /// Frames the take runs behind JACK's clock: the largest latency.
    public var shift: Int { latencies.max() ?? 0 }

    /// Frames each channel is delayed by: `shift` less its own latency.
    public var delays: [Int] { latencies.map { shift - $0 } }

    /// The longest delay: an immediate start begins this many frames after the first cycle, so
    /// that every delayed channel has real sound (not its delay line's initial silence) from the
    /// take's first frame.
    public var longestDelay: Int { delays.max() ?? 0 }
}

/// One channel's delay line: the last `length` frames it received, in a circle.
struct ChannelDelayLine {
    let channel: Int
    let length: Int
    var index: Int
    let buffer: UnsafeMutablePointer<Float>
}

/// The delay lines of a take's delayed channels, in memory the process callback can use without
/// allocating: made by the thread that arms the take, handed to the callback through an atomic
/// (`CaptureProcessState.pendingDelayLines`), given back through another once a later take
/// replaces them (`retiredDelayLines`), and freed by the arming thread. Starts silent.
struct DelayLineSet {
    let lines: UnsafeMutablePointer<ChannelDelayLine>
    let count: Int

    /// Delay lines for the channels whose delay is above zero; nil when none is.
    static func make(delays: [Int]) -> UnsafeMutablePointer<DelayLineSet>? {
        let delayed = delays.enumerated().filter { $0.element > 0 }
        guard !delayed.isEmpty else { return nil }
        let lines = UnsafeMutablePointer<ChannelDelayLine>.allocate(capacity: delayed.count)
        for (slot, (channel, length)) in delayed.enumerated() {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: length)
            buffer.initialize(repeating: 0, count: length)
            (lines + slot).initialize(to: ChannelDelayLine(channel: channel, length: length, index: 0, buffer: buffer))
        }
        let set = UnsafeMutablePointer<DelayLineSet>.allocate(capacity: 1)
        set.initialize(to: DelayLineSet(lines: lines, count: delayed.count))
        return set
    }

    static func free(_ set: UnsafeMutablePointer<DelayLineSet>) {
        for slot in 0..<set.pointee.count { set.pointee.lines[slot].buffer.deallocate() }
        set.pointee.lines.deallocate()
        set.deallocate()
    }

    /// Delays `count` samples at `samples` in place: each leaves with the sample that came
    /// `length` samples before it, and goes into the line.
    @_noAllocation @_noLocks
    static func delayInPlace(_ line: UnsafeMutablePointer<ChannelDelayLine>, _ samples: UnsafeMutablePointer<Float>,
                             count: Int) {
        let length = line.pointee.length
        let buffer = line.pointee.buffer
        var index = line.pointee.index
        var at = 0
        while at < count {
            let incoming = samples[at]
            samples[at] = buffer[index]
            buffer[index] = incoming
            index += 1
            if index == length { index = 0 }
            at += 1
        }
        line.pointee.index = index
    }

    /// Feeds `count` samples into the line without taking any out: a cycle that is not copied
    /// (before the take's first frame) still passes through, so the line holds the frames before
    /// the start when it comes.
    @_noAllocation @_noLocks
    static func feed(_ line: UnsafeMutablePointer<ChannelDelayLine>, _ samples: UnsafePointer<Float>, count: Int) {
        let length = line.pointee.length
        let buffer = line.pointee.buffer
        var index = line.pointee.index
        // Only the last `length` samples stay in the line.
        var at = count > length ? count - length : 0
        index = (index + at) % length
        while at < count {
            buffer[index] = samples[at]
            index += 1
            if index == length { index = 0 }
            at += 1
        }
        line.pointee.index = index
    }
}
