import Testing
@testable import JackCapture

@Suite("A take followed on the master's clock")
struct MasterClockWatchTests {
    @Test func aSteadyOffsetSaysNothing() {
        var watch = MasterClockWatch(offset: 2_048)
        for cycle in 0..<10 {
            let start = UInt32(1_000_000 + cycle * 1_024)
            #expect(watch.observe(start: start, masterFrame: start + 2_048) == .steady)
        }
        #expect(watch.offset == 2_048)
    }

    @Test func withoutAnOffsetTheFirstCycleSetsIt() {
        var watch = MasterClockWatch()
        #expect(watch.observe(start: 5_000, masterFrame: 3_000) == .steady)
        #expect(watch.offset == 3_000 &- 5_000)
        #expect(watch.observe(start: 6_024, masterFrame: 4_024) == .steady)
    }

    @Test func aMasterXrunIsAJumpOfExactlyItsFrames() {
        var watch = MasterClockWatch(offset: 0)
        #expect(watch.observe(start: 10_240, masterFrame: 10_240) == .steady)
        // The master skipped two periods and a few frames: the next cycle says so, once.
        #expect(watch.observe(start: 11_264, masterFrame: 11_264 + 2_048 + 7) == .jumped(2_055))
        #expect(watch.observe(start: 12_288, masterFrame: 12_288 + 2_055) == .steady)
        #expect(watch.offset == 2_055)
    }

    @Test func aJumpBackIsNegative() {
        var watch = MasterClockWatch(offset: 4_096)
        #expect(watch.observe(start: 100, masterFrame: 100 + 1_024) == .jumped(-3_072))
    }

    @Test func jumpsAcrossTheClocksWrap() {
        var watch = MasterClockWatch(offset: UInt32.max - 100)
        #expect(watch.observe(start: 500, masterFrame: 500 &+ (UInt32.max - 100)) == .steady)
        #expect(watch.observe(start: 1_524, masterFrame: 1_524 &+ (UInt32.max - 100) &+ 1_124) == .jumped(1_124))
        #expect(watch.offset == (UInt32.max - 100) &+ 1_124)
    }

    @Test func anUnreadableCycleSaysSoAndKeepsTheOffset() {
        var watch = MasterClockWatch(offset: 64)
        #expect(watch.observe(start: 1_024, masterFrame: nil) == .unreadable)
        #expect(watch.offset == 64)
        #expect(watch.observe(start: 2_048, masterFrame: 2_112) == .steady)
    }
}
