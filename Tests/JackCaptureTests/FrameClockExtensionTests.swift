import Testing
@testable import JackCapture

@Suite("JACK's frame clock without wrapping")
struct FrameClockExtensionTests {
    @Test("counts wraps of the 32-bit frame time and never reads 0")
    func wraps() {
        var clock = FrameClockExtension()
        #expect(clock.extend(0) == 1, "frame 0 reads as one frame, never 0")
        #expect(clock.extend(4_000) == 4_000)
        #expect(clock.extend(2_000_000_000) == 2_000_000_000)
        #expect(clock.extend(4_000_000_000) == 4_000_000_000)
        #expect(clock.extend(100) == (1 << 32) + 100, "wrapped once")
        #expect(clock.extend(50) == (1 << 32) + 100, "an earlier estimate does not move the clock back")
        #expect(clock.extend(2_000_000_000) == (1 << 32) + 2_000_000_000)
        #expect(clock.extend(4_000_000_000) == (1 << 32) + 4_000_000_000)
        #expect(clock.extend(5) == (2 << 32) + 5, "wrapped twice")
    }
}
