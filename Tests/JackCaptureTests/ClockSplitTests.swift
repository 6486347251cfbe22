import Testing
@testable import JackCapture

@Suite("A split boundary's frame is decided in the cycle it falls in (ClockSplit)")
struct ClockSplitTests {
    /// A cycle of 1024 frames at 48 kHz: 21,333 µs by the server's estimate.
    let cycle = CycleTimes(frame: 4_096, microseconds: 10_000_000, nextMicroseconds: 10_021_333)
    let start: Int64 = 10_000_000_000
    let span: Int64 = 21_333_000

    @Test("within and after the cycle: exactly as a wall-clock start (the same frame in every recorder)")
    func asAStart() {
        for moment in [start, start + 1, start + span / 2, start + span - 1, start + span, start + 5 * span] {
            for first in [true, false] {
                #expect(ClockSplit.decide(nanoseconds: moment, in: cycle, frames: 1_024, firstCycle: first)
                        == ClockStart.decide(nanoseconds: moment, in: cycle, frames: 1_024, firstCycle: first))
            }
        }
    }

    @Test("before the cycle after a `later`: this cycle's first frame, as a start")
    func correctedByTheLoop() {
        #expect(ClockSplit.decide(nanoseconds: start - 5, in: cycle, frames: 1_024, firstCycle: false) == .frame(4_096))
        #expect(ClockSplit.decide(nanoseconds: start - 3 * span, in: cycle, frames: 1_024, firstCycle: false) == .frame(4_096))
    }

    @Test("already passed when first asked: the first frame at or after it, counted back at the cycle's rate")
    func countedBack() {
        // Frame -k's time is start - k × span / 1024, rounded here to the nanosecond at or before it.
        for k in [1, 2, 100, 1_023, 1_024, 5_000] {
            let exact = start - (Int64(k) * span + 1_023) / 1_024
            #expect(ClockSplit.decide(nanoseconds: exact, in: cycle, frames: 1_024, firstCycle: true)
                    == .frame(FrameTime.advance(4_096, by: -k)), "k = \(k)")
        }
        // Just after frame -1's time: frame 0 (the first at or after it).
        #expect(ClockSplit.decide(nanoseconds: start - 10, in: cycle, frames: 1_024, firstCycle: true) == .frame(4_096))
        // Ten seconds before: 480,007 frames back.
        guard case .frame(let back) = ClockSplit.decide(nanoseconds: 1, in: cycle, frames: 1_024, firstCycle: true)
        else { Issue.record("expected a frame"); return }
        #expect(FrameTime.distance(from: cycle.frame, to: back) == -480_007)
        // Days before: 2^30 frames back (past any take's start), never wrapped into the future.
        let later = CycleTimes(frame: 4_096, microseconds: 864_000_000_000, nextMicroseconds: 864_000_021_333)
        guard case .frame(let long) = ClockSplit.decide(nanoseconds: 1, in: later, frames: 1_024, firstCycle: true)
        else { Issue.record("expected a frame"); return }
        #expect(FrameTime.distance(from: later.frame, to: long) == -(1 << 30))
    }
}
