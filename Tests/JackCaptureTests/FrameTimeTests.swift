import Testing
@testable import JackCapture

@Suite("Frame-time arithmetic")
struct FrameTimeTests {
    @Test("differences are wrap-safe")
    func wrapSafe() {
        #expect(FrameTime.distance(from: 100, to: 150) == 50)
        #expect(FrameTime.distance(from: 150, to: 100) == -50)
        #expect(FrameTime.distance(from: UInt32.max - 9, to: 10) == 20)
        #expect(FrameTime.distance(from: 10, to: UInt32.max - 9) == -20)
        #expect(FrameTime.advance(UInt32.max, by: 1) == 0)
        #expect(FrameTime.advance(UInt32.max - 4, by: 10) == 5)
    }
}
