import Testing
@testable import JackCapture

@Suite("Capture engine ring sizing")
struct CaptureEngineTests {
    @Test("the ring holds the asked-for seconds plus headers, and at least four of the longest periods")
    func ringSize() {
        let bytes = CaptureEngine.ringByteCount(seconds: 4, sampleRate: 48_000, period: 256, channels: 8)
        #expect(bytes >= 4 * 48_000 * 8 * 4 + (4 * 48_000 / 256) * CaptureBlockHeader.byteCount)
        let tiny = CaptureEngine.ringByteCount(seconds: 0.0001, sampleRate: 48_000, period: 1_024, channels: 2)
        #expect(tiny >= 4 * CaptureBlockHeader.blockByteCount(frames: 8_192, channels: 2) - 3 * CaptureBlockHeader.byteCount)
    }
}

@Suite("The engine's ring size at its limits")
struct CaptureEngineRingLimitTests {
    @Test("a ring too large to count in an Int is Int.max, which no machine holds, never a trap", arguments: [
        (1e300, 2), (Double.infinity, 2), (Double.nan, 2), (1e15, 8), (4, Int.max / 2), (1e12, 1 << 40),
    ] as [(Double, Int)])
    func overflow(seconds: Double, channels: Int) {
        #expect(CaptureEngine.ringByteCount(seconds: seconds, sampleRate: 48_000, period: 1_024, channels: channels) == Int.max)
    }

    @Test("nonsense periods and negative lengths still give the smallest ring")
    func smallest() {
        let smallest = CaptureEngine.ringByteCount(seconds: 0.0001, sampleRate: 48_000, period: 1_024, channels: 2)
        #expect(CaptureEngine.ringByteCount(seconds: -5, sampleRate: 48_000, period: 1_024, channels: 2) == smallest)
        #expect(CaptureEngine.ringByteCount(seconds: 1, sampleRate: 48_000, period: 0, channels: 2) > 0)
        #expect(CaptureEngine.ringByteCount(seconds: 1, sampleRate: 48_000, period: Int.max, channels: 2) > 0)
    }
}
