/// Extends JACK's 32-bit frame time (which wraps every 24.9 hours at 48 kHz) to 64 bits: each
/// reading counts the wraps since the last. Readings must come less than a wrap apart; the event
/// thread reads it while recording.
struct FrameClockExtension {
    private var last: UInt32?
    private var wraps: UInt64 = 0

    mutating func extend(_ frame: UInt32) -> UInt64 {
        if let last, frame < last, FrameTime.distance(from: last, to: frame) > 0 { wraps += 1 }
        if last == nil || FrameTime.distance(from: last!, to: frame) >= 0 { last = frame }
        // Frame 0 is the server's first frame: the clock is never read as 0.
        return max(1, wraps << 32 | UInt64(last!))
    }

    mutating func keepCurrent(with frame: UInt32?) {
        if let frame { _ = extend(frame) }
    }
}
