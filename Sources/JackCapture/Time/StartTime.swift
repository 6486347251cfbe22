/// When a take (or playback) starts, as a user writes it.
public enum StartTime: Equatable, Sendable {
    /// `+3s`, `+250ms`, `+48000f`: this long after jcap is ready.
    case afterReady(CaptureDuration)
    /// `@123456789`: at this JACK frame time.
    case frame(UInt32)
    /// `14:30:00`, `14:30:00.250`: at this local wall-clock time today.
    case wallClock(WallClockTime)
    /// `2026-11-22T14:30:00.250Z`, `2026-11-22 14:30:00` (local), `2026-11-22T14:30:00+01:00`:
    /// at this date and time.
    case dateTime(WallClockDateTime)

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
        } else if trimmed.count > 10, trimmed.dropFirst(4).first == "-" {
            self = .dateTime(try WallClockDateTime(parsing: trimmed, original: text))
        } else if trimmed.contains(":") {
            self = .wallClock(try WallClockTime(parsing: trimmed, original: text))
        } else {
            throw .badTime(text, reason: "expected +3s (from now), @123456789 (a JACK frame), 14:30:00 (today) "
                + "or 2026-11-22T14:30:00Z (a date and time)")
        }
    }
}

extension StartTime: CustomStringConvertible {
    /// As it is written: `+3s`, `@123456789`, `14:30:00.25`.
    public var description: String {
        switch self {
        case .afterReady(let delay): "+\(delay)"
        case .frame(let frame): "@\(frame)"
        case .wallClock(let time): time.description
        case .dateTime(let moment): moment.description
        }
    }

    /// Checks, before anything is created, that this start can be scheduled: a delay at most
    /// `FrameTime.maximumLead` frames ahead at `sampleRate` (12:25:39 at 48 kHz), since it is
    /// counted on JACK's 32-bit frame clock. A frame time is always representable; whether it has
    /// passed is checked when the take starts. A time of day or a date has no such limit: its
    /// frame is decided in the cycle it falls in (`ClockStart`), on JACK's 64-bit microsecond
    /// clock.
    ///
    /// - Throws: `.badTime` naming the limit, or `.badDuration` for a delay too long to count.
    package func validate(sampleRate: Int) throws(CaptureError) {
        switch self {
        case .afterReady(let delay):
            let frames: Int64
            do { frames = try delay.frames(atSampleRate: sampleRate) } catch {
                throw .badTime(description, reason: "too far ahead: JACK's 32-bit frame clock can schedule a start at most "
                    + FrameTime.leadLimitDescription(sampleRate: sampleRate))
            }
            try FrameTime.checkLead(frames, sampleRate: sampleRate, for: description)
        case .frame, .wallClock, .dateTime:
            break
        }
    }

