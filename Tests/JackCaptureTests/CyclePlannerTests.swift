import Testing
@testable import JackCapture

/// The planner's decisions, cycle by cycle, as tables: each row is a cycle (its true first frame
/// and length, and the requests standing then) and what the plan for it must say.
@Suite("Cycle planner: what each cycle puts in the take")
struct CyclePlannerTests {
    struct Row {
        var start: UInt32
        var frames: Int
        var requests: TakeRequests
        var spans: [CycleSpan]
        var events: [PlannedEvent]
        var finished = false
        /// JACK renumbered the cycle at a period change by this much (`PendingCycle.renumbered`).
        var renumbered = 0
    }

    static let started = CaptureEventRecord.startedKind
    static let paused = CaptureEventRecord.pausedKind
    static let resumed = CaptureEventRecord.resumedKind
    static let stopped = CaptureEventRecord.stoppedKind
    static let skipped = CaptureEventRecord.framesSkippedKind

    static func span(_ offset: Int, _ count: Int, at position: Int64) -> CycleSpan {
        CycleSpan(offset: offset, count: count, position: position)
    }

    static func event(_ kind: Int32, _ frame: UInt32, at position: Int64, _ value: Int64 = 0) -> PlannedEvent {
        PlannedEvent(kind: kind, frameTime: frame, position: position, value: value)
    }

    /// Runs the rows through one planner, checking each plan; returns the planner.
    @discardableResult
    func run(_ rows: [Row], sourceLocation: SourceLocation = #_sourceLocation) -> CyclePlanner {
        var planner = CyclePlanner()
        for (index, row) in rows.enumerated() {
            let plan = planner.plan(cycleStart: row.start, frames: row.frames, requests: row.requests, renumbered: row.renumbered)
            let spans = (0..<plan.spanCount).map { plan.spans[$0] }
            let events = (0..<plan.eventCount).map { plan.events[$0] }
            #expect(spans == row.spans, "cycle \(index) at \(row.start): spans", sourceLocation: sourceLocation)
            #expect(events == row.events, "cycle \(index) at \(row.start): events", sourceLocation: sourceLocation)
            #expect(plan.finished == row.finished, "cycle \(index) at \(row.start): finished", sourceLocation: sourceLocation)
        }
        return planner
    }

    @Test("the planner's phases publish as the CapturePhase they stand for")
    func phaseValues() {
        #expect(TakePhase.waiting.capturePhaseRawValue == CapturePhase.waiting.rawValue)
        #expect(TakePhase.recording.capturePhaseRawValue == CapturePhase.recording.rawValue)
        #expect(TakePhase.paused.capturePhaseRawValue == CapturePhase.paused.rawValue)
        #expect(TakePhase.finished.capturePhaseRawValue == CapturePhase.finished.rawValue)
        #expect(TakePhase.missedStart.capturePhaseRawValue == CapturePhase.missedStart.rawValue)
    }

    @Test("an immediate start takes the first cycle planned whole")
    func immediateStart() {
        let planner = run([
            Row(start: 5_000, frames: 256, requests: TakeRequests(), spans: [Self.span(0, 256, at: 0)],
                events: [Self.event(Self.started, 5_000, at: 0)]),
            Row(start: 5_256, frames: 256, requests: TakeRequests(), spans: [Self.span(0, 256, at: 256)], events: []),
        ])
        #expect(planner.position == 512)
    }

    @Test("a start inside a cycle begins at its offset there")
    func startMidCycle() {
        let requests = TakeRequests(start: 1_000, length: 300)
        run([
            Row(start: 512, frames: 256, requests: requests, spans: [], events: []),
            Row(start: 768, frames: 256, requests: requests, spans: [Self.span(232, 24, at: 0)],
                events: [Self.event(Self.started, 1_000, at: 0)]),
            Row(start: 1_024, frames: 256, requests: requests, spans: [Self.span(0, 256, at: 24)], events: []),
            Row(start: 1_280, frames: 256, requests: requests, spans: [Self.span(0, 20, at: 280)],
                events: [Self.event(Self.stopped, 1_300, at: 300)], finished: true),
        ])
    }

    @Test("a start already passed at the first cycle is missed, and nothing is recorded")
    func startMissed() {
        let planner = run([
            Row(start: 2_048, frames: 256, requests: TakeRequests(start: 1_000), spans: [], events: [], finished: true),
        ])
        #expect(planner.phase == .missedStart)
    }

