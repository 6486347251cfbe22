import Testing
@testable import JackCapture

@Suite("Frame gather (the disk writer's transpose)")
struct FrameGatherTests {
    /// Written around the destination's region: a NaN with a payload no sample has.
    static let sentinel = Float(bitPattern: 0x7FC0_DEAD)
    /// Sentinel samples before and after the destination's region.
    static let guardSamples = 37

    /// Channels of samples, each at its own unaligned place in one allocation, with room for
    /// `first + frames` samples read from each.
    final class Sources {
        let storage: UnsafeMutablePointer<Float>
        let pointers: UnsafeMutablePointer<UnsafePointer<Float>>
        let width: Int
        let length: Int

        init(width: Int, length: Int, value: (_ channel: Int, _ index: Int) -> Float) {
            self.width = width
            self.length = length
            // Each channel starts 0 to 3 floats past a 16-byte boundary, and 1 further apart per
            // channel, so no SIMD load is aligned in the same way twice running.
            let stride = length + 5
            let storage = UnsafeMutablePointer<Float>.allocate(capacity: width * stride + 8)
            storage.initialize(repeating: Float(bitPattern: 0x7FC0_BEEF), count: width * stride + 8)
            let pointers = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: max(1, width))
            for channel in 0..<width {
                let start = storage + channel * stride + (channel * 3 + 1) % 4
                for index in 0..<length { start[index] = value(channel, index) }
                (pointers + channel).initialize(to: UnsafePointer(start))
            }
            self.storage = storage
            self.pointers = pointers
        }

        deinit {
            storage.deallocate()
            pointers.deallocate()
        }

