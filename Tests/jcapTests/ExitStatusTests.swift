import JackCapture
import Testing
@testable import jcap

// Swift Testing has an ExitStatus of its own.
typealias JcapExitStatus = jcap.ExitStatus

@Suite("Exit statuses")
struct ExitStatusTests {
    @Test("every kind of failure has its own status")
    func distinct() {
        let errors: [CaptureError] = [
            .jack(.noServer(server: nil)), .noSuchChannel(3, available: 2), .badTime("x", reason: ""),
            .startInPast("x"), .outputUnwritable("x", reason: ""), .outputExists("x"), .unsupportedExtension("x"),
            .tooManyChannels(container: "FLAC", maximum: 8, requested: 9), .jack(.activationFailed),
            .writeFailed(path: "x", reason: ""),
        ]
        #expect(JcapExitStatus(for: .jack(.clientNamedLikeServer("x"))) == .jackRefused)
        let statuses = errors.map { JcapExitStatus(for: $0) }
        #expect(Set(statuses).count == statuses.count)
        #expect(!statuses.contains(.success))
        #expect(JcapExitStatus(for: .badDuration("x", reason: "")) == .badTime)
        #expect(JcapExitStatus(for: .noPortMatches("x")) == .unknownSource)
        #expect(JcapExitStatus(for: .format(.noAACEncoder)) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .format(.qualityOutOfRange(2))) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .sampleRateConversion(inputRate: 48_000, outputRate: 0, reason: "")) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .badOption(flag: "--quality", value: "x", expected: "")) == .usage)
        #expect(JcapExitStatus(for: .metadataRefused(path: "x.w64", item: "a bext chunk", reason: "")) == .unsupportedFormat)
        #expect(JcapExitStatus(for: .metadataUnreadable(path: "x.wav", item: "the 'iXML' chunk", reason: "")) == .failure)
        #expect(JcapExitStatus(for: TakeReport.Outcome.lostFrames) == .lostFrames)
        #expect(JcapExitStatus(for: TakeReport.Outcome.complete) == .success)
        #expect(Set(JcapExitStatus.allCases.map(\.rawValue)).count == JcapExitStatus.allCases.count)
    }
}
