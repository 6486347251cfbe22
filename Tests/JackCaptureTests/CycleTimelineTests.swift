import Testing
@testable import JackCapture

/// The rule that finds each cycle's true frame time from what late and on-time callbacks read.
@Suite("Cycle timeline: true frame times from the callbacks' readings")
struct CycleTimelineTests {
    /// Feeds `readings` (one cycle of `period` frames each) through a timeline the way the
    /// process callback does, placing each cycle once `lookahead` more have been read and the
    /// rest at the end; returns where each was placed.
    func placements(of readings: [UInt32], period: Int = 256) -> [CyclePlacement] {
        var timeline = CycleTimeline()
        var found: [CyclePlacement] = []
        for reading in readings {
            timeline.append(PendingCycle(reading: reading, frames: period))
            if timeline.isFull { found.append(timeline.placeOldest().placement) }
        }
        while timeline.count > 0 { found.append(timeline.placeOldest().placement) }
        return found
    }

    func frameTimes(of readings: [UInt32], period: Int = 256) -> [UInt32] {
        placements(of: readings, period: period).map(\.start)
    }

    /// The cycles placed by a guess.
    func guessed(_ readings: [UInt32]) -> [Int] {
        placements(of: readings).enumerated().filter(\.element.guessed).map(\.offset)
    }

    @Test("on-time callbacks: every reading is the cycle's frame time, nothing guessed")
    func onTime() {
        #expect(frameTimes(of: [0, 256, 512, 768]) == [0, 256, 512, 768])
        #expect(guessed([0, 256, 512, 768]) == [])
    }

    @Test("a late callback reads the next cycle's time, and the catch-up run reads it again: no gap, nothing guessed")
    func lateThenCatchUp() {
        // JACK 2, futex wake-ups: F(k-1), F(k+1), F(k+1).
        #expect(frameTimes(of: [0, 512, 512, 768, 1_024]) == [0, 256, 512, 768, 1_024])
        #expect(guessed([0, 512, 512, 768, 1_024]) == [])
    }

    @Test("two late callbacks in a row (counting semaphores save two wake-ups): no gap, confirmed by a later reading")
    func twoLateInARow() {
        #expect(frameTimes(of: [0, 768, 768, 768, 1_024, 1_280]) == [0, 256, 512, 768, 1_024, 1_280])
        #expect(guessed([0, 768, 768, 768, 1_024, 1_280]) == [])
    }

    @Test("a jump every later reading confirms is a gap: the frames never arrived; the cycle after it may belong earlier")
    func realGap() {
        #expect(frameTimes(of: [0, 768, 1_024, 1_280]) == [0, 768, 1_024, 1_280])
        // A late callback followed by a loss reads the same: the cycle after the jump is a guess.
        #expect(guessed([0, 768, 1_024, 1_280]) == [1])
    }

    @Test("a gap after a late callback: the late cycle lands one period late, and is reported as a guess")
    func gapAfterALateCallback() {
        // True times 0, 256, (512 lost), 768, 1024: the cycle at 256 read 512.
        #expect(frameTimes(of: [0, 512, 768, 1_024]) == [0, 512, 768, 1_024])
        #expect(guessed([0, 512, 768, 1_024]) == [1])
    }

    @Test("a run of late callbacks as long as the lookahead: placed right, but only the newest reading says so")
    func asLongAsTheLookahead() {
        // True times 0, 256, 512, 768, 1024; the second to fourth callbacks all ran very late.
        let readings: [UInt32] = [0, 1_024, 1_024, 1_024, 1_024, 1_280, 1_536, 1_792]
        #expect(frameTimes(of: readings) == [0, 256, 512, 768, 1_024, 1_280, 1_536, 1_792])
        #expect(guessed(readings) == [1])
    }

    @Test("a run longer than the lookahead: the placement found late is put back on the clock, overlapping frames dropped, the stretch reported")
    func longerThanTheLookahead() {
        // True times 0, 256, ..., 1536; the second to fifth callbacks read 1280.
        let readings: [UInt32] = [0, 1_280, 1_280, 1_280, 1_280, 1_280, 1_536]
        let placed = placements(of: readings)
        #expect(placed.map(\.start) == [0, 512, 512, 768, 1_024, 1_280, 1_536])
        // The cycle at 256 reads as one after a gap, placed at 512: a guess. The next one's true
        // time, 512, proves it late: its frames all fall on frames placed already.
        #expect(placed[1].guessed)
        #expect(placed[2].overlap == 256)
        #expect(placed[2].misplacedBefore == 256)
        #expect(placed[3...].allSatisfy { $0.overlap == 0 && $0.misplacedBefore == 0 && !$0.guessed })
    }