        func sample(_ channel: Int, _ index: Int) -> Float { pointers[channel][index] }
    }

    /// Ordinary samples, with full scale, beyond it, NaN, infinities and negative zero scattered
    /// over channels and frames.
    static func mixedSample(_ channel: Int, _ index: Int) -> Float {
        let specials: [Float] = [1.0, -1.0, 1.5, -2.0, .nan, -0.0, 0.0, .infinity, -.infinity, 0.999_999_94, -0.999_999_94]
        let key = (channel &* 31 &+ index &* 7) % 23
        if key < specials.count, (channel + index) % 5 == 0 { return specials[key] }
        // Below full scale, either sign, not a simple pattern of the position.
        let hashed = UInt32(truncatingIfNeeded: (channel &* 7_919 &+ index &* 104_729) &* 2_654_435_761)
        return (Float(hashed % 1_999_999) / 1_000_000 - 1) * 0.98
    }

    /// Peak and clips as the meters define them: a NaN is never the peak, -0.0 is 0.
    static func naiveLevels(_ samples: [Float]) -> (peak: Float, clips: Int) {
        var peak: Float = 0
        var clips = 0
        for sample in samples where !sample.isNaN {
            if sample.magnitude > peak { peak = sample.magnitude }
            if sample.magnitude >= 1 { clips += 1 }
        }
        return (peak, clips)
    }

    /// Interleaves `sources` with FrameGather into a destination surrounded by sentinels and
    /// checks it against a naive transpose, and the levels against `MeterAccumulators.measure`.
    /// Returns descriptions of what differed.
    /// `shift`: samples the destination starts past `guardSamples` (from a 64-byte boundary).
    static func check(width: Int, frames: Int, first: Int, measuring: Bool, path: Path, shift: Int = 0,
                      value: (Int, Int) -> Float = mixedSample) -> [String] {
        let sources = Sources(width: width, length: first + frames, value: value)
        let count = width * frames
        let samples = count + 2 * guardSamples + shift
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: samples * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: samples)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: sentinel, count: samples)
        let destination = buffer + guardSamples + shift
        let levels = measuring ? FrameGather.Levels(width: width) : nil
        defer { levels?.deallocate() }

        gather(path)(UnsafePointer(sources.pointers), width, first, frames, destination, levels)

        let label = "width \(width), \(frames) frames from \(first)\(measuring ? ", measuring" : "")"
            + (path == .portable ? ", in Swift" : "") + (path == .streaming ? ", streaming, shifted \(shift)" : "")
        var problems: [String] = []
        var mismatches = 0
        for frame in 0..<frames {
            for channel in 0..<width
            where destination[frame * width + channel].bitPattern != sources.sample(channel, first + frame).bitPattern {
                mismatches += 1
            }
        }
        if mismatches > 0 { problems.append("\(label): \(mismatches) samples differ from a naive transpose") }
        let before = (0..<(guardSamples + shift)).filter { buffer[$0].bitPattern != sentinel.bitPattern }.count
        let after = (0..<guardSamples).filter { destination[count + $0].bitPattern != sentinel.bitPattern }.count
        if before + after > 0 { problems.append("\(label): \(before) samples written before the region, \(after) after") }
        if let levels {
            for channel in 0..<width {
                let samples = (0..<frames).map { sources.sample(channel, first + $0) }
                let measured = MeterAccumulators.measure(sources.pointers[channel], from: first, to: first + frames)
                let naive = naiveLevels(samples)
                if levels.peak(channel).bitPattern != measured.peak.bitPattern || levels.clips(channel) != measured.clips {
                    problems.append("\(label), channel \(channel): peak \(levels.peak(channel)), clips \(levels.clips(channel)); "
                                    + "measure gives \(measured.peak), \(measured.clips)")
                }
                if measured.peak.bitPattern != naive.peak.bitPattern || measured.clips != naive.clips {
                    problems.append("\(label), channel \(channel): measure gives \(measured.peak), \(measured.clips); "
                                    + "expected \(naive.peak), \(naive.clips)")
                }
            }
        }
        return problems
    }

    /// The transposes: the writer's on this processor into its batch (`interleave`: 8 × 8 tiles
    /// in AVX2 where it runs them) or into a direct file's buffer (`streaming`), or the Swift one
    /// every processor runs.
    enum Path { case cached, streaming, portable }

    static func gather(_ path: Path) -> (UnsafePointer<UnsafePointer<Float>>, Int, Int, Int,
                                         UnsafeMutablePointer<Float>, FrameGather.Levels?) -> Void {
        switch path {
        case .portable: { FrameGather.interleaveInTilesOfFour($0, width: $1, from: $2, frames: $3, into: $4, levels: $5) }
        case .cached: { FrameGather.interleave($0, width: $1, from: $2, frames: $3, into: $4, levels: $5) }
        case .streaming:
            { FrameGather.interleave($0, width: $1, from: $2, frames: $3, into: $4, levels: $5, streaming: true) }
        }
    }

    @Test("interleave equals a naive transpose, and measures as MeterAccumulators.measure does, both ways",
          arguments: [1, 2, 3, 4, 5, 7, 8, 9, 15, 63, 64, 65, 130, 1_024])
    func interleaveMatchesNaive(width: Int) {
        var problems: [String] = []
        for frames in [0, 1, 3, 4, 5, 8, 17, 256] {
            for first in [0, 1, 2, 3, 6] {
                for measuring in [false, true] {
                    for path in [Path.cached, .portable] {
                        problems += Self.check(width: width, frames: frames, first: first, measuring: measuring,
                                               path: path)
                    }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    /// A direct file's buffer begins wherever its header left it: every alignment of the
    /// destination within a 64-byte line, widths with and without streaming stores (below 256,
    /// not a multiple of 16).
    @Test("into a direct buffer: the same transpose and levels at every alignment",
          arguments: [248, 256, 257, 264, 512, 1_024])
    func streamingMatchesNaive(width: Int) {
        var problems: [String] = []
        for frames in [0, 1, 7, 8, 9, 24, 70] {
            for first in [0, 3] {
                for measuring in [false, true] {
                    for shift in 0..<16 {
                        problems += Self.check(width: width, frames: frames, first: first, measuring: measuring,
                                               path: .streaming, shift: shift)
                    }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    @Test("levels: exact peak and clip count per channel, in the SIMD tiles, the odd channels and the last frames",
          arguments: [(5, false), (5, true), (10, false), (10, true)])
    func exactLevels(width: Int, portable: Bool) {
        // 5 channels: 0...3 go through 4 × 4 tiles, channel 4 on its own; frames 0...7 in fours,
        // frame 8 alone. 10 channels (the five twice): 0...7 in 8 × 8 tiles where AVX2 runs,
        // 8 and 9 on their own; frames 0...7 in one eight, frame 8 alone.
        let five: [[Float]] = [
            // Only NaN: the peak stays 0.
            [.nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan, .nan],
            // Only negative zero: the peak is +0.0, not -0.0 (whose bit pattern would be the
            // highest peak of all to the meters' integer compare).
            [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0],
            // Exactly full scale either way: 2 clips.
            [0.5, 1.0, -0.25, 0, -1.0, 0.999_999_94, 0, 0, 0],
            // NaN first, then above full scale: the peak is 1.5, the NaN neither peak nor clip.
            [.nan, 0.5, 1.5, -0.75, 0, 0, -1.25, 0, 0.125],
            // Full scale in the last frame, after a NaN.
            [0.25, -0.5, 0, .nan, 0.75, 0, 0, 0.5, -1.0],
        ]
        let columns = width == 5 ? five : five + five
        let expected: [(peak: Float, clips: Int)] = Array([(0, 0), (0, 0), (1.0, 2), (1.5, 2), (1.0, 1)].prefix(width))
            + (width == 5 ? [] : [(0, 0), (0, 0), (1.0, 2), (1.5, 2), (1.0, 1)])
        let sources = Sources(width: width, length: 9) { columns[$0][$1] }
        let destination = UnsafeMutablePointer<Float>.allocate(capacity: 9 * width)
        defer { destination.deallocate() }
        let levels = FrameGather.Levels(width: width)
        defer { levels.deallocate() }
        Self.gather(portable ? .portable : .cached)(UnsafePointer(sources.pointers), width, 0, 9, destination, levels)
        for channel in 0..<width {
            #expect(levels.peak(channel).bitPattern == expected[channel].peak.bitPattern,
                    "channel \(channel): peak \(levels.peak(channel))")
            #expect(levels.clips(channel) == expected[channel].clips, "channel \(channel)")
            let measured = MeterAccumulators.measure(sources.pointers[channel], from: 0, to: 9)
            #expect(measured.peak.bitPattern == expected[channel].peak.bitPattern, "channel \(channel): measure")
            #expect(measured.clips == expected[channel].clips, "channel \(channel): measure")
        }
        for frame in 0..<9 {
            for channel in 0..<width {
                #expect(destination[frame * width + channel].bitPattern == columns[channel][frame].bitPattern)
            }
        }
    }

    @Test("mono: a copy, measured the same way")
    func mono() {
        let column: [Float] = [-0.0, .nan, 0.5, -1.0, 1.0, 2.5, .nan, -0.75, 0.25, 1.0, -3.0]
        let sources = Sources(width: 1, length: column.count) { column[$1] }
        let destination = UnsafeMutablePointer<Float>.allocate(capacity: column.count)
        defer { destination.deallocate() }
        let levels = FrameGather.Levels(width: 1)
        defer { levels.deallocate() }
        // Frames 1...10: the last (-3.0, beyond full scale) is in the scalar tail.
        FrameGather.interleave(UnsafePointer(sources.pointers), width: 1, from: 1, frames: 10, into: destination, levels: levels)
        #expect(levels.peak(0) == 3.0)
        #expect(levels.clips(0) == 5)
        #expect((0..<10).allSatisfy { destination[$0].bitPattern == column[$0 + 1].bitPattern })
    }

    @Test("levels accumulate over calls until reset")
    func levelsAccumulate() {
        let sources = Sources(width: 3, length: 8) { channel, index in
            index < 4 ? Float(channel + 1) * 0.25 : (channel == 1 && index == 6 ? -1.0 : 0.125)
        }
        let destination = UnsafeMutablePointer<Float>.allocate(capacity: 24)
        defer { destination.deallocate() }
        let levels = FrameGather.Levels(width: 3)
        defer { levels.deallocate() }
        let pointers = UnsafePointer(sources.pointers)
        FrameGather.interleave(pointers, width: 3, from: 0, frames: 4, into: destination, levels: levels)
        #expect((0..<3).map { levels.peak($0) } == [0.25, 0.5, 0.75])
        FrameGather.interleave(pointers, width: 3, from: 4, frames: 4, into: destination, levels: levels)
        #expect((0..<3).map { levels.peak($0) } == [0.25, 1.0, 0.75])
        #expect((0..<3).map { levels.clips($0) } == [0, 1, 0])
        levels.reset()
        FrameGather.interleave(pointers, width: 3, from: 4, frames: 4, into: destination, levels: levels)
        #expect((0..<3).map { levels.peak($0) } == [0.125, 1.0, 0.125])
        #expect((0..<3).map { levels.clips($0) } == [0, 1, 0])
    }
}
