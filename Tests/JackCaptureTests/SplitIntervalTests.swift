import Foundation
import Testing
@testable import JackCapture

@Suite("Clock-aligned splits: the interval and its wall-clock boundaries (--split)")
struct SplitIntervalTests {
    static let second: Int64 = 1_000_000
    /// 2026-11-22 00:00:00 UTC, in microseconds since the Unix epoch.
    static let midnight: Int64 = 1_795_305_600 * 1_000_000

    static func at(_ hour: Int64, _ minute: Int64, _ second: Int64, micro: Int64 = 0) -> Int64 {
        midnight + ((hour * 60 + minute) * 60 + second) * Self.second + micro
    }

    @Test("durations as --for writes them, whole seconds from 1s to 24h", arguments: [
        ("2s", 2), ("15m", 900), ("1h", 3_600), ("1:30:00", 5_400), ("90", 90), ("24h", 86_400), ("1.0s", 1), ("7min", 420),
    ] as [(String, Int64)])
    func parses(text: String, seconds: Int64) throws {
        #expect(try SplitInterval(parsing: text).seconds == seconds)
    }

    @Test("refused as a bad duration, with the reason", arguments: [
        ("0s", "at least 1s"), ("x", "whole number of seconds"), ("48000f", "not frames"), ("1.5s", "whole number of seconds"),
        ("25h", "at most 24h"), ("", "whole number of seconds"), ("500ms", "whole number of seconds"), ("-2s", "whole number of seconds"),
    ])
    func refused(text: String, reason: String) {
        do {
            _ = try SplitInterval(parsing: text)
            Issue.record("\(text) was accepted")
        } catch {
            guard case .badDuration(let value, let why) = error else { Issue.record("\(error)"); return }
            #expect(value == text)
            #expect(why.contains(reason), "\(why)")
        }
    }

    @Test("written back as the largest whole unit")
    func description() throws {
        #expect(try SplitInterval(parsing: "3600s").description == "1h")
        #expect(try SplitInterval(parsing: "15m").description == "15m")
        #expect(try SplitInterval(parsing: "90s").description == "90s")
        #expect(try SplitInterval(seconds: 2).description == "2s")
        #expect(throws: CaptureError.self) { try SplitInterval(seconds: 0) }
    }

    @Test("the next boundary after a clock reading: the next multiple since midnight, or midnight")
    func untilNext() {
        let quarter = 900 * Self.second
        #expect(SplitInterval.microsecondsUntilNextBoundary(sinceMidnight: 0, interval: quarter) == quarter)
        #expect(SplitInterval.microsecondsUntilNextBoundary(sinceMidnight: quarter - 1, interval: quarter) == 1)
        #expect(SplitInterval.microsecondsUntilNextBoundary(sinceMidnight: quarter, interval: quarter) == quarter)
        // 7 minutes does not divide a day: 23:55 to midnight is the last, 5 minutes long.
        let seven = 420 * Self.second
        #expect(SplitInterval.microsecondsUntilNextBoundary(sinceMidnight: 86_100 * Self.second, interval: seven) == 300 * Self.second)
        #expect(SplitInterval.microsecondsUntilNextBoundary(sinceMidnight: 86_399 * Self.second, interval: seven) == Self.second)
    }

