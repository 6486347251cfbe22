import Testing
@testable import JackCapture

@Suite("NetJACK2 link dropouts")
struct LinkDropoutTests {
    @Test func theMeasuredDropoutIsAboutTheMastersPeriods() {
        // Measured (1024-frame periods, 48 kHz): 1,027,176 µs between two slave callbacks whose
        // clock advanced 3 periods.
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 1_027_176, clockFrames: 3_072, period: 1_024, sampleRate: 48_000)
                == 45 * 1_024)
    }

    @Test func onTimeAndLateCallbacksAreNoDropout() {
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 21_333, clockFrames: 1_024, period: 1_024, sampleRate: 48_000) == 0)
        // A callback one period late, and one read twice in a row (0 µs, the clock one period on).
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 42_666, clockFrames: 1_024, period: 1_024, sampleRate: 48_000) == 0)
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 0, clockFrames: 1_024, period: 1_024, sampleRate: 48_000) == 0)
        // An xrun's jump that the clock counted: no frame missing from it.
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 106_666, clockFrames: 5_120, period: 1_024, sampleRate: 48_000) == 0)
    }

    @Test func twoPeriodsOrMoreAreReportedInWholePeriods() {
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 63_999, clockFrames: 1_024, period: 1_024, sampleRate: 48_000) == 2_048)
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 100_000, clockFrames: 256, period: 256, sampleRate: 48_000) == 18 * 256)
    }

    @Test func nonsenseInputsAreNoDropout() {
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: .max, clockFrames: 0, period: 0, sampleRate: 48_000) == 0)
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 1_000_000, clockFrames: 0, period: 1_024, sampleRate: 0) == 0)
        #expect(LinkDropout.missedFrames(elapsedMicroseconds: 1_000, clockFrames: 1_000_000, period: 1_024, sampleRate: 48_000) == 0)
    }

    /// The callbacks measured around a 100 ms dropout (1024-frame periods, 48 kHz), and when each
    /// ran (µs from the last one before the stall). The readings were 0, 3072, 3072 (a callback
    /// that came at once), 4096, ...; the cycle timeline places them 0, 2048, 3072, 4096, ...
    static let measured: [(start: UInt32, time: UInt64)] = [
        (0, 0), (2_048, 1_027_176), (3_072, 1_027_177), (4_096, 1_027_205), (5_120, 1_045_256), (6_144, 1_066_633),
        (7_168, 1_087_942), (8_192, 1_109_316), (9_216, 1_130_603), (10_240, 1_151_962), (11_264, 1_173_265),
    ]

    @Test func theWatchSaysTheDropoutOnceTheCatchUpIsOverWithTheLeastEstimate() {
        var watch = LinkDropoutWatch()
        #expect(watch.observe(start: 4_294_966_272, time: 1_000_000_000 - 21_311, frames: 1_024, position: 0, sampleRate: 48_000) == nil)
        var said: [LinkDropout] = []
        for (index, cycle) in Self.measured.enumerated() {
            if let dropout = watch.observe(start: cycle.start, time: 1_000_000_000 + cycle.time, frames: 1_024,
                                           position: 76_800 + Int64(index) * 1_024, sampleRate: 48_000) {
                said.append(dropout)
            }
        }
        // 46 periods on the first callback after the stall, 44 once the ones that came at once
        // were past: the 44 the file showed. Said at the first cycle after the stall.
        #expect(said.map(\.frames) == [44 * 1_024])
        #expect(said.map(\.position) == [76_800 + 1_024])
        #expect(watch.pending == nil)
    }

    @Test func aTakeEndingWhileTheDropoutSettlesSaysItAsItStands() {
        var watch = LinkDropoutWatch()
        for (index, cycle) in Self.measured.prefix(3).enumerated() {
            #expect(watch.observe(start: cycle.start, time: cycle.time, frames: 1_024, position: Int64(index) * 1_024,
                                  sampleRate: 48_000) == nil)
        }
        // The least of 46 and 45: the catch-up not yet over.
        let finished = watch.finish()?.frames ?? -1
        #expect(finished == 45 * 1_024)
        let again = watch.finish()
        #expect(again == nil)
    }

    @Test func steadyCyclesAndCyclesOutsideTheTakeStartNone() {
        var watch = LinkDropoutWatch()
        for index in 0..<100 {
            let start = UInt32(index * 1_024), time = UInt64(index) * 21_333 + UInt64(index % 3) * 4_000
            #expect(watch.observe(start: start, time: time, frames: 1_024, position: Int64(index) * 1_024, sampleRate: 48_000) == nil)
        }
        // A stall while no frame of the take is in the cycle (before the start, paused).
        #expect(watch.observe(start: 102_400, time: 100 * 21_333 + 1_000_000, frames: 1_024, position: nil, sampleRate: 48_000) == nil)
        #expect(watch.pending == nil && watch.finish() == nil)
    }
}
