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
        #expect(try duration.frames(atSampleRate: 48_000) == 48_480)
        #expect(try duration.frames(atSampleRate: 44_100) == 44_541)
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

@Suite("Start times (--at)")
struct StartTimeTests {
    @Test("valid start times", arguments: [
        ("+3s", StartTime.afterReady(.seconds(numerator: 3, denominator: 1))),
        ("+250ms", .afterReady(.seconds(numerator: 250, denominator: 1_000))),
        ("+48000f", .afterReady(.frames(48_000))),
        ("@123456789", .frame(123_456_789)),
        ("@4294967295", .frame(4_294_967_295)),
        ("14:30:00", .wallClock(WallClockTime(hour: 14, minute: 30, second: 0))),
        ("14:30:00.250", .wallClock(WallClockTime(hour: 14, minute: 30, second: 0, microsecond: 250_000))),
        ("00:00:00.000001", .wallClock(WallClockTime(hour: 0, minute: 0, second: 0, microsecond: 1))),
        ("9:05:59", .wallClock(WallClockTime(hour: 9, minute: 5, second: 59))),
    ])
    func valid(text: String, expected: StartTime) throws {
        #expect(try StartTime(parsing: text) == expected)
    }

    @Test("invalid start times", arguments: [
        "", "3s", "@", "@-1", "@4294967296", "@12x", "24:00:00", "12:60:00", "12:00:60", "12:00",
        "12:0:00", "12:00:00.", "12:00:00.1234567", "+", "+x", "tomorrow", "12:00:00:00",
    ])
    func invalid(text: String) {
        #expect(throws: CaptureError.self) { try StartTime(parsing: text) }
        do {
            _ = try StartTime(parsing: text)
        } catch {
            guard case .badTime = error else {
                Issue.record("expected badTime, got \(error)")
                return
            }
        }
    }

    @Test("a wall-clock time is today, in local time")
    func wallClockToday() {
        let now = WallClockTime.nowMicrosecondsSinceEpoch()
        let time = WallClockTime(hour: 12, minute: 0, second: 0, microsecond: 250_000)
        let target = time.microsecondsSinceEpoch(today: now)
        #expect(abs(target - now) < 24 * 3_600 * 1_000_000)
        #expect(target % 1_000_000 == 250_000)
        #expect(time.description == "12:00:00.25")
    }
}

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

extension CaptureDurationTests {
    @Test("a duration too long to count in 64-bit frames is refused, never saturated", arguments: [
        CaptureDuration.seconds(numerator: Int64.max / 2, denominator: 1),
        .seconds(numerator: Int64.max, denominator: 1_000_000_000),
        .seconds(numerator: 192_153_584_101_142, denominator: 1),  // just past Int64.max frames at 48 kHz
    ])
    func overflowIsRefused(duration: CaptureDuration) {
        #expect(throws: CaptureError.self) { try duration.frames(atSampleRate: 48_000) }
        do {
            _ = try duration.frames(atSampleRate: 48_000)
        } catch {
            guard case .badDuration(let text, let reason) = error else { Issue.record("\(error)"); return }
            #expect(text == duration.description)
            #expect(reason.contains("too long"), "\(reason)")
            #expect(ExitStatus(for: error) == .badTime)
        }
    }

    @Test("the longest duration that counts still does, to the frame")
    func longestCounts() throws {
        #expect(try CaptureDuration.seconds(numerator: 192_153_584_101_141, denominator: 1).frames(atSampleRate: 48_000)
            == 9_223_372_036_854_768_000)
        #expect(try CaptureDuration.frames(.max).frames(atSampleRate: 48_000) == .max)
        #expect(try CaptureDuration(parsing: "999999999999h").frames(atSampleRate: 1) == 3_599_999_999_996_400)
        #expect(throws: CaptureError.self) { try CaptureDuration(parsing: "999999999999h").frames(atSampleRate: 48_000) }
    }

    @Test("a duration built with no denominator is refused, not divided by zero")
    func zeroDenominator() {
        #expect(throws: CaptureError.self) { try CaptureDuration.seconds(numerator: 1, denominator: 0).frames(atSampleRate: 48_000) }
        #expect(throws: CaptureError.self) { try CaptureDuration.seconds(numerator: 1, denominator: -10).frames(atSampleRate: 48_000) }
    }

    @Test("a take's length must be above zero", arguments: [
        CaptureDuration.frames(0), .frames(-5), .seconds(numerator: 0, denominator: 1), .seconds(numerator: -3, denominator: 1),
        .seconds(numerator: 1, denominator: 1_000_000_000),  // rounds to no frame
    ])
    func takeLength(duration: CaptureDuration) {
        #expect(throws: CaptureError.self) { try duration.takeLength(atSampleRate: 48_000) }
    }

    @Test("durations read back as written", arguments: ["1.01s", "48000f", "60s", "0.5s", "1.000010416s", "99999999999s"])
    func description(text: String) throws {
        #expect(try CaptureDuration(parsing: text).description == text)
        #expect(try CaptureDuration(parsing: "1:30").description == "90s")
        #expect(try CaptureDuration(parsing: "250ms").description == "0.25s")
    }
}
