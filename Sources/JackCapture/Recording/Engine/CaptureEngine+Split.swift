import Atomics

extension CaptureEngine {
    /// Asks take `take` to begin a new file at its boundary `boundary` (1 for the take's first),
    /// the moment `nanoseconds` of JACK's clock: the process callback decides the frame in the
    /// cycle the moment falls in (`ClockSplit`). Asking again for the same boundary moves its
    /// moment (a fresher conversion of the same wall-clock time) until the callback has decided
    /// it; ask for the next only once `placedSplitBoundary` names this one.
    package func requestSplit(take: UInt32, boundary: Int64, atJackNanoseconds nanoseconds: Int64) {
        let pointer = state.pointee
        // The moment first, then the boundary it is for (releasing): a callback that reads the
        // boundary reads this moment or a later conversion of it.
        pointer.requestedSplitMoment.store(max(0, nanoseconds), ordering: .relaxed)
        pointer.requestedSplitBoundary.store(SplitTag.make(take: take, boundary: boundary), ordering: .releasing)
    }

    /// The last boundary of take `take` the process callback has placed (0 before the first).
    package func placedSplitBoundary(take: UInt32) -> Int64 {
        let tag = state.pointee.placedSplitBoundary.load(ordering: .acquiring)
        return SplitTag.take(tag) == take ? SplitTag.boundary(tag) : 0
    }
}
