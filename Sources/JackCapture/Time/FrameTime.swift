/// JACK frame times are `jack_nframes_t`: 32 bits that wrap every 2^32 frames (about 24.9 hours at
/// 48 kHz). Two frame times are compared through their signed 32-bit difference, which is right
/// across a wrap whenever they are less than 2^31 frames (12.4 hours at 48 kHz) apart.
package enum FrameTime {
    /// Frames from `earlier` to `later`: negative when `later` is in fact before `earlier`.
    @inlinable @inline(__always)
    @_noAllocation @_noLocks
    package static func distance(from earlier: UInt32, to later: UInt32) -> Int {
        Int(Int32(bitPattern: later &- earlier))
    }

    /// The frame time `frames` after `time`, wrapping like JACK's clock.
    @inlinable @inline(__always)
    @_noAllocation @_noLocks
    package static func advance(_ time: UInt32, by frames: Int) -> UInt32 {
        time &+ UInt32(truncatingIfNeeded: frames)
    }
}

extension FrameTime {
    /// The furthest ahead of JACK's clock a frame time can be scheduled: 2^31 - 1 frames. Frame
    /// times are compared through their signed 32-bit difference, so a time 2^31 frames or more
    /// ahead reads as one in the past (at 48 kHz, the limit is 12:25:39).
    package static let maximumLead: Int64 = Int64(Int32.max)

    /// The limit in human terms: `12:25:39 ahead at 48000 Hz` (rounded down to the second).
    package static func leadLimitDescription(sampleRate: Int) -> String {
        let seconds = sampleRate > 0 ? maximumLead / Int64(sampleRate) : 0
        let clock = [seconds / 3_600, seconds / 60 % 60, seconds % 60]
            .enumerated().map { $0.offset > 0 && $0.element < 10 ? "0\($0.element)" : "\($0.element)" }
            .joined(separator: ":")
        return "\(clock) ahead at \(sampleRate) Hz"
    }

    /// Checks that a start `frames` ahead of JACK's clock can be scheduled.
    ///
    /// - Throws: `.badTime(text, ...)` naming the limit when it is more than `maximumLead` frames
    ///   ahead.
    package static func checkLead(_ frames: Int64, sampleRate: Int, for text: String) throws(CaptureError) {
        guard frames <= maximumLead else {
            throw .badTime(text, reason: "JACK's 32-bit frame clock can schedule a start at most "
                + leadLimitDescription(sampleRate: sampleRate))
        }
    }

    /// Checks that a start `seconds` ahead of JACK's clock can be scheduled, and gives it in
    /// frames (rounded to the nearest).
    ///
    /// - Throws: `.badTime(text, ...)` when `seconds` is not finite, or too far ahead.
    package static func lead(seconds: Double, sampleRate: Int, for text: String) throws(CaptureError) -> Int64 {
        guard seconds.isFinite else { throw .badTime(text, reason: "a time is a finite number of seconds") }
        let frames = (seconds * Double(sampleRate)).rounded()
        guard frames <= Double(maximumLead) else {
            try checkLead(.max, sampleRate: sampleRate, for: text)
            return .max
        }
        return Int64(max(frames, -Double(maximumLead)))
    }

    /// Frames in `microseconds` at `sampleRate` (rounded down; 0 for a negative span), never
    /// overflowing: a wall-clock start years ahead is more microseconds than fit in Int64 once
    /// multiplied by the rate, so whole seconds and the rest are converted apart, and a count
    /// beyond Int64 (hundreds of thousands of years) is Int64.max.
    package static func frames(inMicroseconds microseconds: Int64, sampleRate: Int) -> Int64 {
        guard microseconds > 0, sampleRate > 0 else { return 0 }
        let rate = Int64(sampleRate)
        let (whole, wholeOverflow) = (microseconds / 1_000_000).multipliedReportingOverflow(by: rate)
        let rest = microseconds % 1_000_000 * rate / 1_000_000
        let (sum, sumOverflow) = whole.addingReportingOverflow(rest)
        return wholeOverflow || sumOverflow ? .max : sum
    }
}
