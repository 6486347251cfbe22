/// Where a take asked to start at once begins, decided by the process callback in the take's first
/// cycle (so a callback that comes late cannot miss a frame named ahead of it).
enum ImmediateStart {
    /// The take's first frame, in the take's frames (JACK's less `alignment`): the cycle's first
    /// frame, or `floor`'s (a JACK frame; negative for none) if that comes later; then, with
    /// channels delayed, `longestDelay` frames on, so every channel's delay line holds real sound.
    @_noAllocation @_noLocks
    static func firstFrame(alignedReading: UInt32, floor: Int64, alignment: Int, longestDelay: Int) -> UInt32 {
        var from = alignedReading
        if floor >= 0 {
            let alignedFloor = FrameTime.advance(UInt32(truncatingIfNeeded: floor), by: -alignment)
            if FrameTime.distance(from: from, to: alignedFloor) > 0 { from = alignedFloor }
        }
        return FrameTime.advance(from, by: longestDelay)
    }
}
