/// One cycle the process callback has read but not yet planned.
struct PendingCycle: Equatable {
    /// What `jack_last_frame_time` said in the cycle's callback: never earlier than the cycle's
    /// true first frame, later when the callback ran late.
    var reading: UInt32
    var frames: Int
    /// Bytes of the cycle's block staged on the ring after the ones before it (0: not copied).
    var stagedBytes: Int
    /// The ring had no room for the cycle: its frames are lost (an overrun).
    var dropped: Bool
    /// The sample rate had changed when the cycle was read: it is at the new rate.
    var afterRateChange: Bool
    /// JACK's frame time once the cycle's frames were copied: a later cycle than this one's means
    /// the copy may have caught the next cycle's samples.
    var readingAfterCopy: UInt32

    @_noAllocation @_noLocks
    init(reading: UInt32, frames: Int, stagedBytes: Int = 0, dropped: Bool = false, afterRateChange: Bool = false) {
        self.reading = reading
        self.frames = frames
        self.stagedBytes = stagedBytes
        self.dropped = dropped
        self.afterRateChange = afterRateChange
        readingAfterCopy = reading
    }
}

/// Where each cycle truly starts on JACK's clock, found from what the callbacks read.
///
/// In JACK 2, `jack_last_frame_time` reads the engine's frame counter as it is when called, and
/// the counter moves on by one period when the driver begins a cycle, before any client runs. A
/// callback that runs late (the server then logs "client was not finished") reads the next
/// cycle's frame time for this cycle's buffers; in async mode the server resets and wakes every
/// client each cycle, so the late client runs again at once for the next cycle and reads the same
/// frame time again (JackEngine::Process, JackGraphManager::ResumeRefNum, JackLinuxFutex::Signal).
/// A reading is therefore never earlier than the cycle's true first frame, and cycles follow one
/// another: cycle i starts no later than any later reading minus the frames between. The true
/// frame time of a cycle is the least of those bounds over the cycles read after it, and never
/// before the end of the cycle planned before it:
///
///     T(i) = max(end of cycle i-1, min(R(i), R(i+1) - n(i), R(i+2) - n(i) - n(i+1), ...))
///
/// With `lookahead` cycles read past a cycle before it is planned, a run of up to `lookahead`
/// late callbacks places every frame where it belongs; a forward jump that every later reading
/// confirms is a real gap (frames that reached no client), and only that becomes silence.
/// Seen through readings alone, a gap JACK leaves right after a late callback is put before that
/// cycle's frames rather than after them: the cycle is one period early, nothing after it moves.
struct CycleTimeline {
    /// Cycles read past a cycle before it is planned.
    static var lookahead: Int { @_noAllocation @_noLocks get { 2 } }
    static var capacity: Int { @_noAllocation @_noLocks get { 3 } }

    private var cycles = InlineArray<3, PendingCycle>(repeating: PendingCycle(reading: 0, frames: 0))
    private var first = 0
    private(set) var count = 0

    @_noAllocation @_noLocks
    init() {}

    /// True when a cycle has been read `lookahead` cycles ago and can be planned.
    var isFull: Bool { @_noAllocation @_noLocks get { count == Self.capacity } }

    @_noAllocation @_noLocks
    subscript(index: Int) -> PendingCycle {
        get { cycles[(first + index) % Self.capacity] }
        set { cycles[(first + index) % Self.capacity] = newValue }
    }

    /// Bytes staged on the ring by the cycles read and not yet planned: where the next block goes.
    var stagedBytes: Int {
        @_noAllocation @_noLocks get { total { $0.stagedBytes } }
    }

    /// Frames of the cycles read and not yet planned.
    var pendingFrames: Int {
        @_noAllocation @_noLocks get { total { $0.frames } }
    }

    @_noAllocation @_noLocks
    private func total(_ value: (PendingCycle) -> Int) -> Int {
        var total = 0
        var index = 0
        while index < count {
            total += value(self[index])
            index += 1
        }
        return total
    }

    @_noAllocation @_noLocks
    mutating func append(_ cycle: PendingCycle) {
        guard count < Self.capacity else { return }
        cycles[(first + count) % Self.capacity] = cycle
        count += 1
    }

    /// Takes the oldest cycle out.
    @_noAllocation @_noLocks
    mutating func removeOldest() -> PendingCycle {
        let oldest = cycles[first]
        first = (first + 1) % Self.capacity
        count -= 1
        return oldest
    }

    @_noAllocation @_noLocks
    mutating func removeAll() {
        first = 0
        count = 0
    }

    /// The true first frame of the oldest cycle, by the rule above, given the frame just after the
    /// cycle planned before it (nil when none was).
    @_noAllocation @_noLocks
    func startOfOldest(after previousEnd: UInt32?) -> UInt32 {
        var best = self[0].reading
        var elapsed = 0
        var index = 1
        while index < count {
            elapsed += self[index - 1].frames
            let bound = FrameTime.advance(self[index].reading, by: -elapsed)
            if FrameTime.distance(from: best, to: bound) < 0 { best = bound }
            index += 1
        }
        if let previousEnd, FrameTime.distance(from: previousEnd, to: best) < 0 { best = previousEnd }
        return best
    }
}
