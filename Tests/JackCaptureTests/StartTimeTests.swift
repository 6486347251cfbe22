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
        ("2026-11-22T14:30:00.250Z", .dateTime(WallClockDateTime(
            year: 2026, month: 11, day: 22, time: WallClockTime(hour: 14, minute: 30, second: 0, microsecond: 250_000),
            utcOffsetMinutes: 0))),
        ("2026-11-22 14:30:00", .dateTime(WallClockDateTime(
            year: 2026, month: 11, day: 22, time: WallClockTime(hour: 14, minute: 30, second: 0), utcOffsetMinutes: nil))),
        ("2028-02-29T00:00:00+01:30", .dateTime(WallClockDateTime(
            year: 2028, month: 2, day: 29, time: WallClockTime(hour: 0, minute: 0, second: 0), utcOffsetMinutes: 90))),
        ("2026-01-01T23:59:59.999999-0800", .dateTime(WallClockDateTime(
            year: 2026, month: 1, day: 1, time: WallClockTime(hour: 23, minute: 59, second: 59, microsecond: 999_999),
            utcOffsetMinutes: -480))),
    ])
    func valid(text: String, expected: StartTime) throws {
        #expect(try StartTime(parsing: text) == expected)
    }

    @Test("invalid start times", arguments: [
        "", "3s", "@", "@-1", "@4294967296", "@12x", "24:00:00", "12:60:00", "12:00:60", "12:00",
        "12:0:00", "12:00:00.", "12:00:00.1234567", "+", "+x", "tomorrow", "12:00:00:00",
        "2026-11-22", "2026-11-22T", "2026-11-22T14:30", "2026-13-01T00:00:00", "2026-02-29T00:00:00",
        "2026-11-31 10:00:00", "2026-11-22T24:00:00Z", "2026-11-22T14:30:00+1", "2026-11-22T14:30:00+15:00",
        "2026-11-22T14:30:00Zulu", "26-11-22T14:30:00", "2026-11-22X14:30:00", "2026-1-22T14:30:00",
        "2026-11-22T4:30:00", "1969-12-31T23:59:59Z",
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

    @Test("a date and time in UTC or at an offset is that moment; without a zone it is local time")
    func dateTimeMoments() throws {
        let utc = try StartTime(parsing: "2026-11-22T14:30:00.250Z").wallClockMicroseconds()
        #expect(utc == 1_795_357_800_250_000)  // date -u -d 2026-11-22T14:30:00Z +%s: 1795357800
        let east = try StartTime(parsing: "2026-11-22T15:30:00.250+01:00").wallClockMicroseconds()
        #expect(east == utc)
        let west = try StartTime(parsing: "2026-11-22T06:30:00.250-0800").wallClockMicroseconds()
        #expect(west == utc)
        // Local: the same fields as the local time of that moment.
        let local = try #require(try StartTime(parsing: "2026-11-22 14:30:00").wallClockMicroseconds())
        var seconds = time_t(local / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        #expect([parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec]
                == [2026, 11, 22, 14, 30, 0])
        #expect(WallClockTime.localDescription(microsecondsSinceEpoch: local + 250_000) == "2026-11-22 14:30:00.250")
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

    @Test("a time of day or a date has no frame-clock limit: it is decided on JACK's 64-bit clock in its cycle",
          arguments: ["23:59:59", "2030-01-01T00:00:00Z", "2026-11-23 09:00:00"])
    func clockStartsHaveNoLimit(text: String) throws {
        try StartTime(parsing: text).validate(sampleRate: 192_000)
    }

    @Test("start times read back as written", arguments: ["+3s", "+1.01s", "+48000f", "@123456789", "14:30:00", "14:30:00.25",
                                                           "2026-11-22T14:30:00.25Z", "2026-11-22T14:30:00+01:00",
                                                           "2026-11-22T14:30:00"])
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
