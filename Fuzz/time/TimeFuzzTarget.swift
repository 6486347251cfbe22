import FuzzDriver
@testable import JackCapture

/// The time and duration parsers, as `--at`, `--for`, `--split` and `--buffer` (and a session's
/// `buffer`) use them: any text must parse or be refused with an error, never trap, and what
/// parses must be usable (frames at every rate a server runs, its description, a start's moment).
@_cdecl("LLVMFuzzerTestOneInput")
public func timeFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let sampleRates = [1, 8_000, 44_100, 48_000, 192_000, 768_000]

    // --for and --buffer: a duration, counted at every rate. (Its description need not read back:
    // `999999999999h` is written in seconds, more digits than a duration may have.)
    if let duration = try? CaptureDuration(parsing: text) {
        _ = duration.isZero
        _ = duration.description
        for rate in sampleRates {
            _ = try? duration.frames(atSampleRate: rate)
            _ = try? duration.takeLength(atSampleRate: rate)
        }
        // --buffer's seconds, as the record command and a session file compute them.
        switch duration {
        case .frames(let frames): _ = Double(frames) / 1_000_000
        case .seconds(let numerator, let denominator): _ = Double(numerator) / Double(denominator)
        }
    }

    // --split.
    if let interval = try? SplitInterval(parsing: text) {
        guard (try? SplitInterval(parsing: interval.description)) == interval else {
            fatalError("split '\(text)' does not read back from '\(interval.description)'")
        }
        _ = SplitInterval.microsecondsUntilNextBoundary(sinceMidnight: 12 * 3_600 * 1_000_000 + 1, interval: interval.seconds * 1_000_000)
    }

    // --at.
    if let start = try? StartTime(parsing: text) {
        let written = start.description
        if case .afterReady = start {} else if (try? StartTime(parsing: written)) != start {
            fatalError("start '\(text)' does not read back from '\(written)'")
        }
        for rate in sampleRates { _ = try? start.validate(sampleRate: rate) }
        _ = start.wallClockMicroseconds(now: 1_795_000_000_000_000)
    }
    return 0
}

/// SwiftPM links an executable's `main` to `fuzz_time_main`: libFuzzer's driver runs from there.
@_cdecl("fuzz_time_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv, timeFuzzTarget)
}
