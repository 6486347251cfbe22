import Testing
@testable import JackCapture

@Suite("The master's frame time carried in audio samples")
struct MasterTimecodeTests {
    /// `count` samples of timecode from frame `first` on.
    static func timecode(from first: UInt32, count: Int) -> [Float] {
        var samples = [Float](repeating: 0, count: count)
        samples.withUnsafeMutableBufferPointer { MasterTimecode.write(from: first, into: $0.baseAddress!, count: count) }
        return samples
    }

    static func decode(_ samples: [Float]) -> UInt32? {
        samples.withUnsafeBufferPointer { MasterTimecode.firstFrameTime(of: $0.baseAddress!, count: $0.count) }
    }

    /// Starts at 0, odd and even, on both sides of the low half's carry and of the clock's wrap.
    static let starts: [UInt32] = [0, 1, 2, 3, 12_345, 0xFFFC, 0xFFFE, 0xFFFF, 0x1_0000, 0x1_0001, 0x1234_5678,
                                   0xFFFF_FF00, 0xFFFF_FFFD, 0xFFFF_FFFE, 0xFFFF_FFFF]

    @Test(arguments: starts)
    func aPeriodDecodesToItsFirstFrame(start: UInt32) {
        for count in [3, 4, 64, 256, 1_024] {
            #expect(Self.decode(Self.timecode(from: start, count: count)) == start, "\(count) samples from \(start)")
        }
    }

    @Test(arguments: starts)
    func aPeriodAcrossTheCarryAndTheWrapDecodes(start: UInt32) {
        // 300 frames before each start: the period runs across it.
        let first = start &- 300
        #expect(Self.decode(Self.timecode(from: first, count: 1_024)) == first)
    }

    @Test func twoSamplesFromAnEvenFrameNameIt() {
        for start: UInt32 in [0, 2, 0xFFFE, 0x1_0000, 0xFFFF_FFFE] {
            #expect(Self.decode(Self.timecode(from: start, count: 2)) == start)
        }
    }

    @Test func everyValueIsExactAndAtMostOneSixteenth() {
        for frame: UInt32 in [0, 1, 0xFFFE, 0xFFFF, 0xFFFF_FFFE, 0xFFFF_FFFF] {
            let value = MasterTimecode.sample(frameTime: frame)
            #expect(value != 0)
            #expect(abs(value) <= 1.0 / 16, "frame \(frame): \(value)")
            // Through a double and back (a file's float, a link's encoding): the same bits.
            #expect(Float(Double(value)) == value)
        }
        #expect(MasterTimecode.sample(frameTime: 0xFFFF_FFFF) == -1.0 / 16)
    }

    @Test(arguments: [UInt32(0), 7, 0xFFFF, 0xFFFF_FFF0])
    func anyChangedSampleDecodesToNothing(start: UInt32) {
        let period = Self.timecode(from: start, count: 64)
        for index in period.indices {
            for changed in [period[index].nextUp, period[index].nextDown, -period[index], 0, period[index] * 2] {
                var samples = period
                samples[index] = changed
                #expect(Self.decode(samples) == nil, "sample \(index) of a period from \(start) changed to \(changed)")
            }
        }
    }

    @Test(arguments: [UInt32(0), 1, 0xFFFF, 0xFFFF_FFFF])
    func aPeriodWithPartOfItShiftedByOneSampleDecodesToNothing(start: UInt32) {
        let period = Self.timecode(from: start, count: 256)
        // A sample lost halfway (the rest one sample early), or one repeated (the rest one late).
        var early = period
        early.remove(at: 128)
        early.append(MasterTimecode.sample(frameTime: start &+ 256))
        var late = period
        late.insert(period[127], at: 128)
        late.removeLast()
        #expect(Self.decode(early) == nil)
        #expect(Self.decode(late) == nil)
        // The whole period one sample late is the timecode of the frame before: named as such.
        let shifted = [MasterTimecode.sample(frameTime: start &- 1)] + period.dropLast()
        #expect(Self.decode(shifted) == start &- 1)
    }

    @Test func silenceAndSingleSamplesDecodeToNothing() {
        #expect(Self.decode([Float](repeating: 0, count: 256)) == nil)
        #expect(Self.decode([0, 0]) == nil)
        for start: UInt32 in [0, 1, 0xFFFF_FFFF] {
            #expect(Self.decode(Self.timecode(from: start, count: 1)) == nil, "one sample from \(start)")
        }
        var nothing: Float = 0
        #expect(MasterTimecode.firstFrameTime(of: &nothing, count: 0) == nil)
    }

    @Test(arguments: starts)
    func samplesThroughSixteenBitsDecodeToNothing(start: UInt32) {
        for scale: Float in [32_768, 32_767] {
            for count in [2, 3, 256] {
                let quantized = Self.timecode(from: start, count: count).map { ($0 * scale).rounded() / scale }
                #expect(Self.decode(quantized) == nil, "\(count) samples from \(start) at 1/\(scale)")
            }
        }
    }
}
