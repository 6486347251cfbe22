import Foundation
import Testing
@testable import JackCapture

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

@Suite("Start times JACK's 32-bit frame clock cannot schedule are refused at once")
struct StartTimeLimitTests {
    @Test("a delay past 12:25:39 at 48 kHz is a bad time naming the limit", arguments: [
        "+99999999999s", "+12:25:40", "+2147483648f", "+1h", "+999999999999h",
    ])
    func tooFarAhead(text: String) throws {
        let start = try StartTime(parsing: text)
        let limitAt = text == "+1h" ? 1_000_000 : 48_000  // an hour is too far only at a very high rate
        #expect(throws: CaptureError.self) { try start.validate(sampleRate: limitAt) }
        do {
            try start.validate(sampleRate: limitAt)
        } catch {
            guard case .badTime(let named, let reason) = error else { Issue.record("\(error)"); return }
            #expect(named == start.description, "named as it could be written: +44740s for +12:25:40")
            #expect(reason.contains("at most \(FrameTime.leadLimitDescription(sampleRate: limitAt))"), "\(reason)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("delays and frame times within the limit are fine", arguments: ["+12:25:39", "+2147483647f", "+3s", "@4294967295", "@0"])
    func withinLimit(text: String) throws {
        try StartTime(parsing: text).validate(sampleRate: 48_000)
    }

    @Test("the exact message for +99999999999s")
    func message() throws {
        #expect(throws: CaptureError.badTime("+99999999999s", reason: "JACK's 32-bit frame clock can schedule a start at most 12:25:39 ahead at 48000 Hz")) {
            try StartTime(parsing: "+99999999999s").validate(sampleRate: 48_000)
        }
    }

    @Test("a time of day is checked too: today can be nearly 24 hours ahead")
    func wallClock() throws {
        // "Now" is one second after midnight today, local time.
        let now = WallClockTime(hour: 0, minute: 0, second: 1).microsecondsSinceEpoch(today: WallClockTime.nowMicrosecondsSinceEpoch())
        #expect(throws: CaptureError.self) { try StartTime(parsing: "23:00:00").validate(sampleRate: 48_000, now: now) }
        try StartTime(parsing: "06:00:00").validate(sampleRate: 48_000, now: now)
        try StartTime(parsing: "23:00:00").validate(sampleRate: 8_000, now: now)  // 2^31 frames is 74 hours at 8 kHz
        try StartTime(parsing: "00:00:00").validate(sampleRate: 48_000, now: now)  // passed: refused when the take starts
    }

    @Test("start times read back as written", arguments: ["+3s", "+1.01s", "+48000f", "@123456789", "14:30:00", "14:30:00.25"])
    func description(text: String) throws {
        #expect(try StartTime(parsing: text).description == text)
    }

    @Test("a time of day built from fields out of range converts and prints without trapping")
    func outOfRangeFields() {
        let odd = WallClockTime(hour: Int.max, minute: -5, second: Int.min, microsecond: 12_345_678)
        _ = odd.microsecondsSinceEpoch(today: WallClockTime.nowMicrosecondsSinceEpoch())
        #expect(!odd.description.isEmpty)
    }
}
