import Foundation

/// One output port's gain, moving to a new target in a straight line over a short ramp instead
/// of jumping (a jump is a click; a step each cycle is zipper noise): every frame moves by the
/// same amount, and the last frame of the ramp lands on the target exactly.
struct GainRamp: Equatable {
    private(set) var current: Float
    private(set) var target: Float
    private var start: Float
    private var length = 0
    private var remaining = 0

    @_noAllocation @_noLocks
    init(gain: Float) {
        current = gain
        target = gain
        start = gain
    }

    /// Heads for `gain` over `frames` frames from the current gain (at once for `frames` 0).
    @_noAllocation @_noLocks
    mutating func retarget(_ gain: Float, frames: Int) {
        guard gain != target else { return }
        target = gain
        if frames <= 0 || gain == current {
            snap()
            return
        }
        start = current
        length = frames
        remaining = frames
    }

    /// Jumps to the target (while nothing plays, there is nothing to click).
    @_noAllocation @_noLocks
    mutating func snap() {
        current = target
        remaining = 0
    }

    /// The gain for the next frame: frame k of the ramp (1...length) is start + (target - start)
    /// × k / length, computed afresh each frame so no rounding accumulates.
    @_noAllocation @_noLocks
    mutating func next() -> Float {
        guard remaining > 0 else { return target }
        remaining -= 1
        current = remaining == 0 ? target : start + (target - start) * (Float(length - remaining) / Float(length))
        return current
    }

    var isRamping: Bool { @_noAllocation @_noLocks get { remaining > 0 } }
}

/// The gain of each output port of a file for a volume and a pan.
enum PanLaw {
    /// - A mono file spread to two ports: equal power, `cos` and `sin` of (pan + 1) × π/4 (each
    ///   port -3.01 dB in the middle, one port silent at either end).
    /// - A stereo file: balance: the side panned away from falls to silence linearly, the other
    ///   stays at full level.
    /// - Any other layout: the volume alone (pan does not apply).
    ///
    /// - Parameters:
    ///   - volume: 0...1 (clamped); pan: -1 (left) ... 1 (right) (clamped).
    static func gain(volume: Float, pan: Float, channels: Int, ports: Int, port: Int) -> Float {
        let volume = min(max(volume, 0), 1)
        let pan = min(max(pan, -1), 1)
        if channels == 1 && ports == 2 {
            let angle = (pan + 1) * Float.pi / 4
            return volume * (port == 0 ? cos(angle) : sin(angle))
        }
        if channels == 2 && ports == 2 {
            if port == 0 { return volume * (pan <= 0 ? 1 : 1 - pan) }
            return volume * (pan >= 0 ? 1 : 1 + pan)
        }
        return volume
    }
}
