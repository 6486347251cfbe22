import Atomics
import CJack

/// A take number and a split boundary's number in one 64-bit atomic value: the take in the high
/// 32 bits, the boundary (1, 2, ...) in the low ones. Tagging with the take means a boundary asked
/// for one take is never taken for the next, with nothing to reset between them.
enum SplitTag {
    @_noAllocation @_noLocks
    static func make(take: UInt32, boundary: Int64) -> Int64 {
        Int64(take) << 32 | (boundary & 0xffff_ffff)
    }

    @_noAllocation @_noLocks
    static func take(_ tag: Int64) -> UInt32 { UInt32(truncatingIfNeeded: tag >> 32) }

    @_noAllocation @_noLocks
    static func boundary(_ tag: Int64) -> Int64 { tag & 0xffff_ffff }
}

/// A split the planner has placed and no block has carried to the writer yet.
struct PendingSegmentStart: Equatable {
    /// Take position of the next file's first frame.
    var position: Int64
    var boundary: Int64

    @_noAllocation @_noLocks
    init(position: Int64, boundary: Int64) {
        self.position = position
        self.boundary = boundary
    }
}

/// The process callback's own record of a take's clock-aligned splits: the boundary
/// it is deciding, the frame decided for it until the planner places it, and the places waiting
/// for a block to carry them to the writer.
struct SplitState {
    /// The boundary a cycle last asked about (a cycle that asks about a new one is its first).
    var asked: Int64 = 0
    /// The boundary whose frame is decided and not yet placed, and that frame (-1: none).
    var decidedBoundary: Int64 = 0
    var decidedFrame: Int64 = -1
    /// The last boundary placed (or found before the take's start).
    var placed: Int64 = 0
    /// Cuts waiting for a block, oldest first. One at a time is the rule (the next boundary is
    /// asked for only once this one is placed); a few more cover a ring that stays full (an
    /// overrun) over several boundaries.
    private var segmentStarts = InlineArray<4, PendingSegmentStart>(repeating: PendingSegmentStart(position: 0, boundary: 0))
    private var first = 0
    private(set) var segmentStartCount = 0

    @_noAllocation @_noLocks
    init() {}

    /// Queues a segment start; when four are already waiting, the oldest gives way (the ring has then been
    /// full for four boundaries, and the take's frames between them are lost in any case).
    @_noAllocation @_noLocks
    mutating func pushSegmentStart(_ segmentStart: PendingSegmentStart) {
        if segmentStartCount == 4 { _ = popSegmentStart() }
        segmentStarts[(first + segmentStartCount) % 4] = segmentStart
        segmentStartCount += 1
    }

    @_noAllocation @_noLocks
    mutating func popSegmentStart() -> PendingSegmentStart? {
        guard segmentStartCount > 0 else { return nil }
        let segmentStart = segmentStarts[first]
        first = (first + 1) % 4
        segmentStartCount -= 1
        return segmentStart
    }
}

extension CaptureProcessState {
    /// For a take split on wall-clock boundaries: decides the frame of the boundary asked for, in
    /// the cycle it falls in, from that cycle's times (`ClockSplit`), and hands it to the planner
    /// as the split request until a plan places it.
    @_noAllocation @_noLocks
    func decideSplit(frames n: Int) {
        own.pointee.requests.split = own.pointee.split.decidedFrame
        guard own.pointee.split.decidedFrame < 0 else { return }
        let tag = requestedSplitBoundary.load(ordering: .acquiring)
        guard SplitTag.take(tag) == own.pointee.take else { return }
        let boundary = SplitTag.boundary(tag)
        guard boundary > own.pointee.split.placed else { return }
        let moment = requestedSplitMoment.load(ordering: .relaxed)
        guard let cycle = CycleTimes.current(of: client) else { return }
        let decision = ClockSplit.decide(nanoseconds: moment, in: cycle, frames: n,
                                         firstCycle: own.pointee.split.asked != boundary)
        own.pointee.split.asked = boundary
        if case .frame(let decided) = decision {
            own.pointee.split.decidedBoundary = boundary
            own.pointee.split.decidedFrame = Int64(decided)
            own.pointee.requests.split = Int64(decided)
        }
    }

    /// After a cycle is planned: a split the plan placed waits for a block to carry it, and the
    /// boundary is done, so the next may be asked for.
    @_noAllocation @_noLocks
    func settleSplit(_ plan: CyclePlan) {
        guard plan.consumedSplit else { return }
        let boundary = own.pointee.split.decidedBoundary
        if plan.splitPosition >= 0 {
            own.pointee.split.pushSegmentStart(PendingSegmentStart(position: plan.splitPosition, boundary: boundary))
        }
        own.pointee.split.decidedFrame = -1
        own.pointee.split.placed = boundary
        own.pointee.requests.split = TakeRequests.none
        placedSplitBoundary.store(SplitTag.make(take: own.pointee.take, boundary: boundary), ordering: .releasing)
    }

    /// Gives the block being committed the oldest segment start waiting, if any.
    @_noAllocation @_noLocks
    func attachSegmentStart(to header: UnsafeMutablePointer<CaptureBlockHeader>) {
        guard let segmentStart = own.pointee.split.popSegmentStart() else { return }
        header.pointee.splitPosition = segmentStart.position
        header.pointee.splitBoundary = segmentStart.boundary
    }
}
