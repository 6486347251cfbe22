import Glibc

/// A moment's local date and time (localtime_r), to the millisecond, for names and messages.
struct LocalTime {
    let year: Int32, month: Int32, day: Int32, hour: Int32, minute: Int32, second: Int32, millisecond: Int32

    /// The local time of a moment in microseconds since the Unix epoch (rounded down).
    init(microsecondsSinceEpoch micros: Int64) {
        var seconds = time_t(micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        year = parts.tm_year + 1900
        month = parts.tm_mon + 1
        day = parts.tm_mday
        hour = parts.tm_hour
        minute = parts.tm_min
        second = parts.tm_sec
        millisecond = Int32((micros % 1_000_000 + 1_000_000) % 1_000_000 / 1_000)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    static func padded(_ value: Int32, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
