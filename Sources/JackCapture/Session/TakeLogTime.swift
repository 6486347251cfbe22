import Foundation

/// The take log's wall-clock times: UTC, ISO 8601, always six fractional digits
/// (`2026-11-22T14:03:07.123456Z`).
///
/// Written by hand rather than with ISO8601DateFormatter, which stops at milliseconds, and from a
/// `timespec` (clock_gettime CLOCK_REALTIME) so the microseconds are the clock's, not a Double's
/// rounding of them. UTC because a session folder may be read in another time zone, or after the
/// clocks change; `TakeListing` shows local time.
package enum TakeLogTime {
    /// The text for a CLOCK_REALTIME reading.
    package static func string(from time: timespec) -> String {
        // Floor division, so a time before 1970 still has a fraction in 0..<1 s.
        let carry = Int64(time.tv_nsec) >= 0 ? Int64(time.tv_nsec) / 1_000_000_000
                                              : (Int64(time.tv_nsec) - 999_999_999) / 1_000_000_000
        let seconds = Int64(time.tv_sec).addingReportingOverflow(carry).partialValue
        let nanoseconds = Int64(time.tv_nsec) - carry * 1_000_000_000
        var utc = tm()
        var clock = time_t(seconds)
        guard gmtime_r(&clock, &utc) != nil else { return "1970-01-01T00:00:00.000000Z" }
        return pad(Int(utc.tm_year) + 1900, 4) + "-" + pad(Int(utc.tm_mon) + 1, 2) + "-" + pad(Int(utc.tm_mday), 2)
            + "T" + pad(Int(utc.tm_hour), 2) + ":" + pad(Int(utc.tm_min), 2) + ":" + pad(Int(utc.tm_sec), 2)
            + "." + pad(Int(nanoseconds / 1_000), 6) + "Z"
    }

    /// The text for a `Date` (to the microsecond a Double holds, rounded down).
    package static func string(from date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let micro = ((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded(.down)
        guard seconds.magnitude < 1e15 else { return string(from: timespec()) }
        return string(from: timespec(tv_sec: Int(seconds), tv_nsec: Int(min(999_999, max(0, micro))) * 1_000))
    }

    /// Now, from CLOCK_REALTIME.
    package static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return string(from: time)
    }

    /// The instant a log time names, or nil for text that is not one. Accepts any number of
    /// fractional digits (or none), so a hand-edited time still reads.
    package static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func at(_ index: Int, _ character: Character) -> Bool {
            index < bytes.count && bytes[index] == character.asciiValue
        }
        guard let year = number(0..<4), at(4, "-"), let month = number(5..<7), at(7, "-"),
              let day = number(8..<10), at(10, "T"), let hour = number(11..<13), at(13, ":"),
              let minute = number(14..<16), at(16, ":"), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if at(index, ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        guard at(index, "Z"), index + 1 == bytes.count else { return nil }
        var utc = tm()
        utc.tm_year = Int32(year - 1900)
        utc.tm_mon = Int32(month - 1)
        utc.tm_mday = Int32(day)
        utc.tm_hour = Int32(hour)
        utc.tm_min = Int32(minute)
        utc.tm_sec = Int32(second)
        let seconds = timegm(&utc)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
