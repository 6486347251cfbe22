/// One cycle's times as `jack_get_cycle_times` gives them: every client of a server reads the
/// same values in the same cycle (the driver sets them once, at the cycle's start, in shared
/// memory).
struct CycleTimes: Equatable {
    /// The cycle's first frame.
    var frame: UInt32
    /// JACK's clock (microseconds, `jack_get_time`) at the cycle's first frame, as the server's
    /// delay-locked loop estimates it.
    var microseconds: UInt64
    /// The same estimate for the next cycle's first frame.
    var nextMicroseconds: UInt64

    @_noAllocation @_noLocks
    init(frame: UInt32, microseconds: UInt64, nextMicroseconds: UInt64) {
        self.frame = frame
        self.microseconds = microseconds
        self.nextMicroseconds = nextMicroseconds
    }
}

/// Turns a start named as a moment on JACK's clock (a wall-clock start, converted once) into a
/// frame, late: in the cycle the moment falls in, from that cycle's `CycleTimes`. Two recorders
/// on one server told the same moment decide in the same cycle from the same numbers, so they
/// start on the same frame; extrapolating from JACK's clock seconds ahead, as `jack_time_to_frames`
/// does, follows an estimate that moves between the two readings.
///
/// The rule: the take starts on the first frame whose time is at or after the moment, the
/// cycle's frames spread evenly between its time and the next cycle's:
/// `frame + ceil((moment - microseconds) × frames / (nextMicroseconds - microseconds))`.
enum ClockStart {
    /// What a cycle decides.
    enum Decision: Equatable {
        /// The moment is after this cycle: ask again next cycle.
        case later
        /// The take starts on this frame (before the cycle's first frame: the moment had passed
        /// before the first cycle that could see it, a missed start).
        case frame(UInt32)
    }

    /// Decides, in the cycle `cycle` of `frames` frames, where a take told to start at
    /// `nanoseconds` on JACK's clock begins.
    ///
    /// - Parameter firstCycle: whether this is the first cycle that asks for the take. A later
    ///   cycle was preceded by one that said `.later`: a moment that falls between that cycle's
    ///   estimate of this cycle's time and this cycle's own (the loop's correction) starts on this
    ///   cycle's first frame. In the first cycle, a moment before it is a missed start.
    @_noAllocation @_noLocks
    static func decide(nanoseconds: Int64, in cycle: CycleTimes, frames: Int, firstCycle: Bool) -> Decision {
        let start = Int64(truncatingIfNeeded: cycle.microseconds) &* 1_000
        let end = Int64(truncatingIfNeeded: cycle.nextMicroseconds) &* 1_000
        guard frames > 0, end > start, nanoseconds < end else { return .later }
        let span = end - start
        let since = nanoseconds - start
        if since < 0 {
            guard firstCycle else { return .frame(cycle.frame) }
            // Before the cycle: how far only matters as "passed", so at least one period back and
            // at most 2^30 frames (the planner's 32-bit difference then reads it as in the past).
            let periods = min(-since / span + 1, Int64(1 << 30) / Int64(frames))
            return .frame(FrameTime.advance(cycle.frame, by: -Int(periods) * frames))
        }
        // 0 <= since < span (one period), so since × frames cannot overflow.
        let offset = (since * Int64(frames) + span - 1) / span
        return .frame(FrameTime.advance(cycle.frame, by: Int(offset)))
    }
}