    @Test("every placement is at or after the cycle's true time, and no frame is placed twice")
    func neverEarlyNeverTwice() {
        // Random runs of late callbacks and losses over true times k × 256.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var truths: [UInt32] = []
            var readings: [UInt32] = []
            var time: UInt32 = 0
            for _ in 0..<40 {
                if Int.random(in: 0..<6, using: &generator) == 0 { time += 256 }   // a cycle no client saw
                truths.append(time)
                time += 256
            }
            // Each callback reads its cycle's time or a later one, never past the next callback's.
            for (index, truth) in truths.enumerated() {
                let lateness = UInt32(Int.random(in: 0..<4, using: &generator) == 0 ? Int.random(in: 1...5, using: &generator) : 0) * 256
                let limit = index + 1 < truths.count ? truths[index + 1] + 5 * 256 : truth + 5 * 256
                readings.append(min(truth + lateness, limit))
            }
            // Readings never go back more than the catch-up allows: keep them non-decreasing.
            for index in readings.indices.dropFirst() where readings[index] < readings[index - 1] {
                readings[index] = max(readings[index - 1], truths[index])
            }
            var end: UInt32?
            for (placement, truth) in zip(placements(of: readings), truths) {
                #expect(placement.start >= truth, "placed early: \(readings)")
                let used = placement.start + UInt32(placement.overlap)
                if let end { #expect(used >= end || placement.overlap == 256, "placed twice: \(readings)") }
                end = max(end ?? 0, placement.start + 256)
            }
        }
    }

    @Test("the rule holds across the wrap of the 32-bit clock")
    func wraps() {
        let a = UInt32.max - 255
        #expect(frameTimes(of: [a, 256, 256, 512, 768]) == [a, 0, 256, 512, 768])
    }

    /// Places cycles of the given readings and frame counts, each marked renumbered as the process
    /// callback marks it (`PendingCycle.renumbering`), or none with `renumbering` false.
    func placements(ofCycles cycles: [(reading: UInt32, frames: Int)], renumbering: Bool = true) -> [CyclePlacement] {
        var timeline = CycleTimeline()
        var found: [CyclePlacement] = []
        var last = (frames: 0, reading: UInt32(0))
        for (reading, frames) in cycles {
            var cycle = PendingCycle(reading: reading, frames: frames)
            if renumbering {
                cycle.renumbered = PendingCycle.renumbering(frames: frames, reading: reading, lastFrames: last.frames,
                                                            lastReading: last.reading)
            }
            last = (frames, reading)
            timeline.append(cycle)
            if timeline.isFull { found.append(timeline.placeOldest().placement) }
        }
        while timeline.count > 0 { found.append(timeline.placeOldest().placement) }
        return found
    }

    @Test("period changes JACK 2 numbers anew: every cycle where JACK's clock put it, nothing guessed, overlapped or late")
    func periodChanges() {
        // Measured (tools/period-change): 1024 -> 2048 frames steps +1,024, 2048 -> 512 steps -1,536.
        let cycles: [(reading: UInt32, frames: Int)] = [(0, 1_024), (1_024, 1_024), (3_072, 2_048), (5_120, 2_048),
                                                        (7_168, 2_048), (7_680, 512), (8_192, 512), (8_704, 512), (9_216, 512)]
        let placed = placements(ofCycles: cycles)
        #expect(placed.map(\.start) == cycles.map(\.reading))
        #expect(placed.allSatisfy { !$0.guessed && $0.overlap == 0 && $0.misplacedBefore == 0 })
        // Taken for late readings, the step back pulls the cycles before it 1,536 frames early
        // and reports the stretch since the step ahead as placed late: what jcap did before.
        let unmarked = placements(ofCycles: cycles, renumbering: false)
        #expect(unmarked[3].start == 5_120 - 1_536)
        #expect(unmarked.contains { $0.misplacedBefore > 0 })
    }