    @Test("an xrun that jumps over the start frame: the take starts there, the frames skipped are silence")
    func xrunOverTheStart() {
        let requests = TakeRequests(start: 1_000)
        run([
            Row(start: 512, frames: 256, requests: requests, spans: [], events: []),
            // 768 to 1279 never reached the client; the take's frames 0-279 are those.
            Row(start: 1_280, frames: 256, requests: requests, spans: [Self.span(0, 256, at: 280)],
                events: [Self.event(Self.skipped, 1_000, at: 0, 280), Self.event(Self.started, 1_000, at: 0)]),
        ])
    }

    @Test("an xrun mid-take keeps every later frame at its true position")
    func xrunMidTake() {
        let planner = run([
            Row(start: 0, frames: 256, requests: TakeRequests(), spans: [Self.span(0, 256, at: 0)],
                events: [Self.event(Self.started, 0, at: 0)]),
            Row(start: 768, frames: 256, requests: TakeRequests(), spans: [Self.span(0, 256, at: 768)],
                events: [Self.event(Self.skipped, 256, at: 256, 512)]),
        ])
        #expect(planner.position == 1_024)
    }

    @Test("a period change JACK numbered anew is no gap: the take goes on without a break and says where the clock stepped")
    func clockRenumbered() {
        let step = CaptureEventRecord.clockRenumberedKind
        // JACK 2: 1024 -> 2048 frames numbers the next cycle 2048 on (+1,024); 2048 -> 512
        // numbers it 512 on (-1,536). A stop on JACK's clock still lands on its frame.
        let planner = run([
            Row(start: 0, frames: 1_024, requests: TakeRequests(), spans: [Self.span(0, 1_024, at: 0)],
                events: [Self.event(Self.started, 0, at: 0)]),
            Row(start: 2_048, frames: 2_048, requests: TakeRequests(), spans: [Self.span(0, 2_048, at: 1_024)],
                events: [Self.event(step, 2_048, at: 1_024, 1_024)], renumbered: 1_024),
            Row(start: 2_560, frames: 512, requests: TakeRequests(stop: 2_816), spans: [Self.span(0, 256, at: 3_072)],
                events: [Self.event(step, 2_560, at: 3_072, -1_536), Self.event(Self.stopped, 2_816, at: 3_328)],
                finished: true, renumbered: -1_536),
        ])
        #expect(planner.position == 3_328)
    }

    @Test("a period change before the start moves nothing and says nothing: the start is on JACK's clock")
    func clockRenumberedBeforeTheStart() {
        run([
            Row(start: 0, frames: 1_024, requests: TakeRequests(start: 3_000), spans: [], events: []),
            Row(start: 2_048, frames: 2_048, requests: TakeRequests(start: 3_000), spans: [Self.span(952, 1_096, at: 0)],
                events: [Self.event(Self.started, 3_000, at: 0)], renumbered: 1_024),
        ])
    }

    @Test("a stop naming a frame in a cycle already planned segmentStarts the take back to it")
    func stopCutBack() {
        let planner = run([
            Row(start: 0, frames: 256, requests: TakeRequests(), spans: [Self.span(0, 256, at: 0)],
                events: [Self.event(Self.started, 0, at: 0)]),
            Row(start: 256, frames: 256, requests: TakeRequests(), spans: [Self.span(0, 256, at: 256)], events: []),
            Row(start: 512, frames: 256, requests: TakeRequests(stop: 400), spans: [],
                events: [Self.event(Self.stopped, 400, at: 400)], finished: true),
        ])
        #expect(planner.position == 400)
        #expect(planner.endFrame == 400)
    }

    @Test("a segmentStart-back never reaches before the last resume")
    func cutBackStopsAtResume() {
        run([
            Row(start: 0, frames: 256, requests: TakeRequests(pause: 100), spans: [Self.span(0, 100, at: 0)],
                events: [Self.event(Self.started, 0, at: 0), Self.event(Self.paused, 100, at: 100)]),
            Row(start: 256, frames: 256, requests: TakeRequests(resume: 500), spans: [Self.span(244, 12, at: 100)],
                events: [Self.event(Self.resumed, 500, at: 100)]),
            Row(start: 512, frames: 256, requests: TakeRequests(stop: 300), spans: [],
                events: [Self.event(Self.stopped, 500, at: 100)], finished: true),
        ])
    }

