import Foundation

/// Where a cycle's samples first and last reach a level: the sound trigger's decisions
///, on the process thread, per sample rather than per cycle.
enum LevelTrigger {
    /// The index of the first of `count` samples whose magnitude is at least `level`, or -1.
    @_noAllocation @_noLocks
    static func firstIndex(atOrAbove level: Float, in samples: UnsafePointer<Float>, count: Int) -> Int {
        var index = 0
        while index < count {
            if abs(samples[index]) >= level { return index }
            index += 1
        }
        return -1
    }

    /// The index of the last of `count` samples whose magnitude is at least `level`, or -1.
    @_noAllocation @_noLocks
    static func lastIndex(atOrAbove level: Float, in samples: UnsafePointer<Float>, count: Int) -> Int {
        var index = count - 1
        while index >= 0 {
            if abs(samples[index]) >= level { return index }
            index -= 1
        }
        return -1
    }

    /// The amplitude of a level in dBFS (`-40` → 0.01).
    static func amplitude(decibels: Double) -> Float {
        Float(pow(10, decibels / 20))
    }

    /// The frame a take that ends after `quietFrames` below the level stops on: `quietFrames`
    /// after the last frame at or above it, once the cycle that ends at `cycleEnd` has passed
    /// it (nil before).
    @_noAllocation @_noLocks
    static func stopFrame(lastLoud: UInt32, quietFrames: Int, cycleEnd: UInt32) -> UInt32? {
        let stop = FrameTime.advance(lastLoud, by: 1 + quietFrames)
        return FrameTime.distance(from: stop, to: cycleEnd) >= 0 ? stop : nil
    }
}
