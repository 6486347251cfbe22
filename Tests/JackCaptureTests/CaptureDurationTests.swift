import Testing
@testable import JackCapture

@Suite("Durations (--for, --buffer, relative --at)")
struct CaptureDurationTests {
    @Test("frames at 48 kHz", arguments: [
        ("60s", 2_880_000), ("1.01s", 48_480), ("1:30", 4_320_000), ("1:02:03.5", 178_728_000),
        ("250ms", 12_000), ("48000f", 48_000), ("0.5", 24_000), ("2m", 5_760_000), ("1h", 172_800_000),
        ("1.5min", 4_320_000), ("0.00001s", 0), ("0.00002s", 1), ("1.000010416s", 48_000), ("00:01", 48_000),
        ("10:00", 28_800_000), (" 3s ", 144_000), ("1ms", 48), ("0.5ms", 24), ("59.999999999s", 2_880_000),
    ] as [(String, Int64)])
    func framesAt48k(text: String, frames: Int64) throws {
        #expect(try CaptureDuration(parsing: text).frames(atSampleRate: 48_000) == frames)
    }

    @Test("1.01 s is 48,480 frames at 48 kHz and 44,541 at 44.1 kHz, not one short")
    func exactDecimal() throws {
        let duration = try CaptureDuration(parsing: "1.01s")
        #expect(duration == .seconds(numerator: 101, denominator: 100))
        #expect(duration.frames(atSampleRate: 48_000) == 48_480)
        #expect(duration.frames(atSampleRate: 44_100) == 44_541)
    }

    @Test("invalid durations are rejected with a reason", arguments: [
        "", "s", "1.x", "abc", "1.2.3s", "-1s", "1e3s", "1:3", "1:60", "1:2:3", "1:60:00", "::", "1.5f", "f",
        "10 s", "1,5s", "1:30:", "+3s", "3sec", ".s", "1.0000000001s", "9999999999999s",
    ])
    func invalid(text: String) {
        #expect(throws: CaptureError.self) { try CaptureDuration(parsing: text) }
        do {
            _ = try CaptureDuration(parsing: text)
        } catch {
            guard case .badDuration(let echoed, let reason) = error else {
                Issue.record("expected badDuration, got \(error)")
                return
            }
            #expect(echoed == text)
            #expect(!reason.isEmpty)
        }
    }

    @Test("zero is parsed as zero, so --for can refuse it")
    func zero() throws {
        #expect(try CaptureDuration(parsing: "0s").isZero)
        #expect(try CaptureDuration(parsing: "0f").isZero)
        #expect(try !CaptureDuration(parsing: "1f").isZero)
    }
}
