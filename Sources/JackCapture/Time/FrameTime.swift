/// JACK frame times are `jack_nframes_t`: 32 bits that wrap every 2^32 frames (about 24.9 hours at
/// 48 kHz). Two frame times are compared through their signed 32-bit difference, which is right
/// across a wrap whenever they are less than 2^31 frames (12.4 hours at 48 kHz) apart.
public enum FrameTime {
    /// Frames from `earlier` to `later`: negative when `later` is in fact before `earlier`.
    @inlinable @inline(__always)
    @_noAllocation @_noLocks
    public static func distance(from earlier: UInt32, to later: UInt32) -> Int {
        Int(Int32(bitPattern: later &- earlier))
    }

    /// The frame time `frames` after `time`, wrapping like JACK's clock.
    @inlinable @inline(__always)
    @_noAllocation @_noLocks
    public static func advance(_ time: UInt32, by frames: Int) -> UInt32 {
        time &+ UInt32(truncatingIfNeeded: frames)
    }
}
