/// Turns a split boundary, named as a moment on JACK's clock, into the frame the next
/// file begins on: late, in the cycle the moment falls in, from that cycle's `CycleTimes`, by the
/// same rule as a wall-clock start (`ClockStart`): the first frame whose time is at or after the
/// moment. Two recorders on one server told the same boundary cut on the same frame, and a take
/// started at a moment and another split at it agree.
///
/// One case differs from a start. The first cycle that learns of a boundary may find it already
/// passed (a take that started just before a boundary, or a split asked for late): a start would
/// be missed, but a split still belongs on its frame, so the frame is counted back from the cycle
/// at the cycle's rate, `frame + ceil((moment - microseconds) × frames / (nextMicroseconds -
/// microseconds))`, which is negative there. The planner puts it where it belongs if that cycle is
/// not yet planned, else on the first frame not yet planned.
enum ClockSplit {
    /// Decides, in the cycle `cycle` of `frames` frames, the frame a boundary at `nanoseconds` on
    /// JACK's clock falls on.
    ///
    /// - Parameter firstCycle: whether this is the first cycle that asks about this boundary (see
    ///   `ClockStart.decide`: after a cycle said `.later`, a moment the server's estimate moved to
    ///   before this cycle is this cycle's first frame).
    @_noAllocation @_noLocks
    static func decide(nanoseconds: Int64, in cycle: CycleTimes, frames: Int, firstCycle: Bool) -> ClockStart.Decision {
        let start = Int64(truncatingIfNeeded: cycle.microseconds) &* 1_000
        let end = Int64(truncatingIfNeeded: cycle.nextMicroseconds) &* 1_000
        guard firstCycle, frames > 0, end > start, nanoseconds < start else {
            return ClockStart.decide(nanoseconds: nanoseconds, in: cycle, frames: frames, firstCycle: false)
        }
        let span = end - start
        // Counted back at most 2^30 frames: further is long before any take could have started,
        // and the planner's 32-bit differences still read it as past.
        let limit = Int64(1 << 30)
        let periodsBack = -(nanoseconds - start) / span + 1
        if periodsBack >= limit / Int64(frames) { return .frame(FrameTime.advance(cycle.frame, by: -(1 << 30))) }
        // since < 0; ceil of a negative quotient is Swift's division, which truncates towards zero.
        let since = nanoseconds - start
        let (product, overflow) = since.multipliedReportingOverflow(by: Int64(frames))
        if overflow { return .frame(FrameTime.advance(cycle.frame, by: -(1 << 30))) }
        return .frame(FrameTime.advance(cycle.frame, by: Int(product / span)))
    }
}
