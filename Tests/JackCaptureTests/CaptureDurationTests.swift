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

    /// Found by fuzzing (tools/fuzz time): the number was scaled to its fraction's digits in
    /// unchecked 64-bit arithmetic, which trapped.
    @Test("twelve whole digits with nine after the point are refused as too long, not a trap", arguments: [
        "999999999999.000000000s", "999999999999.999999999", "10000000000.000000000ms", "+999999999999.000000000h",
    ])
    func decimalTooLongToCount(text: String) {
        do throws(CaptureError) {
            if text.hasPrefix("+") { _ = try StartTime(parsing: text) } else { _ = try CaptureDuration(parsing: text) }
            Issue.record("'\(text)' parsed")
        } catch {
            #expect(error.description.contains("too long"), "\(error)")
        }
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