    /// The wall-clock moment this start names (microseconds since the Unix epoch), for a time of
    /// day (today, in the local time zone) or a date; nil for a delay or a frame time.
    package func wallClockMicroseconds(now: Int64 = WallClockTime.nowMicrosecondsSinceEpoch()) -> Int64? {
        switch self {
        case .afterReady, .frame: nil
        case .wallClock(let time): time.microsecondsSinceEpoch(today: now)
        case .dateTime(let moment): moment.microsecondsSinceEpoch
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
    package func microsecondsSinceEpoch(today now: Int64) -> Int64 {
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

    /// A moment as local date and time, to the millisecond: `2026-11-22 14:30:00.250`.
    package static func localDescription(microsecondsSinceEpoch micros: Int64) -> String {
        let time = LocalTime(microsecondsSinceEpoch: micros)
        let pad = LocalTime.padded
        return "\(pad(time.year, 4))-\(pad(time.month, 2))-\(pad(time.day, 2)) "
            + "\(pad(time.hour, 2)):\(pad(time.minute, 2)):\(pad(time.second, 2)).\(pad(time.millisecond, 3))"
    }

    /// Now, in microseconds since the Unix epoch (CLOCK_REALTIME).
    package static func nowMicrosecondsSinceEpoch() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}

/// A date and a time, to the microsecond: in UTC (`Z`), at an offset from it (`+01:00`), or in
/// the local time zone (neither).
public struct WallClockDateTime: Equatable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var time: WallClockTime
    /// Minutes east of UTC, or nil for the local time zone.
    public var utcOffsetMinutes: Int?

    public init(year: Int, month: Int, day: Int, time: WallClockTime, utcOffsetMinutes: Int?) {
        self.year = year
        self.month = month
        self.day = day
        self.time = time
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]` (or a space for the `T`), then `Z`, `±HH:MM`, `±HHMM` or
    /// nothing (local time).
    init(parsing text: String, original: String) throws(CaptureError) {
        let reason = "a date and time is 2026-11-22T14:30:00[.250] followed by Z, +01:00 or nothing (local time)"
        let characters = Array(text)
        guard characters.count >= 19, characters[10] == "T" || characters[10] == " " || characters[10] == "t" else {
            throw .badTime(original, reason: reason)
        }
        let date = String(characters[0..<10])
        var rest = String(characters[11...])
        var offset: Int?
        if rest.hasSuffix("Z") || rest.hasSuffix("z") {
            offset = 0
            rest.removeLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = rest[rest.index(after: sign)...].filter { $0 != ":" }
            guard zone.count == 4, zone.allSatisfy({ $0.isASCII && $0.isNumber }),
                  rest[rest.index(after: sign)...].count == (rest[rest.index(after: sign)...].contains(":") ? 5 : 4)
            else { throw .badTime(original, reason: reason) }
            let hours = Int(zone.prefix(2))!, minutes = Int(zone.suffix(2))!
            guard hours <= 14, minutes < 60 else {
                throw .badTime(original, reason: "a UTC offset is at most 14 hours, like +01:00")
            }
            offset = (rest[sign] == "-" ? -1 : 1) * (hours * 60 + minutes)
            rest = String(rest[..<sign])
        }
        let dateParts = date.split(separator: "-", omittingEmptySubsequences: false)
        guard dateParts.count == 3, dateParts[0].count == 4, dateParts[1].count == 2, dateParts[2].count == 2,
              dateParts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
            throw .badTime(original, reason: reason)
        }
        let time = try WallClockTime(parsing: rest, original: original)
        guard rest.split(separator: ":").first?.count == 2 else { throw .badTime(original, reason: reason) }
        self.init(year: Int(dateParts[0])!, month: Int(dateParts[1])!, day: Int(dateParts[2])!, time: time,
                  utcOffsetMinutes: offset)
        guard (1...12).contains(month), (1...Self.days(inMonth: month, year: year)).contains(day), year >= 1970 else {
            throw .badTime(original, reason: "no such date")
        }
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// As written: `2026-11-22T14:30:00.25Z`, `2026-11-22T14:30:00+01:00`, `2026-11-22T14:30:00`.
    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year)-\(two(month))-\(two(day))T\(time)"
        if let offset = utcOffsetMinutes {
            if offset == 0 {
                text += "Z"
            } else {
                text += (offset < 0 ? "-" : "+") + two(abs(offset) / 60) + ":" + two(abs(offset) % 60)
            }
        }
        return text
    }

    /// Microseconds since the Unix epoch: timegm for UTC and offsets, mktime for local time (its
    /// daylight-saving rules; an hour that does not exist on the day is moved forward by mktime).
    package var microsecondsSinceEpoch: Int64 {
        var parts = tm()
        parts.tm_year = Int32(clamping: year - 1900)
        parts.tm_mon = Int32(clamping: month - 1)
        parts.tm_mday = Int32(clamping: day)
        parts.tm_hour = Int32(clamping: time.hour)
        parts.tm_min = Int32(clamping: time.minute)
        parts.tm_sec = Int32(clamping: time.second)
        let seconds: Int64
        if let offset = utcOffsetMinutes {
            seconds = Int64(timegm(&parts)) - Int64(offset) * 60
        } else {
            parts.tm_isdst = -1
            seconds = Int64(mktime(&parts))
        }
        return seconds * 1_000_000 + Int64(time.microsecond)
    }
}
