import Testing
@testable import JackCapture

@Suite("Levels as a person reads them")
struct DecibelTextTests {
    @Test("signed to a tenth; at or below the one floor, -inf")
    func signedWithOneSilence() {
        #expect(DecibelText.floor == Double(ChannelMeters.floor))
        #expect(DecibelText.floor == TakeLogTrack.peakFloor)
        #expect(DecibelText.text(3) == "+3.0")
        #expect(DecibelText.text(-12) == "-12.0")
        #expect(DecibelText.text(-0.04) == " 0.0")
        #expect(DecibelText.text(-159.9) == "-159.9")
        #expect(DecibelText.text(-160) == "-inf")
        #expect(DecibelText.text(-200) == "-inf")
        #expect(DecibelText.text(-.infinity) == "-inf")
        #expect(DecibelText.text(.nan) == "-inf")
    }
}
