import Testing
@testable import JackCapture

@Suite("Capture engine ring sizing")
struct CaptureEngineTests {
    @Test("the ring holds the asked-for seconds plus headers, and at least two periods")
    func ringSize() {
        let bytes = CaptureEngine.ringByteCount(seconds: 4, sampleRate: 48_000, period: 256, channels: 8)
        #expect(bytes >= 4 * 48_000 * 8 * 4 + (4 * 48_000 / 256) * CaptureBlockHeader.byteCount)
        let tiny = CaptureEngine.ringByteCount(seconds: 0.0001, sampleRate: 48_000, period: 1_024, channels: 2)
        #expect(tiny >= 2 * CaptureBlockHeader.blockByteCount(frames: 1_024, channels: 2))
    }
}
