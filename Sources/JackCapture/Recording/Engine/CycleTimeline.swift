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
    /// When the cycle's callback ran (`jack_get_time`, microseconds; 0 when not read).
    var callbackTime: UInt64 = 0
    /// On a NetJACK2 slave, the copy ended when the next period's packets may already have been
    /// arriving in the same buffers (`NetSlaveCopyWindow`), though JACK's frame time had not moved.
    var copyMetNextPackets = false
    /// Following the master's clock: the master's frame time of the cycle's first frame, from the
    /// timecode it carried (`MasterTimecode`; -1: it did not decode).
    var masterFrame: Int64 = -1
    /// The first and last channel whose port buffer changed in this cycle (-1: none): a
    /// connection took effect (`ProcessCallbackState.inputBuffers`).
    var firstChangedInput = -1
    var lastChangedInput = -1
    /// `ProcessCallbackState.cycleSerial` when the cycle was read.
    var serial: Int64 = 0
    /// The first cycle after a period change: JACK 2 numbers it by the new period, though a whole
    /// old period of time has passed, so its clock steps this many frames (new period less old)
    /// past the last cycle's end with no frame between (0: any other cycle).
    var renumbered = 0

    /// How far a server numbered a cycle of `frames` frames read at `reading` past where the last
    /// cycle (`lastFrames` frames, read at `lastReading`; 0 frames: none) ended: JACK 2 numbers the
    /// first cycle after a period change by the new period (`tools/period-change`), so the step is
    /// the new period less the old. A server that counts on by the old period, as the readings
    /// then show (PipeWire's JACK, as far as it is known, counts the frames it played), is not
    /// renumbering: 0, as for every cycle of the same count as the last.
    @_noAllocation @_noLocks
    static func renumbering(frames: Int, reading: UInt32, lastFrames: Int, lastReading: UInt32) -> Int {
        guard lastFrames > 0, frames != lastFrames,
              FrameTime.distance(from: lastReading, to: reading) != lastFrames else { return 0 }
        return frames - lastFrames
    }

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

/// Where the timeline put a cycle, and how sure it is.
struct CyclePlacement: Equatable {
    /// The cycle's true first frame on JACK's clock, as far as the readings tell.
    var start: UInt32
    /// Frames at the cycle's start that fall on frames an earlier placement already filled (that
    /// placement was late): they are not used, so nothing after them moves.
    var overlap: Int
    /// Placed by a guess no reading confirms: right after a jump (a real gap reads the same as a
    /// late callback followed by a loss), or on the newest reading's word alone (a run of late
    /// callbacks as long as the lookahead may be longer).
    var guessed: Bool
    /// Frames just before this cycle's start that earlier placements put late, now that a reading
    /// proved it: their samples may belong up to `overlap` frames earlier.
    var misplacedBefore: Int

    @_noAllocation @_noLocks
    init(start: UInt32, overlap: Int = 0, guessed: Bool = false, misplacedBefore: Int = 0) {
        self.start = start
        self.overlap = overlap
        self.guessed = guessed
        self.misplacedBefore = misplacedBefore
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
/// With `lookahead` cycles read past a cycle before it is planned, a run of fewer than
/// `lookahead` late callbacks places every frame where it belongs; a forward jump that every later
/// reading confirms is a gap (frames that reached no client), and only that becomes silence.
///
/// Where the readings cannot decide, the placement says so (`CyclePlacement`), and the take
/// reports the period as placement uncertain: a cycle right after a jump (a gap JACK leaves right
/// after a late callback reads the same as a gap before an on-time one, so the cycle may belong
/// one gap earlier), and a cycle whose earliest bound only the newest reading gives (the run of
/// late callbacks may be longer still). A reading that proves an earlier placement late (a cycle
/// that would begin before the last one ended) puts the timeline back on JACK's clock at once:
/// the cycle's frames that fall on frames already placed are dropped, and the stretch placed late
/// is reported. Every placement is at or after the true one, so nothing is ever placed early.
///
/// A period change is no gap and no late reading: JACK 2 numbers the cycle after it `renumbered`
/// frames past the last one's end (measured with `tools/period-change`: +1,024 from 1024 to 2048
/// frames, -1,536 from 2048 to 512, every callback on time). The bounds across it, and the end the
/// cycle follows on from, step with the clock.
struct CycleTimeline {
    /// Cycles read past a cycle before it is planned.
    static var lookahead: Int { @_noAllocation @_noLocks get { 3 } }
    static var capacity: Int { @_noAllocation @_noLocks get { 4 } }

    private var cycles = InlineArray<4, PendingCycle>(repeating: PendingCycle(reading: 0, frames: 0))
    private var first = 0
    private(set) var count = 0
    /// The frame just after the last cycle placed, once one has been.
    private var placedEnd: UInt32?
    /// Where the placements that may be late begin: the last jump (or the first cycle, or the
    /// frame the timeline was last put back on the clock).
    private var lateSince: UInt32 = 0

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

    /// Marks the newest cycle read as copied when the next period's packets may have been
    /// arriving (a NetJACK2 slave's next callback came at once: `NetSlaveCopyWindow.cameAtOnce`).
    @_noAllocation @_noLocks
    mutating func markNewestCopyMetNextPackets() {
        guard count > 0 else { return }
        self[count - 1].copyMetNextPackets = true
    }

    /// Drops the cycles read and not yet planned (the take has ended).
    @_noAllocation @_noLocks
    mutating func removeAll() {
        first = 0
        count = 0
    }

    /// Forgets every cycle read and every placement: a new take.
    @_noAllocation @_noLocks
    mutating func reset() {
        removeAll()
        placedEnd = nil
        lateSince = 0
    }

    /// Takes the oldest cycle out and places it, by the rule above.
    @_noAllocation @_noLocks
    mutating func placeOldest() -> (placement: CyclePlacement, cycle: PendingCycle) {
        let cycle = self[0]
        // The least bound, and whether a reading before the newest gives it too.
        var best = cycle.reading
        var bestIndex = 0
        var elapsed = 0
        var index = 1
        while index < count {
            elapsed += self[index - 1].frames + self[index].renumbered
            let bound = FrameTime.advance(self[index].reading, by: -elapsed)
            if FrameTime.distance(from: best, to: bound) < 0 {
                best = bound
                bestIndex = index
            }
            index += 1
        }
        first = (first + 1) % Self.capacity
        count -= 1

        var placement = CyclePlacement(start: best, guessed: bestIndex > 0 && bestIndex == count)
        let end = FrameTime.advance(best, by: cycle.frames)
        guard var previousEnd = placedEnd else {
            placedEnd = end
            lateSince = best
            return (placement, cycle)
        }
        if cycle.renumbered != 0 {
            // The clock stepped with no frame between: the cycle follows on from the last one's
            // end as JACK now numbers it.
            previousEnd = FrameTime.advance(previousEnd, by: cycle.renumbered)
            placedEnd = previousEnd
            lateSince = FrameTime.advance(lateSince, by: cycle.renumbered)
        }
        let overlap = FrameTime.distance(from: best, to: previousEnd)
        if overlap > 0 {
            // An earlier placement was late by `overlap` frames: back on the clock from here.
            placement.overlap = min(overlap, cycle.frames)
            placement.misplacedBefore = max(overlap, FrameTime.distance(from: lateSince, to: previousEnd))
            lateSince = previousEnd
            if FrameTime.distance(from: previousEnd, to: end) > 0 { placedEnd = end }
        } else {
            if overlap < 0 {
                placement.guessed = true
                lateSince = best
            }
            placedEnd = end
        }
        return (placement, cycle)
    }
}
