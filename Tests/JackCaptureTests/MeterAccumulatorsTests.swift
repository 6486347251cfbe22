import CSimd
import Testing
@testable import JackCapture

@Suite("Meter accumulation")
struct MeterAccumulationTests {
    @Test("peak, sum of squares and clips, whatever the length and alignment")
    func measure() {
        let samples: [Float] = [0.5, -1.0, 0.25, 2.0, -0.125, 0, -3.0, 0.75, 0.1]
        for start in 0..<3 {
            for end in start...samples.count {
                let slice = samples[start..<end]
                let result = samples.withUnsafeBufferPointer {
                    MeterAccumulators.measure($0.baseAddress!, from: start, to: end)
                }
                #expect(result.peak == (slice.map(\.magnitude).max() ?? 0))
                #expect(abs(result.sumOfSquares - slice.reduce(0) { $0 + $1 * $1 }) < 1e-5)
                #expect(result.clips == slice.filter { $0.magnitude >= 1 }.count)
            }
        }
    }

    /// Samples below full scale, either sign, none zero, none a simple pattern of the index.
    static func samples(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { index in
            let hashed = UInt32(truncatingIfNeeded: (index &+ seed &* 977) &* 2_654_435_761)
            return (Float(hashed % 1_999_999) / 1_000_000 - 1) * 0.9 + 0.0001
        }
    }

    static func relativelyClose(_ a: Float, _ b: Float, tolerance: Float = 1e-5) -> Bool {
        a == b || abs(a - b) <= tolerance * max(abs(a), abs(b))
    }

    /// The Swift loop, and the AVX2 one where this processor has it.
    static let copyPaths = [false] + (jcap_has_avx2() != 0 ? [true] : [])

