import JackCapture

/// How continuous a recording of the test signal is, frame by frame: what a benchmark needs to
/// compare recorders that handle trouble differently. A recorder that pads a lost stretch with
/// silence shows it as silent frames; one that skips it shows a jump in the decoded frame times;
/// one that repeats data shows a jump back. Unlike `TestSignalReport`, which demands the exact
/// signal everywhere, this resynchronises after each fault, so one fault is counted once.
public struct TestSignalContinuity: Equatable, Sendable, CustomStringConvertible {
    public var frames: Int64 = 0
    public var channels = 0
    /// All-zero frames before the first frame of signal (a new JACK client's first cycle can be
    /// silent by design); not counted as lost.
    public var leadingSilentFrames: Int64 = 0
    /// All-zero frames after the signal started: frames padded in place of lost ones.
    public var silentFrames: Int64 = 0
    /// Frames missing from the decoded timeline (a forward jump not filled with silence).
    public var missingFrames: Int64 = 0
    /// Frames repeated (a backward jump).
    public var duplicatedFrames: Int64 = 0
    /// Frames that are neither silence nor the signal on every channel (a channel swapped, garbage).
    public var corruptFrames: Int64 = 0

    /// Frames of the signal that did not make it into the file where they belong.
    public var lostFrames: Int64 { silentFrames + missingFrames }

    public var description: String {
        "frames=\(frames) channels=\(channels) leading_silence=\(leadingSilentFrames) silent=\(silentFrames) "
            + "missing=\(missingFrames) duplicated=\(duplicatedFrames) corrupt=\(corruptFrames) lost=\(lostFrames)"
    }

    /// Continuity of a recording whose channel `k` recorded the signal's channel
    /// `firstChannel + k` (0-based; a session's track file of out_7: 6).
    package static func analyze(file: SoundFile, firstChannel: Int = 0) -> TestSignalContinuity {
        var result = TestSignalContinuity()
        result.channels = file.channels
        let channels = file.channels
        let modulus = TestSignal.timeModulus
        let chunk = 16_384
        var buffer = [Float](repeating: 0, count: chunk * channels)
        var expected: Int?
        while true {
            let read = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: chunk) }
            if read <= 0 { break }
            result.frames += Int64(read)
            for frame in 0..<read {
                let base = frame * channels
                var silent = true
                for channel in 0..<channels where buffer[base + channel] != 0 { silent = false; break }
                if silent, let next = expected,
                   (0..<channels).allSatisfy({ TestSignal.sample(frameTime: UInt32(next), channel: firstChannel + $0) == 0 }) {
                    // The signal itself is zero here: one frame in 2^22 of a single channel's.
                    expected = (next + 1) % modulus
                    continue
                }
                if silent {
                    if let next = expected {
                        result.silentFrames += 1
                        expected = (next + 1) % modulus
                    } else {
                        result.leadingSilentFrames += 1
                    }
                    continue
                }
                guard let time = TestSignal.frameTime(decoding: buffer[base], channel: firstChannel) else {
                    result.corruptFrames += 1
                    expected = expected.map { ($0 + 1) % modulus }
                    continue
                }
                for channel in 1..<max(1, channels)
                where buffer[base + channel] != TestSignal.sample(frameTime: UInt32(time), channel: firstChannel + channel) {
                    result.corruptFrames += 1
                    break
                }
                if let next = expected {
                    let jump = ((time - next) % modulus + modulus) % modulus
                    if jump < modulus / 2 {
                        result.missingFrames += Int64(jump)
                    } else {
                        result.duplicatedFrames += Int64(modulus - jump)
                    }
                }
                expected = (time + 1) % modulus
            }
        }
        return result
    }

    /// A take recorded as several files (one per track): each count is the largest any file
    /// has, since a frame lost from the take is lost from every file at the same place; the
    /// channels add up.
    public static func combining(_ files: [TestSignalContinuity]) -> TestSignalContinuity {
        var result = TestSignalContinuity()
        for file in files {
            result.frames = max(result.frames, file.frames)
            result.channels += file.channels
            result.leadingSilentFrames = max(result.leadingSilentFrames, file.leadingSilentFrames)
            result.silentFrames = max(result.silentFrames, file.silentFrames)
            result.missingFrames = max(result.missingFrames, file.missingFrames)
            result.duplicatedFrames = max(result.duplicatedFrames, file.duplicatedFrames)
            result.corruptFrames = max(result.corruptFrames, file.corruptFrames)
        }
        return result
    }
}