    @Test("boundaries are local: :00, :15, :30, :45 of the local clock, whatever the offset from UTC")
    func localBoundaries() throws {
        let quarter = try SplitInterval(parsing: "15m")
        #expect(quarter.nextBoundary(after: Self.at(14, 23, 17, micro: 500_000)) { _ in 0 } == Self.at(14, 30, 0))
        // One hour east of UTC: 14:23:17.5 local is 13:23:17.5 UTC; 14:30 local is 13:30 UTC.
        #expect(quarter.nextBoundary(after: Self.at(13, 23, 17, micro: 500_000)) { _ in 3_600 } == Self.at(13, 30, 0))
        // 5:30 east (India): 08:50 UTC is 14:20 local; 14:30 local is 09:00 UTC.
        #expect(quarter.nextBoundary(after: Self.at(8, 50, 0)) { _ in 19_800 } == Self.at(9, 0, 0))
        // Strictly after: on a boundary, the next one.
        #expect(quarter.nextBoundary(after: Self.at(14, 30, 0)) { _ in 0 } == Self.at(14, 45, 0))
        #expect(quarter.nextBoundary(after: Self.at(14, 29, 59, micro: 999_999)) { _ in 0 } == Self.at(14, 30, 0))
        // Two seconds: every even second of the local clock.
        let two = try SplitInterval(parsing: "2s")
        #expect(two.nextBoundary(after: Self.at(9, 0, 1, micro: 1)) { _ in 0 } == Self.at(9, 0, 2))
        #expect(two.nextBoundary(after: Self.at(9, 0, 2)) { _ in 0 } == Self.at(9, 0, 4))
    }

    @Test("the boundary after the last one reached; after the wall clock was stepped forwards, the first after now")
    func following() throws {
        let two = try SplitInterval(parsing: "2s")
        let last = Self.at(9, 0, 2)
        // Asked a moment after the last was reached, or late (the pump slow): the next one.
        #expect(two.nextBoundary(following: last, now: last + 30_000) { _ in 0 } == Self.at(9, 0, 4))
        #expect(two.nextBoundary(following: last, now: last + 2_500_000) { _ in 0 } == Self.at(9, 0, 4))
        // The clock stepped an hour forwards: not 1800 boundaries in the past, the next from now.
        #expect(two.nextBoundary(following: last, now: Self.at(10, 0, 3, micro: 500_000)) { _ in 0 } == Self.at(10, 0, 4))
    }

    @Test("an interval that does not divide a day: multiples since midnight, and midnight itself")
    func sevenMinutes() throws {
        let seven = try SplitInterval(parsing: "7m")
        var moment = Self.at(0, 0, 0)
        var boundaries: [Int64] = []
        while moment < Self.at(24, 0, 0) {
            moment = seven.nextBoundary(after: moment) { _ in 0 }
            boundaries.append(moment)
        }
        // 00:07 ... 23:55 (205 of them), then midnight.
        #expect(boundaries.count == 206)
        #expect(boundaries.dropLast().allSatisfy { ($0 - Self.midnight) % (420 * Self.second) == 0 })
        #expect(boundaries[204] == Self.at(23, 55, 0))
        #expect(boundaries.last == Self.at(24, 0, 0))
    }

    @Test("the clocks going forward: the change is a boundary when the new reading is one; later ones follow the new clock")
    func springForward() throws {
        // At 01:00 UTC, 02:00 local (UTC+1) becomes 03:00 (UTC+2).
        let change = Self.at(1, 0, 0)
        let offset: (Int64) -> Int64 = { $0 < change ? 3_600 : 7_200 }
        let quarter = try SplitInterval(parsing: "15m")
        #expect(quarter.nextBoundary(after: change - 600 * Self.second, utcOffsetSeconds: offset) == change)
        #expect(quarter.nextBoundary(after: change, utcOffsetSeconds: offset) == change + 900 * Self.second)
        // 7 minutes: 01:59 local (old) is one; 02:06 never shows; after the change the clock
        // reads 03:00, and 03:02 is the next multiple.
        let seven = try SplitInterval(parsing: "7m")
        #expect(seven.nextBoundary(after: change - 120 * Self.second, utcOffsetSeconds: offset) == change - 60 * Self.second)
        #expect(seven.nextBoundary(after: change - 60 * Self.second, utcOffsetSeconds: offset) == change + 120 * Self.second)
    }

