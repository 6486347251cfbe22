import Glibc

/// A split interval: a long take is written as a series of files, a new one beginning on each
/// boundary of the wall clock.
///
/// The boundary rule: the boundaries are the moments at which the local clock reads a whole
/// multiple of the interval since midnight (with `15m`: :00, :15, :30 and :45 of every hour),
/// and every local midnight. An interval that does not divide a day leaves a shorter last file
/// before midnight (with `7m`: 23:55 to 00:00). On the days the clocks change, the clock as it
/// reads after the change counts: at a change forwards (02:00 becomes 03:00) the change itself is
/// a boundary when 03:00 is one; at a change backwards the repeated hour's boundaries come twice.
///
/// Intervals are whole seconds, from 1 second to 24 hours: file names carry their start to the
/// second, and boundaries restart every midnight.
public struct SplitInterval: Equatable, Sendable, CustomStringConvertible {
    public let seconds: Int64

    static let secondsPerDay: Int64 = 86_400
    static let expected = "a whole number of seconds from 1s to 24h, like 2s, 15m or 1h"
    static let tooShort = "a split must be at least 1s"
    static let tooLong = "a split is at most 24h (boundaries restart at local midnight)"

    /// An interval of `seconds`, which must be 1 to 86,400 (`.badDuration` otherwise).
    public init(seconds: Int64) throws(CaptureError) {
        guard seconds >= 1 else { throw .badDuration("\(seconds)s", reason: Self.tooShort) }
        guard seconds <= Self.secondsPerDay else { throw .badDuration("\(seconds)s", reason: Self.tooLong) }
        self.seconds = seconds
    }

    /// Parses a split interval: a duration as `CaptureDuration` reads it (`2s`, `15m`, `1h`, `1:30:00`), which
    /// must be a whole number of seconds from 1s to 24h. Frame counts are refused: a boundary is a
    /// time on the wall clock, not a count of the server's frames.
    public init(parsing text: String) throws(CaptureError) {
        let duration: CaptureDuration
        do {
            duration = try CaptureDuration(parsing: text)
        } catch {
            throw .badDuration(text, reason: "a split is \(Self.expected)")
        }
        switch duration {
        case .frames:
            throw .badDuration(text, reason: "a split is a time on the clock, not frames: \(Self.expected)")
        case .seconds(let numerator, let denominator):
            guard denominator > 0, numerator % denominator == 0 else {
                throw .badDuration(text, reason: "a split is \(Self.expected)")
            }
            let whole = numerator / denominator
            guard whole >= 1 else { throw .badDuration(text, reason: Self.tooShort) }
            guard whole <= Self.secondsPerDay else { throw .badDuration(text, reason: Self.tooLong) }
            seconds = whole
        }
    }

    /// As it could be written: `2s`, `15m`, `1h`, `90s`.
    public var description: String {
        if seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }

    // MARK: Boundaries

    /// Microseconds from a local clock reading `sinceMidnight` (microseconds since the clock last
    /// read 00:00:00, 0 to a day) to the next boundary strictly after it: the next whole multiple
    /// of `interval`, or midnight if that comes first.
    static func microsecondsUntilNextBoundary(sinceMidnight: Int64, interval: Int64) -> Int64 {
        let day = secondsPerDay * 1_000_000
        let reading = min(max(sinceMidnight, 0), day)
        let next = min((reading / interval + 1) * interval, day)
        return max(next - reading, 1)
    }

    /// The first boundary strictly after the moment `microseconds` (since the Unix epoch), as a
    /// moment in microseconds since the epoch. `utcOffsetSeconds` gives the local clock's offset
    /// from UTC at a moment (seconds east; the system's time zone unless a test gives another).
    package func nextBoundary(after microseconds: Int64,
                             utcOffsetSeconds: (Int64) -> Int64 = SplitInterval.localUTCOffsetSeconds(atMicroseconds:)) -> Int64 {
        boundary(after: microseconds, inclusive: false, utcOffsetSeconds: utcOffsetSeconds, changesLeft: 3)
    }

    /// The boundary after `last`, the one a take reached last, when the wall clock reads `now`
    /// (microseconds since the epoch): normally the next boundary after `last`. If the wall clock
    /// was stepped forwards past more boundaries since (a clock set by hand, NTP stepping rather
    /// than slewing), the boundaries it skipped are skipped too: the next is the first after a
    /// second before `now`, rather than one short file for each boundary the clock jumped over.
    package func nextBoundary(following last: Int64, now: Int64,
                             utcOffsetSeconds: (Int64) -> Int64 = SplitInterval.localUTCOffsetSeconds(atMicroseconds:)) -> Int64 {
        nextBoundary(after: max(last, now - 1_000_000), utcOffsetSeconds: utcOffsetSeconds)
    }

    private func boundary(after moment: Int64, inclusive: Bool, utcOffsetSeconds: (Int64) -> Int64,
                          changesLeft: Int) -> Int64 {
        let intervalMicroseconds = seconds * 1_000_000
        let offset = utcOffsetSeconds(moment)
        let reading = Self.sinceLocalMidnight(moment, utcOffsetSeconds: offset)
        if inclusive && reading % intervalMicroseconds == 0 { return moment }
        let candidate = moment + Self.microsecondsUntilNextBoundary(sinceMidnight: reading, interval: intervalMicroseconds)
        guard changesLeft > 0, utcOffsetSeconds(candidate) != offset else { return candidate }
        // The clocks change between the moment and the candidate: from the change on, the clock
        // reads differently. Find the change (to the microsecond) and go on from there, the
        // change itself included.
        var before = moment
        var after = candidate
        while after - before > 1 {
            let middle = before + (after - before) / 2
            if utcOffsetSeconds(middle) == offset { before = middle } else { after = middle }
        }
        return boundary(after: after, inclusive: true, utcOffsetSeconds: utcOffsetSeconds, changesLeft: changesLeft - 1)
    }

    /// Microseconds since the local clock last read midnight, at offset `offsetSeconds` from UTC.
    static func sinceLocalMidnight(_ microseconds: Int64, utcOffsetSeconds offsetSeconds: Int64) -> Int64 {
        let day = secondsPerDay * 1_000_000
        let local = microseconds &+ offsetSeconds &* 1_000_000
        return ((local % day) + day) % day
    }

    /// The system time zone's offset from UTC at a moment (localtime_r's tm_gmtoff), in seconds.
    package static func localUTCOffsetSeconds(atMicroseconds microseconds: Int64) -> Int64 {
        var seconds = time_t(microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int64(parts.tm_gmtoff)
    }
}
