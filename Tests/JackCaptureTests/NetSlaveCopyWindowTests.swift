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
        #expect(window.cycleBegin(reading: 1_024, frames: 256, calledAt: 5_000_000, sampleRate: 48_000) == 5_000_000)
    }

    @Test func aLateCallbackIsMeasuredFromWhenItsCycleBegan() {
        var window = NetSlaveCopyWindow()
        // On time: 100 µs after each begin, the cycles 5,333 µs apart.
        var time: UInt64 = 5_000_100
        var reading: UInt32 = 0
        for _ in 0..<8 {
            _ = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
            reading &+= 256
            time += 5_333
        }
        // Late by 3 ms: its cycle still began on schedule (the on-time callbacks carried forward),
        // so its copy ends past the middle.
        let begin = window.cycleBegin(reading: reading, frames: 256, calledAt: time + 3_000, sampleRate: 48_000)
        #expect(begin >= time - 8 && begin <= time)
        #expect(NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: time + 3_050, cycleBegin: begin, frames: 256, sampleRate: 48_000))
        // The next callback, on time again, is on time.
        let next = window.cycleBegin(reading: reading &+ 256, frames: 256, calledAt: time + 5_333, sampleRate: 48_000)
        #expect(!NetSlaveCopyWindow.copyMayHaveMetNextPackets(endedAt: time + 5_400, cycleBegin: next, frames: 256, sampleRate: 48_000))
    }

    @Test func cyclesWhosePhaseMovesLaterAreFollowed() {
        var window = NetSlaveCopyWindow()
        var time: UInt64 = 1_000_000
        var reading: UInt32 = 0
        for _ in 0..<4 {
            _ = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
            reading &+= 256
            time += 5_333
        }
        // The link restarted: every cycle from here begins 4 ms later than the old phase.
        time += 4_000
        var begin: UInt64 = 0
        for _ in 0..<NetSlaveCopyWindow.window {
            begin = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
            reading &+= 256
            time += 5_333
        }
        #expect(begin == time - 5_333, "caught up with the new phase")
    }

    @Test func aRunOfLateCallbacksShorterThanTheWindowIsMeasuredFromThePhase() {
        var window = NetSlaveCopyWindow()
        var reading: UInt32 = 0
        for cycle in 0..<40 {
            let onTime = 1_000_000 + UInt64(cycle) * 256 * 1_000_000 / 48_000
            // Cycles 20 to 29 run 3 ms late.
            let late: UInt64 = (20..<30).contains(cycle) ? 3_000 : 0
            let begin = window.cycleBegin(reading: reading, frames: 256, calledAt: onTime + late, sampleRate: 48_000)
            #expect(begin <= onTime && begin + 16 >= onTime)
            reading &+= 256
        }
    }

    @Test func aClockThatJumpsIsCarriedByItsFrames() {
        var window = NetSlaveCopyWindow()
        _ = window.cycleBegin(reading: 0, frames: 256, calledAt: 1_000_000, sampleRate: 48_000)
        // An xrun: the clock jumped; the cycles after it are measured from the first after it.
        #expect(window.cycleBegin(reading: 768, frames: 256, calledAt: 1_016_700, sampleRate: 48_000) == 1_016_700)
        #expect(window.cycleBegin(reading: 1_024, frames: 256, calledAt: 1_022_033, sampleRate: 48_000) == 1_022_033)
    }

    @Test func catchingUpOnQueuedPacketsCarriesNoPhase() {
        var window = NetSlaveCopyWindow()
        var reading: UInt32 = 0
        // A dropout: the slave's clock jumps; then two cycles at once (queued packets), then the
        // master's phase, 2 ms after the first.
        _ = window.cycleBegin(reading: reading, frames: 256, calledAt: 1_000_000, sampleRate: 48_000)
        reading &+= 256
        _ = window.cycleBegin(reading: reading, frames: 256, calledAt: 1_000_050, sampleRate: 48_000)
        reading &+= 256
        let onPhase = window.cycleBegin(reading: reading, frames: 256, calledAt: 1_000_000 + 2 * 5_333, sampleRate: 48_000)
        #expect(onPhase == 1_000_000 + 2 * 5_333)
        // A late one after them is measured from that phase.
        reading &+= 256
        let late = window.cycleBegin(reading: reading, frames: 256, calledAt: 1_000_000 + 3 * 5_333 + 3_000, sampleRate: 48_000)
        #expect(late + 2 >= 1_000_000 + 3 * 5_333 && late <= 1_000_000 + 3 * 5_333 + 1)
    }

    @Test func aCallbackAtOnceAfterTheOneBeforeSaysTheOneBeforeMayHaveMetItsPackets() {
        var window = NetSlaveCopyWindow()
        var reading: UInt32 = 0
        var time: UInt64 = 1_000_000
        // On time, 5,333 µs apart: none came at once.
        for _ in 0..<4 {
            _ = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
            #expect(!window.cameAtOnce)
            reading &+= 256
            time += 5_333
        }
        // A dropout: the clock jumps 2 periods after a stall; that callback came late, not at once.
        reading &+= 512
        time += 900_000
        _ = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
        #expect(!window.cameAtOnce)
        // Then the queued packets: the next callback 60 µs after that one's.
        reading &+= 256
        time += 60
        _ = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
        #expect(window.cameAtOnce)
        // Just under half a period after it, still at once; half a period or more, not.
        reading &+= 256
        time += 2_665
        _ = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
        #expect(window.cameAtOnce)
        reading &+= 256
        time += 2_667
        _ = window.cycleBegin(reading: reading, frames: 256, calledAt: time, sampleRate: 48_000)
        #expect(!window.cameAtOnce)
    }

    @Test func aCallbackAtOnceAcrossAJumpStillCameAtOnce() {
        var window = NetSlaveCopyWindow()
        _ = window.cycleBegin(reading: 0, frames: 256, calledAt: 1_000_000, sampleRate: 48_000)
        // The clock moved 3 periods, but the callback ran 100 µs after the one before.
        _ = window.cycleBegin(reading: 768, frames: 256, calledAt: 1_000_100, sampleRate: 48_000)
        #expect(window.cameAtOnce)
        // Nonsense decides nothing, and says nothing came at once.
        _ = window.cycleBegin(reading: 1_024, frames: 0, calledAt: 1_000_150, sampleRate: 48_000)
        #expect(!window.cameAtOnce)
    }
}
