import Testing
@testable import JackCapture

/// Where the planner puts a clock-aligned split (`TakeRequests.split`): the take position of the
/// first frame at or after the split's frame, in every state a take can be in when it comes.
@Suite("Cycle planner: where a split lands in the take")
struct CyclePlannerSplitTests {
    struct Outcome: Equatable {
        var consumed: Bool
        var position: Int64
        var events: [PlannedEvent]
    }

    static let split = CaptureEventRecord.splitKind

    /// Plans each cycle `(start, frames, requests)` in turn; returns what each did with its split.
    func run(_ cycles: [(UInt32, Int, TakeRequests)]) -> [Outcome] {
        var planner = CyclePlanner()
        return cycles.map { start, frames, requests in
            let plan = planner.plan(cycleStart: start, frames: frames, requests: requests)
            let events = (0..<plan.eventCount).map { plan.events[$0] }.filter { $0.kind == Self.split }
            return Outcome(consumed: plan.consumedSplit, position: plan.splitPosition, events: events)
        }
    }

    static func landed(_ frame: UInt32, at position: Int64) -> Outcome {
        Outcome(consumed: true, position: position, events: [PlannedEvent(kind: split, frameTime: frame, position: position)])
    }

    static let waiting = Outcome(consumed: false, position: -1, events: [])
    static let cutsNothing = Outcome(consumed: true, position: -1, events: [])

