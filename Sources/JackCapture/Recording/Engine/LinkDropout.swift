/// Periods a NetJACK2 master ran that never reached a slave's clock.
///
/// A slave's clock counts the cycles its master's packets drive. When the link drops out, the
/// slave's driver waits for the master; when the link is back, its clock jumps a period or two
/// (an xrun, reported as skipped frames) while the master ran on for as long as the link was down
/// and the slave resynchronised. Those frames are in no slave cycle, so no frame time shows them;
/// only the time between the callbacks does. Measured, 1024-frame periods, 100 ms down: the
/// callbacks 1,027,176 µs apart (48.15 periods) with the clock 3 periods on; the next two callbacks
/// came at once (the slave catching up), and from the third on, time less clock stayed at 44.00
/// periods, the 44 the file shows. So the estimate is the least over the cycles that follow, once
/// the catch-up is over (`settlingCycles`), in whole periods (docs/netjack.md).
struct LinkDropout: Equatable {
    /// Cycles after the stall over which the least estimate is taken.
    static var settlingCycles: Int { @_noAllocation @_noLocks get { 8 } }

    /// The take position of the first cycle after the stall: where the dropout is reported.
    var position: Int64
    /// The least estimate so far, in frames.
    var frames: Int64
    /// The last cycle before the stall: its start on JACK's clock and when its callback ran.
    var baselineStart: UInt32
    var baselineTime: UInt64
    var cyclesLeft: Int

    @_noAllocation @_noLocks
    init(position: Int64, frames: Int64, baselineStart: UInt32, baselineTime: UInt64, cyclesLeft: Int) {
        self.position = position
        self.frames = frames
        self.baselineStart = baselineStart
        self.baselineTime = baselineTime
        self.cyclesLeft = cyclesLeft
    }

    /// Whole periods of `period` frames, in frames, that the master ran between two callbacks
    /// `elapsedMicroseconds` apart while the slave's clock advanced `clockFrames` frames; 0 when
    /// under two periods (a late callback, not a dropout).
    @_noAllocation @_noLocks
    static func missedFrames(elapsedMicroseconds: UInt64, clockFrames: Int64, period: Int, sampleRate: Int) -> Int64 {
        guard period > 0, sampleRate > 0, sampleRate <= 10_000_000 else { return 0 }
        let elapsedFrames = Int64(min(elapsedMicroseconds, 86_400_000_000)) * Int64(sampleRate) / 1_000_000
        let missed = elapsedFrames - clockFrames
        let periods = (missed + Int64(period) / 2) / Int64(period)
        return periods >= 2 ? periods * Int64(period) : 0
    }
}

/// Watches a slave's cycles for link dropouts (`LinkDropout`): each cycle placed, in order, with
/// when its callback ran; says a dropout once the cycles after it settled.
struct LinkDropoutWatch: Equatable {
    private var lastStart: UInt32 = 0
    private var lastTime: UInt64 = 0
    private var hasLast = false
    /// A dropout seen and being settled.
    private(set) var pending: LinkDropout?

    @_noAllocation @_noLocks
    init() {}

    /// Takes the next placed cycle: its start, when its callback ran (µs), its frames, and its
    /// take position when it holds frames of the take (nil otherwise: no dropout starts there).
    /// Returns a dropout whose estimate has settled.
    @_noAllocation @_noLocks
    mutating func observe(start: UInt32, time: UInt64, frames: Int, position: Int64?, sampleRate: Int) -> LinkDropout? {
        defer {
            lastStart = start
            lastTime = time
            hasLast = true
        }
        if var dropout = pending {
            if time >= dropout.baselineTime {
                let missed = LinkDropout.missedFrames(
                    elapsedMicroseconds: time - dropout.baselineTime,
                    clockFrames: Int64(FrameTime.distance(from: dropout.baselineStart, to: start)), period: frames,
                    sampleRate: sampleRate)
                dropout.frames = min(dropout.frames, missed)
            }
            dropout.cyclesLeft -= 1
            pending = dropout
            return dropout.cyclesLeft > 0 ? nil : finish()
        }
        guard hasLast, let position, time > lastTime else { return nil }
        let missed = LinkDropout.missedFrames(elapsedMicroseconds: time - lastTime,
                                              clockFrames: Int64(FrameTime.distance(from: lastStart, to: start)),
                                              period: frames, sampleRate: sampleRate)
        guard missed > 0 else { return nil }
        pending = LinkDropout(position: position, frames: missed, baselineStart: lastStart, baselineTime: lastTime,
                              cyclesLeft: LinkDropout.settlingCycles)
        return nil
    }

    /// The dropout being settled, if any, as it stands (the take ends), and none pending after.
    @_noAllocation @_noLocks
    mutating func finish() -> LinkDropout? {
        let dropout = pending
        pending = nil
        guard let dropout, dropout.frames > 0 else { return nil }
        return dropout
    }
}
