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

@Suite("How far ahead JACK's 32-bit frame clock can schedule")
struct FrameTimeLimitTests {
    @Test("the limit is 2^31 - 1 frames, said in hours, minutes and seconds", arguments: [
        (48_000, "12:25:39 ahead at 48000 Hz"), (44_100, "13:31:35 ahead at 44100 Hz"),
        (96_000, "6:12:49 ahead at 96000 Hz"), (192_000, "3:06:24 ahead at 192000 Hz"), (0, "0:00:00 ahead at 0 Hz"),
    ] as [(Int, String)])
    func limit(rate: Int, text: String) {
        #expect(FrameTime.maximumLead == 2_147_483_647)
        #expect(FrameTime.leadLimitDescription(sampleRate: rate) == text)
    }

    @Test("a lead up to the limit is fine; past it is a bad time naming the limit")
    func checkLead() throws {
        try FrameTime.checkLead(FrameTime.maximumLead, sampleRate: 48_000, for: "+x")
        #expect(FrameTime.distance(from: 0, to: FrameTime.advance(0, by: Int(FrameTime.maximumLead))) > 0,
                "the limit itself still compares as ahead")
        #expect(FrameTime.distance(from: 0, to: FrameTime.advance(0, by: Int(FrameTime.maximumLead) + 1)) < 0,
                "one frame further reads as the past: why it is the limit")
        #expect(throws: CaptureError.badTime("+x", reason: "JACK's 32-bit frame clock can schedule a start at most 12:25:39 ahead at 48000 Hz")) {
            try FrameTime.checkLead(FrameTime.maximumLead + 1, sampleRate: 48_000, for: "+x")
        }
    }

    @Test("seconds ahead: finite and within the limit", arguments: [Double.nan, .infinity, 1e30, 44_739.25, 1e18])
    func leadInSecondsRefused(seconds: Double) {
        #expect(throws: CaptureError.self) { try FrameTime.lead(seconds: seconds, sampleRate: 48_000, for: "t") }
    }

    @Test("seconds ahead within the limit, in frames")
    func leadInSeconds() throws {
        #expect(try FrameTime.lead(seconds: 0.5, sampleRate: 48_000, for: "t") == 24_000)
        #expect(try FrameTime.lead(seconds: 44_739.24, sampleRate: 48_000, for: "t") == 2_147_483_520)
    }

    @Test("microseconds ahead in frames, years ahead too, never overflowing")
    func framesInMicroseconds() {
        #expect(FrameTime.frames(inMicroseconds: 1_500_000, sampleRate: 48_000) == 72_000)
        #expect(FrameTime.frames(inMicroseconds: 20, sampleRate: 48_000) == 0)
        #expect(FrameTime.frames(inMicroseconds: 21, sampleRate: 48_000) == 1)
        #expect(FrameTime.frames(inMicroseconds: -5, sampleRate: 48_000) == 0)
        // 2040-01-01 from 2026-11-24: about 4.1e14 µs, 2e19 when multiplied by 48000 at once.
        let fourteenYears: Int64 = 14 * 365 * 86_400 * 1_000_000
        #expect(FrameTime.frames(inMicroseconds: fourteenYears, sampleRate: 48_000) == 14 * 365 * 86_400 * 48_000)
        #expect(FrameTime.frames(inMicroseconds: .max, sampleRate: 192_000) == Int64.max / 1_000_000 * 192_000
                + Int64.max % 1_000_000 * 192_000 / 1_000_000)
        #expect(FrameTime.frames(inMicroseconds: .max, sampleRate: Int(Int32.max)) == .max)
    }
}
