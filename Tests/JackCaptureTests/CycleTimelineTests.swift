import Testing
@testable import JackCapture

/// The rule that finds each cycle's true frame time from what late and on-time callbacks read.
@Suite("Cycle timeline: true frame times from the callbacks' readings")
struct CycleTimelineTests {
    /// Feeds `readings` (one cycle of `period` frames each) through a timeline the way the
    /// process callback does, planning each cycle once `lookahead` more have been read and the
    /// rest at the end; returns the frame time found for each.
    func frameTimes(of readings: [UInt32], period: Int = 256) -> [UInt32] {
        var timeline = CycleTimeline()
        var previousEnd: UInt32?
        var found: [UInt32] = []
        func planOldest() {
            let start = timeline.startOfOldest(after: previousEnd)
            let cycle = timeline.removeOldest()
            found.append(start)
            previousEnd = FrameTime.advance(start, by: cycle.frames)
        }
        for reading in readings {
            timeline.append(PendingCycle(reading: reading, frames: period))
            if timeline.isFull { planOldest() }
        }
        while timeline.count > 0 { planOldest() }
        return found
    }

    @Test("on-time callbacks: every reading is the cycle's frame time")
    func onTime() {
        #expect(frameTimes(of: [0, 256, 512, 768]) == [0, 256, 512, 768])
    }

    @Test("a late callback reads the next cycle's time, and the catch-up run reads it again: no gap")
    func lateThenCatchUp() {
        // JACK 2, futex wake-ups: F(k-1), F(k+1), F(k+1).
        #expect(frameTimes(of: [0, 512, 512, 768, 1_024]) == [0, 256, 512, 768, 1_024])
    }

    @Test("two late callbacks in a row (counting semaphores save two wake-ups): no gap")
    func twoLateInARow() {
        #expect(frameTimes(of: [0, 768, 768, 768, 1_024]) == [0, 256, 512, 768, 1_024])
    }

    @Test("a jump every later reading confirms is a real gap: the frames never arrived")
    func realGap() {
        #expect(frameTimes(of: [0, 768, 1_024, 1_280]) == [0, 768, 1_024, 1_280])
    }

    @Test("a gap after a late callback: the late cycle lands one period early, nothing after it moves")
    func gapAfterALateCallback() {
        #expect(frameTimes(of: [0, 512, 768, 1_024]) == [0, 512, 768, 1_024])
    }

    @Test("a run of late callbacks longer than the lookahead reads as a gap; no cycle then overlaps the one before")
    func longerThanTheLookahead() {
        // True times 0, 256, 512, 768, 1024; the second to fourth callbacks all ran very late.
        #expect(frameTimes(of: [0, 1_024, 1_024, 1_024, 1_024]) == [0, 512, 768, 1_024, 1_280])
    }

    @Test("the rule holds across the wrap of the 32-bit clock")
    func wraps() {
        let a = UInt32.max - 255
        #expect(frameTimes(of: [a, 256, 256, 512]) == [a, 0, 256, 512])
    }

    @Test("staged bytes and pending frames add up over the cycles held")
    func sums() {
        var timeline = CycleTimeline()
        timeline.append(PendingCycle(reading: 0, frames: 256, stagedBytes: 100))
        timeline.append(PendingCycle(reading: 256, frames: 512, stagedBytes: 0))
        timeline.append(PendingCycle(reading: 768, frames: 128, stagedBytes: 50))
        #expect(timeline.isFull)
        #expect(timeline.stagedBytes == 150)
        #expect(timeline.pendingFrames == 896)
        _ = timeline.removeOldest()
        #expect(timeline.stagedBytes == 50)
        #expect(!timeline.isFull)
    }
}
