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
}