    @Test("copyMeasuring copies exactly and measures as measure does, whatever the length and alignment",
          arguments: copyPaths)
    func copyMeasuring(inAVX2: Bool) {
        var problems: [String] = []
        for count in Array(0...40) + [1_024] {
            let source = Self.samples(count + 8, seed: count)
            for sourceOffset in [0, 1, 2, 3, 5] {
                for destinationOffset in [0, 1, 3, 4, 7] {
                    let sentinel: UInt32 = 0x7FC0_DEAD
                    var destination = [UInt32](repeating: sentinel, count: count + 16)
                    let (copied, measured) = source.withUnsafeBufferPointer { samples in
                        let copied = destination.withUnsafeMutableBufferPointer { out in
                            MeterAccumulators.copyMeasuring(samples.baseAddress! + sourceOffset,
                                                            into: UnsafeMutableRawPointer(out.baseAddress! + destinationOffset),
                                                            count: count, inAVX2: inAVX2)
                        }
                        return (copied, MeterAccumulators.measure(samples.baseAddress!, from: sourceOffset,
                                                                  to: sourceOffset + count))
                    }
                    let label = "\(count) samples from \(sourceOffset) to \(destinationOffset)"
                    let expected = source[sourceOffset..<sourceOffset + count].map(\.bitPattern)
                    if Array(destination[destinationOffset..<destinationOffset + count]) != expected {
                        problems.append("\(label): the copy differs")
                    }
                    if destination[..<destinationOffset].contains(where: { $0 != sentinel })
                        || destination[(destinationOffset + count)...].contains(where: { $0 != sentinel }) {
                        problems.append("\(label): written outside the destination")
                    }
                    if copied.peak != measured.peak { problems.append("\(label): peak \(copied.peak), measure \(measured.peak)") }
                    if !Self.relativelyClose(copied.sumOfSquares, measured.sumOfSquares) {
                        problems.append("\(label): sum of squares \(copied.sumOfSquares), measure \(measured.sumOfSquares)")
                    }
                    let naiveSum = source[sourceOffset..<sourceOffset + count].reduce(Double(0)) { $0 + Double($1) * Double($1) }
                    if !Self.relativelyClose(copied.sumOfSquares, Float(naiveSum)) {
                        problems.append("\(label): sum of squares \(copied.sumOfSquares), expected \(naiveSum)")
                    }
                    let naivePeak = source[sourceOffset..<sourceOffset + count].map(\.magnitude).max() ?? 0
                    if copied.peak != naivePeak { problems.append("\(label): peak \(copied.peak), expected \(naivePeak)") }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    @Test("copyMeasuring: a NaN is never the peak, -0.0 gives +0.0, and NaN, infinities and -0.0 are copied bit for bit",
          arguments: copyPaths)
    func copyMeasuringSpecials(inAVX2: Bool) {
        var problems: [String] = []
        for count in [1, 7, 8, 9, 15, 16, 17, 31, 32, 33] {
            for position in 0..<count {
                for special in [Float.nan, -0.0, Float.infinity, -Float.infinity, 1.0, -1.0] {
                    var source = [Float](repeating: -0.0, count: count)
                    source[position] = special
                    if position + 1 < count { source[position + 1] = -0.5 }
                    var destination = [Float](repeating: 9, count: count)
                    let copied = source.withUnsafeBufferPointer { samples in
                        destination.withUnsafeMutableBytes {
                            MeterAccumulators.copyMeasuring(samples.baseAddress!, into: $0.baseAddress!, count: count,
                                                            inAVX2: inAVX2)
                        }
                    }
                    let measured = source.withUnsafeBufferPointer { MeterAccumulators.measure($0.baseAddress!, from: 0, to: count) }
                    let naivePeak = source.filter { !$0.isNaN }.map(\.magnitude).max() ?? 0
                    let label = "\(special) at \(position) of \(count)"
                    if destination.map(\.bitPattern) != source.map(\.bitPattern) { problems.append("\(label): the copy differs") }
                    if copied.peak.bitPattern != naivePeak.bitPattern { problems.append("\(label): peak \(copied.peak)") }
                    if measured.peak.bitPattern != naivePeak.bitPattern { problems.append("\(label): measure's peak \(measured.peak)") }
                    if measured.clips != (special.magnitude >= 1 ? 1 : 0) { problems.append("\(label): \(measured.clips) clips") }
                    let sums = special.isNaN ? copied.sumOfSquares.isNaN && measured.sumOfSquares.isNaN
                        : copied.sumOfSquares == measured.sumOfSquares
                    if !sums { problems.append("\(label): sums of squares \(copied.sumOfSquares), \(measured.sumOfSquares)") }
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    @Test("a measurement of two pieces combined is the measurement of the whole")
    func combined() {
        let a = MeterAccumulators.Measurement(peak: 0.5, sumOfSquares: 1.25, clips: 2)
        let b = MeterAccumulators.Measurement(peak: 0.75, sumOfSquares: 2.5, clips: 3)
        for (first, second) in [(a, b), (b, a)] {
            let both = first.combined(with: second)
            #expect(both.peak == 0.75)
            #expect(both.sumOfSquares == 3.75)
            #expect(both.clips == 5)
        }
        let empty = MeterAccumulators.Measurement(peak: 0, sumOfSquares: 0, clips: 0)
        #expect(empty.combined(with: a).peak == 0.5 && a.combined(with: empty).peak == 0.5)
        #expect(empty.combined(with: empty).peak.bitPattern == 0)

        // Split anywhere, as a copy that wraps around the ring's end splits a cycle.
        var samples = Self.samples(100, seed: 7)
        samples[13] = -1.5
        samples[61] = 1.0
        samples[62] = 0.875
        samples.withUnsafeBufferPointer { buffer in
            let whole = MeterAccumulators.measure(buffer.baseAddress!, from: 0, to: 100)
            #expect(whole.peak == 1.5)
            #expect(whole.clips == 2)
            for split in 0...100 {
                let parts = MeterAccumulators.measure(buffer.baseAddress!, from: 0, to: split)
                    .combined(with: MeterAccumulators.measure(buffer.baseAddress!, from: split, to: 100))
                #expect(parts.peak == whole.peak, "split at \(split)")
                #expect(parts.clips == whole.clips, "split at \(split)")
                #expect(Self.relativelyClose(parts.sumOfSquares, whole.sumOfSquares), "split at \(split)")
            }
        }
    }
}
