/// When a player asked to start on a JACK frame starts, decided in each cycle from the cycle's
/// first frame (`jack_last_frame_time`).
enum PlaybackStart: Equatable {
    /// The start frame is after this cycle.
    case later
    /// It falls in this cycle, this many frames after its first frame: those frames are silent.
    case inCycle(offset: Int)
    /// It had passed this many frames before the cycle's first frame: playing starts on that
    /// first frame (reported as a late start).
    case passed(by: Int)

    /// - Parameter firstCycle: whether this is the first cycle asked. A later cycle was preceded
    ///   by one that said `.later`, so a start before it can only be a frame JACK skipped (an
    ///   xrun): it starts on this cycle's first frame, not reported late.
    @_noAllocation @_noLocks
    static func decide(startFrame: UInt32, cycleFrame: UInt32, frames: Int, firstCycle: Bool) -> PlaybackStart {
        let distance = Int(Int32(bitPattern: startFrame &- cycleFrame))
        if distance >= frames { return .later }
        if distance >= 0 { return .inCycle(offset: distance) }
        return firstCycle ? .passed(by: -distance) : .inCycle(offset: 0)
    }
}
