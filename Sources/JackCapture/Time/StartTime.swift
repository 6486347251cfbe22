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

extension StartTime: CustomStringConvertible {
    /// As it is written after `--at`: `+3s`, `@123456789`, `14:30:00.25`.
    public var description: String {
        switch self {
        case .afterReady(let delay): "+\(delay)"
        case .frame(let frame): "@\(frame)"
        case .wallClock(let time): time.description
        }
    }

    /// Checks, before anything is created, that this start can be scheduled on JACK's 32-bit
    /// frame clock at `sampleRate`: a delay or a time of day at most `FrameTime.maximumLead`
    /// frames ahead (12:25:39 at 48 kHz; a time of day today can be up to 24 hours ahead). A frame
    /// time is always representable; whether it has passed is checked when the take starts.
    ///
    /// - Parameter now: microseconds since the Unix epoch (for a time of day).
    /// - Throws: `.badTime` naming the limit, or `.badDuration` for a delay too long to count.
    public func validate(sampleRate: Int, now: Int64 = WallClockTime.nowMicrosecondsSinceEpoch()) throws(CaptureError) {
        switch self {
        case .afterReady(let delay):
            let frames: Int64
            do { frames = try delay.frames(atSampleRate: sampleRate) } catch {
                throw .badTime(description, reason: "too far ahead: JACK's 32-bit frame clock can schedule a start at most "
                    + FrameTime.leadLimitDescription(sampleRate: sampleRate))
            }
            try FrameTime.checkLead(frames, sampleRate: sampleRate, for: description)
        case .frame:
            break
        case .wallClock(let time):
            let (difference, overflow) = time.microsecondsSinceEpoch(today: now).subtractingReportingOverflow(now)
            let ahead = overflow ? Int64.max : difference
            guard ahead > 0 else { return }
            _ = try FrameTime.lead(seconds: Double(ahead) / 1_000_000, sampleRate: sampleRate, for: description)
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
        fraction = String(repeating: "0", count: max(0, 6 - fraction.count)) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return base + "." + fraction
    }

    /// Microseconds since the Unix epoch of this time of day, today in the local time zone
    /// (mktime). `now` is the current time in the same units.
    public func microsecondsSinceEpoch(today now: Int64) -> Int64 {
        var seconds = time_t(now / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        // Clamped, not trapping, for a time built from out-of-range fields (mktime normalizes).
        parts.tm_hour = Int32(clamping: hour)
        parts.tm_min = Int32(clamping: minute)
        parts.tm_sec = Int32(clamping: second)
        parts.tm_isdst = -1
        let (micros, overflow) = Int64(mktime(&parts)).multipliedReportingOverflow(by: 1_000_000)
        let (total, overflow2) = micros.addingReportingOverflow(Int64(microsecond))
        return overflow || overflow2 ? (micros < 0 ? .min : .max) : total
    }

    /// Now, in microseconds since the Unix epoch (CLOCK_REALTIME).
    public static func nowMicrosecondsSinceEpoch() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}
