import CJack
import Glibc

/// Converts a wall-clock moment (CLOCK_REALTIME) to JACK's clock (`jack_get_time`), to the
/// nanosecond. jack2 on Linux reads CLOCK_MONOTONIC_RAW (older builds CLOCK_MONOTONIC); which one
/// is found by comparing with `jack_get_time` itself.
///
/// The offset is measured by reading the wall clock on both sides of a reading of JACK's clock
/// source and keeping the narrowest of several brackets, so two processes that convert the same
/// moment at the same time get the same nanosecond within a few tens of nanoseconds (a
/// thousandth of a frame at 48 kHz). Reading `jack_get_time` itself would cost a microsecond of
/// truncation: about one trial in twenty would then land on a neighbouring frame.
///
/// NTP slews the wall clock against CLOCK_MONOTONIC_RAW (typically by tens of parts per million),
/// so the offset moves slowly: a take waiting for a wall-clock start converts its moment again
/// every 10 ms until its cycle comes (`Take.pump`), and what two processes convert differs by
/// the slew over those 10 ms at most (0.2 µs at 20 ppm).
package enum WallClockToJack {
    /// JACK's clock, in nanoseconds, at the wall-clock moment `microsecondsSinceEpoch`.
    package static func jackNanoseconds(atWallClockMicroseconds microsecondsSinceEpoch: Int64) -> Int64 {
        let (product, overflow) = microsecondsSinceEpoch.multipliedReportingOverflow(by: 1_000)
        if overflow { return microsecondsSinceEpoch < 0 ? .min : .max }
        return product &- wallMinusJackNanoseconds()
    }

    /// CLOCK_REALTIME minus JACK's clock, in nanoseconds.
    package static func wallMinusJackNanoseconds() -> Int64 {
        guard let source = jackClockSource() else {
            // A clock jcap cannot read itself: JACK's own microseconds, bracketed.
            let before = nanoseconds(CLOCK_REALTIME)
            let jack = Int64(jack_get_time()) * 1_000 + 500
            let after = nanoseconds(CLOCK_REALTIME)
            return before + (after - before) / 2 - jack
        }
        var best: (width: Int64, offset: Int64) = (.max, 0)
        for _ in 0..<16 {
            let before = nanoseconds(CLOCK_REALTIME)
            let jack = nanoseconds(source)
            let after = nanoseconds(CLOCK_REALTIME)
            let width = after - before
            if width >= 0 && width < best.width {
                best = (width, before + width / 2 - jack)
            }
        }
        return best.offset
    }

    /// The clock `jack_get_time` reads: the one of CLOCK_MONOTONIC_RAW and CLOCK_MONOTONIC whose
    /// microseconds it gives, or nil for neither.
    static func jackClockSource() -> clockid_t? {
        for clock in [CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC] {
            let before = nanoseconds(clock) / 1_000
            let jack = Int64(jack_get_time())
            let after = nanoseconds(clock) / 1_000
            if jack >= before && jack <= after { return clock }
        }
        return nil
    }

    private static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