    @Test("a period change is a renumbering when the readings show JACK 2's step, not when they count on by the old period")
    func renumbering() {
        // JACK 2, measured: the new period's first cycle read one new period after the last reading.
        #expect(PendingCycle.renumbering(frames: 2_048, reading: 2_048, lastFrames: 1_024, lastReading: 0) == 1_024)
        #expect(PendingCycle.renumbering(frames: 512, reading: 7_680, lastFrames: 2_048, lastReading: 7_168) == -1_536)
        // The new cycle's callback ran late and read the next cycle's time: still JACK 2's step.
        #expect(PendingCycle.renumbering(frames: 512, reading: 8_192, lastFrames: 2_048, lastReading: 7_168) == -1_536)
        // Counting on by the old period (a server that does not renumber): no step.
        #expect(PendingCycle.renumbering(frames: 2_048, reading: 1_024, lastFrames: 1_024, lastReading: 0) == 0)
        #expect(PendingCycle.renumbering(frames: 512, reading: 9_216, lastFrames: 2_048, lastReading: 7_168) == 0)
        // The same period, or no cycle before: no step; across the 32-bit clock's wrap as anywhere.
        #expect(PendingCycle.renumbering(frames: 1_024, reading: 5_000, lastFrames: 1_024, lastReading: 0) == 0)
        #expect(PendingCycle.renumbering(frames: 2_048, reading: 2_048, lastFrames: 0, lastReading: 0) == 0)
        #expect(PendingCycle.renumbering(frames: 2_048, reading: 1_024, lastFrames: 1_024, lastReading: UInt32.max - 1_023) == 1_024)
    }

    @Test("a server that counts on by the old period across a change: every cycle on its reading, nothing marked")
    func periodChangesCountedOn() {
        let cycles: [(reading: UInt32, frames: Int)] = [(0, 1_024), (1_024, 1_024), (2_048, 2_048), (4_096, 2_048),
                                                        (6_144, 2_048), (8_192, 512), (8_704, 512), (9_216, 512)]
        let placed = placements(ofCycles: cycles)
        #expect(placed.map(\.start) == cycles.map(\.reading))
        #expect(placed.allSatisfy { !$0.guessed && $0.overlap == 0 && $0.misplacedBefore == 0 })
    }

    @Test("a late callback at a period change is still put back where it belongs")
    func lateAtAPeriodChange() {
        // The first 512-frame cycle (true 7,680) ran late and read the next cycle's time.
        let cycles: [(reading: UInt32, frames: Int)] = [(3_072, 2_048), (5_120, 2_048), (7_168, 2_048), (8_192, 512),
                                                        (8_192, 512), (8_704, 512), (9_216, 512)]
        #expect(placements(ofCycles: cycles).map(\.start) == [3_072, 5_120, 7_168, 7_680, 8_192, 8_704, 9_216])
    }

    @Test("staged bytes and pending frames add up over the cycles held")
    func sums() {
        var timeline = CycleTimeline()
        timeline.append(PendingCycle(reading: 0, frames: 256, stagedBytes: 100))
        timeline.append(PendingCycle(reading: 256, frames: 512, stagedBytes: 0))
        timeline.append(PendingCycle(reading: 768, frames: 128, stagedBytes: 50))
        #expect(!timeline.isFull)
        timeline.append(PendingCycle(reading: 896, frames: 64, stagedBytes: 10))
        #expect(timeline.isFull)
        #expect(timeline.stagedBytes == 160)
        #expect(timeline.pendingFrames == 960)
        _ = timeline.placeOldest()
        #expect(timeline.stagedBytes == 60)
        #expect(!timeline.isFull)
    }

    @Test("marking the newest cycle marks the one the last callback read, and nothing when none is held")
    func markingTheNewestCycle() {
        var timeline = CycleTimeline()
        timeline.markNewestCopyMetNextPackets()
        #expect(timeline.count == 0)
        for reading: UInt32 in [0, 256, 512] { timeline.append(PendingCycle(reading: reading, frames: 256)) }
        timeline.markNewestCopyMetNextPackets()
        #expect((0..<3).map { timeline[$0].copyMetNextPackets } == [false, false, true])
        timeline.append(PendingCycle(reading: 768, frames: 256))
        let oldest = timeline.placeOldest()
        #expect(!oldest.cycle.copyMetNextPackets)
        #expect((0..<3).map { timeline[$0].copyMetNextPackets } == [false, true, false])
    }
}
