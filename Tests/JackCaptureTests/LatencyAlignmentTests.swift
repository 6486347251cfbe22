import Testing
@testable import JackCapture

@Suite("Latency alignment: the shift, each channel's delay, and the delay lines")
struct LatencyAlignmentTests {
    @Test("the take runs the largest latency behind; each channel is delayed by the rest")
    func shiftAndDelays() {
        let alignment = LatencyAlignment(latencies: [300, 1_000, 300, 0])
        #expect(alignment.shift == 1_000)
        #expect(alignment.delays == [700, 0, 700, 1_000])
        #expect(alignment.longestDelay == 1_000)
        #expect(LatencyAlignment(latencies: [512, 512]).delays == [0, 0])
        #expect(LatencyAlignment(latencies: [-5, 10]).latencies == [0, 10], "a negative latency is none")
        #expect(LatencyAlignment(latencies: []).shift == 0)
    }

    @Test("a take aligns to the channels its files hold: one left out (a disarmed track) neither moves nor is delayed")
    func recordedChannelsOnly() {
        let alignment = Take.alignment(latencies: [300, 1_000, 300, 0], recordedChannels: [0, 2, 3])
        #expect(alignment.shift == 300)
        #expect(alignment.latencies == [300, 300, 300, 0])
        #expect(alignment.delays == [0, 0, 0, 300])
        #expect(Take.alignment(latencies: [300, 1_000], recordedChannels: [0, 1]) == LatencyAlignment(latencies: [300, 1_000]))
        #expect(Take.alignment(latencies: [300, 1_000], recordedChannels: [1]).delays == [0, 0])
    }

    @Test("no delay line when no channel is delayed")
    func noLines() {
        #expect(DelayLineSet.make(delays: [0, 0, 0]) == nil)
    }

    @Test("a delay line, fed and drained in cycles of any size, gives the input exactly `length` samples later",
          arguments: [(7, [3, 5, 16, 1, 7, 30]), (256, [256, 256, 64, 1_000]), (1, [1, 2, 3])])
    func delayedExactly(length: Int, cycles: [Int]) throws {
        let set = try #require(DelayLineSet.make(delays: [0, length]))
        defer { DelayLineSet.free(set) }
        #expect(set.pointee.count == 1 && set.pointee.lines[0].channel == 1)
        var input: [Float] = []
        var output: [Float] = []
        var next: Float = 1
        for (index, count) in cycles.enumerated() {
            var cycle = (0..<count).map { _ -> Float in defer { next += 1 }; return next }
            input += cycle
            if index == 1 {
                // A cycle not copied (before the take) still passes through the line.
                cycle.withUnsafeBufferPointer { DelayLineSet.feed(set.pointee.lines, $0.baseAddress!, count: count) }
                output += [Float](repeating: .nan, count: count)
            } else {
                cycle.withUnsafeMutableBufferPointer { DelayLineSet.delayInPlace(set.pointee.lines, $0.baseAddress!, count: count) }
                output += cycle
            }
        }
        for (position, sample) in output.enumerated() where !sample.isNaN {
            let expected: Float = position >= length ? input[position - length] : 0
            #expect(sample == expected, "position \(position)")
        }
    }
}