    @Test("a pause and a resume in one cycle leave two spans with no gap between them in the take")
    func pauseAndResumeInOneCycle() {
        var planner = CyclePlanner()
        _ = planner.plan(cycleStart: 1_000, frames: 256, requests: TakeRequests())
        let plan = planner.plan(cycleStart: 1_256, frames: 256, requests: TakeRequests(pause: 1_300, resume: 1_400))
        #expect(plan.spanCount == 2)
        #expect(plan.spans[0] == Self.span(0, 44, at: 256))
        #expect(plan.spans[1] == Self.span(144, 112, at: 300))
        #expect(plan.consumedPause && plan.consumedResume)
        #expect((0..<plan.eventCount).map { plan.events[$0] }
            == [Self.event(Self.paused, 1_300, at: 300), Self.event(Self.resumed, 1_400, at: 300)])
        #expect(planner.phase == .recording)
        #expect(planner.position == 412)
    }

    @Test("the length counts recorded frames: reached after a pause, on the exact frame")
    func lengthReachedAcrossAPause() {
        run([
            Row(start: 0, frames: 256, requests: TakeRequests(length: 300), spans: [Self.span(0, 256, at: 0)],
                events: [Self.event(Self.started, 0, at: 0)]),
            Row(start: 256, frames: 256, requests: TakeRequests(length: 300, pause: 280), spans: [Self.span(0, 24, at: 256)],
                events: [Self.event(Self.paused, 280, at: 280)]),
            // Paused a whole cycle: the length is not reached by the clock running on.
            Row(start: 512, frames: 256, requests: TakeRequests(length: 300), spans: [], events: []),
            Row(start: 768, frames: 256, requests: TakeRequests(length: 300, resume: 900), spans: [Self.span(132, 20, at: 280)],
                events: [Self.event(Self.resumed, 900, at: 280), Self.event(Self.stopped, 920, at: 300)], finished: true),
        ])
    }

    @Test("a stop while paused ends the take where it paused")
    func stopWhilePaused() {
        run([
            Row(start: 0, frames: 256, requests: TakeRequests(pause: 200), spans: [Self.span(0, 200, at: 0)],
                events: [Self.event(Self.started, 0, at: 0), Self.event(Self.paused, 200, at: 200)]),
            Row(start: 256, frames: 256, requests: TakeRequests(stop: 300), spans: [],
                events: [Self.event(Self.stopped, 256, at: 200)], finished: true),
        ])
    }

    @Test("a stop before the start cancels the take, empty")
    func stopBeforeStart() {
        let planner = run([
            Row(start: 0, frames: 256, requests: TakeRequests(start: 5_000, stop: 4_000), spans: [], events: [], finished: true),
        ])
        #expect(planner.phase == .finished)
        #expect(planner.position == 0)
    }

    @Test("a sample-rate change ends the take at the first frame of the cycle after it")
    func sampleRateChange() {
        run([
            Row(start: 0, frames: 256, requests: TakeRequests(), spans: [Self.span(0, 256, at: 0)],
                events: [Self.event(Self.started, 0, at: 0)]),
            Row(start: 256, frames: 256, requests: TakeRequests(sampleRateChanged: true), spans: [],
                events: [Self.event(Self.stopped, 256, at: 256)], finished: true),
        ])
    }

    @Test("a take that crosses the wrap of JACK's 32-bit frame clock keeps every frame in order")
    func frameClockWraps() {
        let first = UInt32.max - 299
        let requests = TakeRequests(start: Int64(first), length: 1_000)
        let planner = run([
            Row(start: UInt32.max - 767, frames: 256, requests: requests, spans: [], events: []),
            Row(start: UInt32.max - 511, frames: 256, requests: requests, spans: [Self.span(212, 44, at: 0)],
                events: [Self.event(Self.started, first, at: 0)]),
            Row(start: UInt32.max - 255, frames: 256, requests: requests, spans: [Self.span(0, 256, at: 44)], events: []),
            Row(start: 0, frames: 256, requests: requests, spans: [Self.span(0, 256, at: 300)], events: []),
            Row(start: 256, frames: 256, requests: requests, spans: [Self.span(0, 256, at: 556)], events: []),
            Row(start: 512, frames: 256, requests: requests, spans: [Self.span(0, 188, at: 812)],
                events: [Self.event(Self.stopped, 700, at: 1_000)], finished: true),
        ])
        #expect(planner.endFrame == 700)
    }

    @Test("nothing more is planned once the take has finished")
    func afterTheEnd() {
        var planner = CyclePlanner()
        _ = planner.plan(cycleStart: 0, frames: 256, requests: TakeRequests(length: 10))
        let plan = planner.plan(cycleStart: 256, frames: 256, requests: TakeRequests(length: 10))
        #expect(plan.spanCount == 0 && plan.eventCount == 0 && !plan.finished)
        #expect(planner.position == 10)
    }
}
