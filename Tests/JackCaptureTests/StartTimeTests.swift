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
