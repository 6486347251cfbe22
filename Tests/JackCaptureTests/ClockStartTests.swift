import Testing
@testable import JackCapture

@Suite("A wall-clock start's frame is decided in the cycle it falls in (ClockStart)")
struct ClockStartTests {
    /// A cycle of 1024 frames at 48 kHz: 21,333 µs by the server's estimate.
    let cycle = CycleTimes(frame: 4_096, microseconds: 10_000_000, nextMicroseconds: 10_021_333)
    let start: Int64 = 10_000_000_000
    let span: Int64 = 21_333_000

    @Test("a moment after the cycle is decided later")
    func later() {
        #expect(ClockStart.decide(nanoseconds: start + span, in: cycle, frames: 1_024, firstCycle: true) == .later)
        #expect(ClockStart.decide(nanoseconds: start + 10 * span, in: cycle, frames: 1_024, firstCycle: false) == .later)
    }

    @Test("the first frame at or after the moment: the cycle's frames spread evenly over its time")
    func firstFrameAtOrAfter() {
        #expect(ClockStart.decide(nanoseconds: start, in: cycle, frames: 1_024, firstCycle: true) == .frame(4_096))
        #expect(ClockStart.decide(nanoseconds: start + 1, in: cycle, frames: 1_024, firstCycle: true) == .frame(4_097))
        // Frame k's time is start + k × span / 1024 (20,833 ns apart here).
        for k in [1, 2, 100, 512, 1_023] {
            let exact = start + Int64(k) * span / 1_024
            #expect(ClockStart.decide(nanoseconds: exact, in: cycle, frames: 1_024, firstCycle: true)
                    == .frame(4_096 + UInt32(k)))
            #expect(ClockStart.decide(nanoseconds: exact + 1, in: cycle, frames: 1_024, firstCycle: true)
                    == .frame(4_096 + UInt32(k) + 1))
        }
        // After the last frame's time, before the next cycle: the next cycle's first frame.
        #expect(ClockStart.decide(nanoseconds: start + span - 1, in: cycle, frames: 1_024, firstCycle: false)
                == .frame(4_096 + 1_024))
    }

    @Test("the frame never goes backwards as the moment moves forwards, and stays within the cycle")
    func monotone() {
        var previous = 0
        var moment = start
        while moment < start + span {
            guard case .frame(let frame) = ClockStart.decide(nanoseconds: moment, in: cycle, frames: 1_024, firstCycle: true)
            else { Issue.record("decided later inside the cycle at \(moment)"); return }
            let offset = FrameTime.distance(from: cycle.frame, to: frame)
            #expect(offset >= previous && offset <= 1_024)
            previous = offset
            moment += 997
        }
    }

    @Test("before the cycle: a missed start in the first cycle asked, this cycle's first frame after a `later`")
    func beforeTheCycle() {
        guard case .frame(let missed) = ClockStart.decide(nanoseconds: start - 5, in: cycle, frames: 1_024, firstCycle: true)
        else { Issue.record("expected a frame"); return }
        #expect(FrameTime.distance(from: cycle.frame, to: missed) < 0)
        // Days before: still read as passed, not as 32-bit wrapped into the future.
        guard case .frame(let long) = ClockStart.decide(nanoseconds: 1, in: cycle, frames: 1_024, firstCycle: true)
        else { Issue.record("expected a frame"); return }
        #expect(FrameTime.distance(from: cycle.frame, to: long) < 0)
        // The loop moved this cycle's time past a moment the previous cycle put after itself.
        #expect(ClockStart.decide(nanoseconds: start - 5, in: cycle, frames: 1_024, firstCycle: false) == .frame(4_096))
    }

    @Test("across the wrap of JACK's 32-bit frame clock")
    func wrap() {
        let wrapping = CycleTimes(frame: UInt32.max - 99, microseconds: 10_000_000, nextMicroseconds: 10_021_333)
        #expect(ClockStart.decide(nanoseconds: start + span / 2, in: wrapping, frames: 1_024, firstCycle: true)
                == .frame(UInt32(512 - 100)))
    }

    @Test("a cycle without times (a server that gives none) decides nothing")
    func noTimes() {
        let empty = CycleTimes(frame: 0, microseconds: 0, nextMicroseconds: 0)
        #expect(ClockStart.decide(nanoseconds: 0, in: empty, frames: 1_024, firstCycle: true) == .later)
        #expect(ClockStart.decide(nanoseconds: start, in: cycle, frames: 0, firstCycle: true) == .later)
    }
}
