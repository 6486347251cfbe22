import Testing
@testable import JackCapture

@Suite("Test signal encoding")
struct TestSignalTests {
    @Test("every sample decodes to its frame time, on its channel only")
    func roundTrip() {
        for channel in [0, 1, 7, 63, 511, 1_023] {
            for time in [UInt32(0), 1, 4_093, 2_097_151, 4_194_303, 4_194_304, 123_456_789, UInt32.max] {
                let sample = TestSignal.sample(frameTime: time, channel: channel)
                #expect(abs(sample) <= 0.25)
                #expect(TestSignal.frameTime(decoding: sample, channel: channel) == Int(time) % TestSignal.timeModulus)
                if channel > 0 {
                    #expect(TestSignal.frameTime(decoding: sample, channel: channel - 1) != Int(time) % TestSignal.timeModulus)
                }
            }
        }
    }

    @Test("render matches sample, across the modulus")
    func render() {
        var buffer = [Float](repeating: 9, count: 300)
        let start = UInt32(TestSignal.timeModulus - 100)
        buffer.withUnsafeMutableBufferPointer { TestSignal.render(into: $0.baseAddress!, frames: 300, start: start, channel: 5) }
        for index in 0..<300 {
            #expect(buffer[index] == TestSignal.sample(frameTime: start &+ UInt32(index), channel: 5))
        }
    }

    @Test("24-bit PCM holds every code exactly (libsndfile scaling and rounding)")
    func twentyFourBit() {
        for code in [-(1 << 21), -1, 0, 1, (1 << 21) - 1] {
            let sample = Float(code) / Float(1 << 23)
            let pcm = Int((sample * Float(0x7F_FFFF)).rounded())
            #expect(pcm == code)
            #expect(Float(pcm) / Float(1 << 23) == sample)
        }
    }
}