    @Test("inside a recorded cycle: at its offset; a later cycle's split waits for it")
    func insideACycle() {
        let request = TakeRequests(split: 5_300)
        #expect(run([(5_000, 256, request), (5_256, 256, request)]) == [Self.waiting, Self.landed(5_300, at: 300)])
        // On a cycle's first frame, and on its last.
        #expect(run([(5_000, 256, TakeRequests()), (5_256, 256, TakeRequests(split: 5_256))])
                == [Self.waiting, Self.landed(5_256, at: 256)])
        #expect(run([(5_000, 256, TakeRequests()), (5_256, 256, TakeRequests(split: 5_511))])
                == [Self.waiting, Self.landed(5_511, at: 511)])
    }

    @Test("at or before the take's first frame: nothing to segmentStart")
    func atTheStart() {
        #expect(run([(768, 256, TakeRequests(start: 1_000, split: 900))]) == [Self.cutsNothing])
        #expect(run([(768, 256, TakeRequests(start: 1_000, split: 1_000))]) == [Self.cutsNothing])
        // Before a start some cycles ahead: known at once.
        #expect(run([(0, 256, TakeRequests(start: 1_000, split: 999))]) == [Self.cutsNothing])
        // An immediate start: a split before the first cycle's first frame.
        #expect(run([(5_000, 256, TakeRequests(split: 4_000))]) == [Self.cutsNothing])
        // After the start frame, in the start's cycle.
        #expect(run([(768, 256, TakeRequests(start: 1_000, split: 1_001))]) == [Self.landed(1_001, at: 1)])
    }

    @Test("while paused: where recording resumes")
    func paused() {
        let pause = TakeRequests(pause: 5_100)
        #expect(run([
            (5_000, 256, TakeRequests(pause: 5_100, split: 5_200)),
            (5_256, 256, TakeRequests(resume: 5_400)),
        ]) == [Self.landed(5_200, at: 100), Self.waiting])
        // Paused through the whole cycle the split falls in, then resumed.
        #expect(run([(5_000, 256, pause), (5_256, 256, TakeRequests(split: 5_300)), (5_512, 256, TakeRequests(resume: 5_600))])
                == [Self.waiting, Self.landed(5_300, at: 100), Self.waiting])
        // Resumed in the same cycle after the split frame.
        #expect(run([(5_000, 256, pause), (5_256, 256, TakeRequests(resume: 5_400, split: 5_300))])
                == [Self.waiting, Self.landed(5_300, at: 100)])
        // Resumed before it: at its own place after the resume.
        #expect(run([(5_000, 256, pause), (5_256, 256, TakeRequests(resume: 5_300, split: 5_400))])
                == [Self.waiting, Self.landed(5_400, at: 200)])
    }

    @Test("among frames JACK's clock skipped: at its own place in the silence")
    func skipped() {
        // 5_256 ..< 6_000 never reached any client: positions 256 ..< 1000.
        let plans = run([(5_000, 256, TakeRequests(split: 5_500)), (6_000, 256, TakeRequests(split: 5_500))])
        #expect(plans == [Self.waiting, Self.landed(5_500, at: 500)])
        // An xrun jumped over the start frame: the split counts from the start frame.
        #expect(run([(0, 256, TakeRequests(start: 1_000, split: 1_100)), (1_300, 256, TakeRequests(start: 1_000, split: 1_100))])
                == [Self.waiting, Self.landed(1_100, at: 100)])
    }

    @Test("in a cycle already planned (decided late): on the first frame not yet planned")
    func late() {
        #expect(run([(5_000, 256, TakeRequests()), (5_256, 256, TakeRequests(split: 5_100))])
                == [Self.waiting, Self.landed(5_100, at: 256)])
    }

    @Test("after the take's end: never placed; at the end frame: nothing follows it")
    func afterTheEnd() {
        #expect(run([(5_000, 256, TakeRequests(length: 300)), (5_256, 256, TakeRequests(length: 300, split: 5_400))])
                == [Self.waiting, Self.waiting])
        #expect(run([(5_000, 256, TakeRequests(length: 300)), (5_256, 256, TakeRequests(length: 300, split: 5_300))])
                == [Self.waiting, Self.waiting])
        // A frame before the end, in the cycle the take ends in, is placed.
        #expect(run([(5_000, 256, TakeRequests(length: 300)), (5_256, 256, TakeRequests(length: 300, split: 5_299))])
                == [Self.waiting, Self.landed(5_299, at: 299)])
    }

    @Test("a split changes nothing else the cycle does")
    func framesUnchanged() {
        var with = CyclePlanner()
        var without = CyclePlanner()
        for (start, split) in [(5_000 as UInt32, -1 as Int64), (5_256, 5_300), (5_512, -1)] {
            let a = with.plan(cycleStart: start, frames: 256, requests: TakeRequests(pause: 5_600, split: split))
            let b = without.plan(cycleStart: start, frames: 256, requests: TakeRequests(pause: 5_600))
            #expect((0..<a.spanCount).map { a.spans[$0] } == (0..<b.spanCount).map { b.spans[$0] })
            #expect((0..<a.eventCount).map { a.events[$0] }.filter { $0.kind != Self.split } == (0..<b.eventCount).map { b.events[$0] })
        }
        #expect(with == without)
    }
}

@Suite("The process callback's segmentStarts waiting for a block")
struct SplitStateTests {
    @Test("first in, first out; when four wait, the oldest gives way")
    func queue() {
        var state = SplitState()
        #expect(state.popSegmentStart() == nil)
        for boundary in 1...3 { state.pushSegmentStart(PendingSegmentStart(position: Int64(boundary) * 100, boundary: Int64(boundary))) }
        #expect(state.segmentStartCount == 3)
        #expect(state.popSegmentStart() == PendingSegmentStart(position: 100, boundary: 1))
        for boundary in 4...6 { state.pushSegmentStart(PendingSegmentStart(position: Int64(boundary) * 100, boundary: Int64(boundary))) }
        #expect(state.segmentStartCount == 4)
        #expect((0..<4).compactMap { _ in state.popSegmentStart()?.boundary } == [3, 4, 5, 6])
        #expect(state.popSegmentStart() == nil)
    }

    @Test("a boundary asked for one take is never taken for another")
    func tags() {
        let tag = SplitTag.make(take: 7, boundary: 12)
        #expect(SplitTag.take(tag) == 7)
        #expect(SplitTag.boundary(tag) == 12)
        #expect(SplitTag.take(SplitTag.make(take: .max, boundary: 1)) == .max)
    }
}
