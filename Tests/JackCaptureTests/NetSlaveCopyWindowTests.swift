import Testing
@testable import JackCapture

@Suite("A NetJACK2 slave's copy that may meet the next period's packets")
struct NetSlaveCopyWindowTests {
    /// 256-frame periods at 48 kHz: 5,333 µs.
    static let frames = 256

    @Test func aCopyEndingInTheFirstHalfOfThePeriodIsOnTime() {
        for end: UInt64 in [1_000_000, 1_000_400, 1_002_665] {
            #expect(!NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: end, cycleBegin: 1_000_000, frames: Self.frames, sampleRate: 48_000))
        }
    }

    @Test func aCopyEndingPastTheMiddleMayHaveMetThem() {
        for end: UInt64 in [1_002_666, 1_005_000, 1_020_000] {
            #expect(NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: end, cycleBegin: 1_000_000, frames: Self.frames, sampleRate: 48_000))
        }
    }

    @Test func nonsenseDecidesNothing() {
        #expect(!NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: .max, cycleBegin: 0, frames: 0, sampleRate: 48_000))
        #expect(!NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: .max, cycleBegin: 0, frames: 256, sampleRate: 0))
        #expect(!NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: .max, cycleBegin: 0, frames: 256, sampleRate: .max))
    }

    @Test func theFirstCallbackIsItsCyclesBegin() {
        var window = NetSlaveCopyWindow()
        #expect(window.cycleBegin(reading: 1_024, calledAt: 5_000_000, sampleRate: 48_000) == 5_000_000)
    }

    @Test func aLateCallbackIsMeasuredFromWhenItsCycleBegan() {
        var window = NetSlaveCopyWindow()
        // On time: 100 µs after each begin, the cycles 5,333 µs apart.
        var time: UInt64 = 5_000_100
        var reading: UInt32 = 0
        for _ in 0..<8 {
            _ = window.cycleBegin(reading: reading, calledAt: time, sampleRate: 48_000)
            reading &+= 256
            time += 5_333
        }
        // Late by 3 ms: its cycle still began on schedule (the bound is the on-time callbacks'
        // carried forward, 1/64 of a period later), so its copy ends past the middle.
        let begin = window.cycleBegin(reading: reading, calledAt: time + 3_000, sampleRate: 48_000)
        #expect(begin >= time && begin <= time + 5_333 / 64)
        #expect(NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: time + 3_050, cycleBegin: begin, frames: 256, sampleRate: 48_000))
        // The next callback, on time again, is on time.
        let next = window.cycleBegin(reading: reading &+ 256, calledAt: time + 5_333, sampleRate: 48_000)
        #expect(!NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: time + 5_400, cycleBegin: next, frames: 256, sampleRate: 48_000))
    }

    @Test func cyclesWhosePhaseMovesLaterAreFollowed() {
        var window = NetSlaveCopyWindow()
        var time: UInt64 = 1_000_000
        var reading: UInt32 = 0
        for _ in 0..<4 {
            _ = window.cycleBegin(reading: reading, calledAt: time, sampleRate: 48_000)
            reading &+= 256
            time += 5_333
        }
        // The link restarted: every cycle from here begins 4 ms later than the old phase.
        time += 4_000
        var begin: UInt64 = 0
        for _ in 0..<64 {
            begin = window.cycleBegin(reading: reading, calledAt: time, sampleRate: 48_000)
            reading &+= 256
            time += 5_333
        }
        #expect(begin == time - 5_333, "caught up with the new phase")
    }

    @Test func aClockThatJumpsIsCarriedByItsFrames() {
        var window = NetSlaveCopyWindow()
        _ = window.cycleBegin(reading: 0, calledAt: 1_000_000, sampleRate: 48_000)
        // An xrun: the clock moved three periods, and so did time.
        let begin = window.cycleBegin(reading: 768, calledAt: 1_016_100, sampleRate: 48_000)
        #expect(begin == 1_016_100)
    }
}
