/// When `--at` says a take starts.
public enum StartTime: Equatable, Sendable {
    /// `+3s`, `+250ms`, `+48000f`: this long after jcap is ready.
    case afterReady(CaptureDuration)
    /// `@123456789`: at this JACK frame time.
    case frame(UInt32)
    /// `14:30:00`, `14:30:00.250`: at this local wall-clock time today.
    case wallClock(WallClockTime)

    public init(parsing text: String) throws(CaptureError) {
        let trimmed = text.trimmingWhitespace()
        if trimmed.hasPrefix("+") {
            do {
                self = .afterReady(try CaptureDuration(parsing: String(trimmed.dropFirst())))
            } catch {
                if case .badDuration(_, let reason) = error { throw .badTime(text, reason: reason) }
                throw error
            }
        } else if trimmed.hasPrefix("@") {
            let digits = trimmed.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let frame = UInt32(digits) else {
                throw .badTime(text, reason: "a frame time is @ and a whole number below 4294967296, like @123456789")
            }
            self = .frame(frame)
        } else if trimmed.contains(":") {
            self = .wallClock(try WallClockTime(parsing: trimmed, original: text))
        } else {
            throw .badTime(text, reason: "expected +3s (from now), @123456789 (a JACK frame) or 14:30:00 (today)")
        }
    }
}

/// A local time of day, to the microsecond.
public struct WallClockTime: Equatable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var microsecond: Int

    public init(hour: Int, minute: Int, second: Int, microsecond: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.microsecond = microsecond
    }

    /// `HH:MM:SS` or `HH:MM:SS.fff` (up to six fractional digits).
    init(parsing text: String, original: String) throws(CaptureError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let reason = "a time of day is HH:MM:SS or HH:MM:SS.fff, like 14:30:00.250"
        guard parts.count == 3 else { throw .badTime(original, reason: reason) }
        let secondPieces = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        let fields = [parts[0], parts[1], secondPieces[0]]
        guard secondPieces.count <= 2,
              fields.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts[1].count == 2, secondPieces[0].count == 2 else {
            throw .badTime(original, reason: reason)
        }
        let hour = Int(fields[0])!, minute = Int(fields[1])!, second = Int(fields[2])!
        guard hour < 24, minute < 60, second < 60 else {
            throw .badTime(original, reason: "no such time of day (hours 0-23, minutes and seconds 0-59)")
        }
        var microsecond = 0
        if secondPieces.count == 2 {
            let fraction = secondPieces[1]
            guard (1...6).contains(fraction.count), fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw .badTime(original, reason: "the fraction of a second has 1 to 6 digits")
            }
            microsecond = Int(String(fraction) + String(repeating: "0", count: 6 - fraction.count))!
        }
        self.init(hour: hour, minute: minute, second: second, microsecond: microsecond)
    }

    public var description: String {
        let base = [hour, minute, second].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
        guard microsecond > 0 else { return base }
        var fraction = String(microsecond)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return base + "." + fraction
    }

    /// Microseconds since the Unix epoch of this time of day, today in the local time zone
    /// (mktime). `now` is the current time in the same units.
    public func microsecondsSinceEpoch(today now: Int64) -> Int64 {
        var seconds = time_t(now / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        parts.tm_isdst = -1
        return Int64(mktime(&parts)) * 1_000_000 + Int64(microsecond)
    }

    /// Now, in microseconds since the Unix epoch (CLOCK_REALTIME).
    public static func nowMicrosecondsSinceEpoch() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}
