/// The master's frame time carried in an audio channel, so that a recorder on a NetJACK2 slave
/// knows which of the master's frames each of its own frames is (`jcap timecode` writes it on
/// the master; `--master-clock PORT` reads it on the slave).
///
/// NetJACK2 carries audio and nothing else a client can read: the slave's frame time is its own
/// count, and neither the link's offset nor a jump of the master's clock (its xrun, a link
/// dropout) crosses it. A spare link channel carrying the master's frame time does.
///
/// Each frame carries half of its own frame time, in a value exact in a 32-bit float (so the
/// link's float encoding passes it bit for bit): an even frame `t` carries its low 16 bits,
/// `+(1 + t & 0xFFFF) / 2^20`, an odd frame its high 16 bits, `-(1 + t >> 16) / 2^20`. Any two
/// frames in a row name both (an even frame and the odd one after it share the high bits), and a
/// whole period is checked sample by sample against the frame time its first two name, so a
/// period with any sample out of place (a packet lost inside the cycle, the next period's packets
/// written over a late copy, an unpatched port) decodes to nothing. The level stays at or under
/// 1/16 (-24 dBFS): a timecode patched to speakers by mistake is loud, not dangerous.
package enum MasterTimecode {
    /// 2^20: the values are k / 2^20 for k from 1 to 65,536, all exact in a float.
    static var scale: Float { @_noAllocation @_noLocks get { 1_048_576 } }

    /// The sample that frame `frame` carries.
    @_noAllocation @_noLocks
    package static func sample(frameTime frame: UInt32) -> Float {
        if frame & 1 == 0 {
            return Float(1 + (frame & 0xFFFF)) / scale
        }
        return -Float(1 + (frame >> 16)) / scale
    }

    /// Writes the timecode of the frames from `first` on into `count` samples.
    @_noAllocation @_noLocks
    package static func write(from first: UInt32, into samples: UnsafeMutablePointer<Float>, count: Int) {
        var index = 0
        while index < count {
            samples[index] = sample(frameTime: first &+ UInt32(truncatingIfNeeded: index))
            index += 1
        }
    }

    /// The frame time of the first of `count` samples of timecode, or nil when they are not
    /// timecode of consecutive frames, every one exact (fewer than two samples name nothing).
    @_noAllocation @_noLocks
    package static func firstFrameTime(of samples: UnsafePointer<Float>, count: Int) -> UInt32? {
        guard count >= 2 else { return nil }
        // The first even frame, and the odd one after it.
        let even = samples[0] > 0 ? 0 : 1
        guard even + 1 < count, let low = code(samples[even]), let high = code(-samples[even + 1]), low & 1 == 0
        else { return nil }
        let first = (high << 16 | low) &- UInt32(truncatingIfNeeded: even)
        var index = 0
        while index < count {
            if samples[index] != sample(frameTime: first &+ UInt32(truncatingIfNeeded: index)) { return nil }
            index += 1
        }
        return first
    }

    /// The 16 bits a positive sample carries, or nil when it is not one of the timecode's values.
    @_noAllocation @_noLocks
    private static func code(_ value: Float) -> UInt32? {
        guard value > 0, value <= 65_536 / scale else { return nil }
        let scaled = value * scale
        // Whole from 1 to 65,536 (in range, so the conversion cannot trap; `rounded(_:)` takes a
        // rounding rule, whose metadata the real-time thread may not touch).
        let whole = UInt32(scaled)
        guard whole >= 1, Float(whole) == scaled else { return nil }
        return whole - 1
    }
}