    @Test("the clocks going back: the repeated hour's boundaries come twice")
    func fallBack() throws {
        // At 01:00 UTC, 03:00 local (UTC+2) becomes 02:00 (UTC+1).
        let change = Self.at(1, 0, 0)
        let offset: (Int64) -> Int64 = { $0 < change ? 7_200 : 3_600 }
        let hour = try SplitInterval(parsing: "1h")
        // 02:00 (UTC+2), then the change (03:00 old, 02:00 new), then 03:00 (UTC+1).
        #expect(hour.nextBoundary(after: change - 3_600 * Self.second - 1, utcOffsetSeconds: offset) == change - 3_600 * Self.second)
        #expect(hour.nextBoundary(after: change - 3_600 * Self.second, utcOffsetSeconds: offset) == change)
        #expect(hour.nextBoundary(after: change, utcOffsetSeconds: offset) == change + 3_600 * Self.second)
        // 7 minutes: 02:59 old; 03:02 old never comes; 02:00 new is no multiple, 02:06 new is.
        let seven = try SplitInterval(parsing: "7m")
        #expect(seven.nextBoundary(after: change - 60 * Self.second, utcOffsetSeconds: offset) == change + 360 * Self.second)
    }

    @Test("in this machine's time zone, the next boundary is on the local clock's multiple")
    func systemTimeZone() throws {
        let quarter = try SplitInterval(parsing: "15m")
        let now = WallClockTime.nowMicrosecondsSinceEpoch()
        let next = quarter.nextBoundary(after: now)
        #expect(next > now && next <= now + 900 * Self.second)
        var seconds = time_t(next / Self.second)
        var parts = tm()
        localtime_r(&seconds, &parts)
        #expect(next % Self.second == 0)
        #expect(parts.tm_min % 15 == 0 && parts.tm_sec == 0)
    }
}

@Suite("Clock-aligned splits: file names carry each file's start")
struct SplitNamingTests {
    /// A local date and time as microseconds since the epoch (mktime).
    static func local(_ year: Int32, _ month: Int32, _ day: Int32, _ hour: Int32, _ minute: Int32, _ second: Int32) -> Int64 {
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        parts.tm_isdst = -1
        return Int64(mktime(&parts)) * 1_000_000
    }

    @Test("the local date and time to the second, rounded down")
    func timeStamp() {
        let moment = Self.local(2026, 11, 22, 14, 30, 0)
        #expect(SplitNaming.timeStamp(microsecondsSinceEpoch: moment) == "20261122-143000")
        #expect(SplitNaming.timeStamp(microsecondsSinceEpoch: moment + 999_999) == "20261122-143000")
        #expect(SplitNaming.timeStamp(microsecondsSinceEpoch: moment - 1) == "20261122-142959")
        #expect(SplitNaming.timeStamp(microsecondsSinceEpoch: Self.local(2027, 1, 2, 3, 4, 5)) == "20270102-030405")
    }

    @Test("inserted before the extension of the file's own name")
    func segmentPath() {
        let moment = Self.local(2026, 11, 22, 14, 30, 0)
        #expect(SplitNaming.segmentPath("take-007.wav", startMicroseconds: moment) == "take-007-20261122-143000.wav")
        #expect(SplitNaming.segmentPath("out/show.flac", startMicroseconds: moment) == "out/show-20261122-143000.flac")
        #expect(SplitNaming.segmentPath("my.dir/show", startMicroseconds: moment) == "my.dir/show-20261122-143000")
        #expect(SplitNaming.segmentPath(".hidden", startMicroseconds: moment) == ".hidden-20261122-143000")
        #expect(SplitNaming.segmentPath("a.b.wav", startMicroseconds: moment) == "a.b-20261122-143000.wav")
        #expect(TakeNaming.takeNumber(of: "take-007-20261122-143000.wav") == 7)
        #expect(TakeNaming.takeNumber(of: "take-007-20261122-143000-2.wav") == 7)
    }

    @Test("a name that is taken gets -2, -3, ...: no file is ever replaced")
    func unused() {
        let taken: Set = ["x-1.wav", "x-1-2.wav", "x-1-3.wav"]
        #expect(SplitNaming.unusedPath("x-0.wav") { taken.contains($0) } == "x-0.wav")
        #expect(SplitNaming.unusedPath("x-1.wav") { taken.contains($0) } == "x-1-4.wav")
        #expect(SplitNaming.unusedPath("x-1") { _ in false } == "x-1")
    }
}
