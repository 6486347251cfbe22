import Testing
@testable import JackCapture

@Suite("Where a take started at once begins")
struct ImmediateStartTests {
    @Test("no floor, no delay: the first cycle's first frame")
    func firstCycle() {
        #expect(ImmediateStart.firstFrame(alignedReading: 48_000, floor: -1, alignment: 0, longestDelay: 0) == 48_000)
    }

    @Test("a floor ahead of the first cycle (a NetJACK2 link not yet carrying audio) is the start")
    func floorAhead() {
        #expect(ImmediateStart.firstFrame(alignedReading: 48_000, floor: 52_096, alignment: 0, longestDelay: 0) == 52_096)
    }

    @Test("a floor the first cycle has passed (a late callback) starts on the cycle, never missed")
    func floorPassed() {
        #expect(ImmediateStart.firstFrame(alignedReading: 60_000, floor: 52_096, alignment: 0, longestDelay: 0) == 60_000)
    }

    @Test("the floor is a JACK frame: the take's frames run `alignment` behind it; delays come after")
    func alignedAndDelayed() {
        #expect(ImmediateStart.firstFrame(alignedReading: 47_900, floor: 52_096, alignment: 100, longestDelay: 64)
                    == 52_096 - 100 + 64)
        #expect(ImmediateStart.firstFrame(alignedReading: 60_000, floor: -1, alignment: 100, longestDelay: 64) == 60_064)
    }

    @Test("across the wrap of JACK's 32-bit frame counter")
    func wraps() {
        let reading = UInt32.max - 1_000
        #expect(ImmediateStart.firstFrame(alignedReading: reading, floor: 3_000, alignment: 0, longestDelay: 0) == 3_000)
        #expect(ImmediateStart.firstFrame(alignedReading: 3_000, floor: Int64(reading), alignment: 0, longestDelay: 0) == 3_000)
    }
}
