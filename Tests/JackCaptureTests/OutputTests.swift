import Testing
@testable import JackCapture

@Suite("Take names")
struct TakeNamingTests {
    @Test("the first take is take-001")
    func first() {
        #expect(TakeNaming.nextFileName(existing: [], fileExtension: "wav") == "take-001.wav")
        #expect(TakeNaming.nextFileName(existing: ["notes.txt", "take-.wav", "take-x.wav"], fileExtension: "flac") == "take-001.flac")
    }

    @Test("a number is never reused, whatever the extension, even after a deletion")
    func neverReused() {
        #expect(TakeNaming.nextFileName(existing: ["take-001.wav", "take-003.flac"], fileExtension: "wav") == "take-004.wav")
        #expect(TakeNaming.nextFileName(existing: ["take-999.wav"], fileExtension: "wav") == "take-1000.wav")
        #expect(TakeNaming.nextFileName(existing: ["take-0042.wav", "take-7"], fileExtension: "caf") == "take-043.caf")
    }

    @Test("take numbers")
    func numbers() {
        #expect(TakeNaming.takeNumber(of: "take-012.flac") == 12)
        #expect(TakeNaming.takeNumber(of: "take-12b.wav") == nil)
        #expect(TakeNaming.takeNumber(of: "mytake-001.wav") == nil)
    }
}

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
        #expect(ExitStatus(for: .jack(.clientNamedLikeServer("x"))) == .jackRefused)
        let statuses = errors.map { ExitStatus(for: $0) }
        #expect(Set(statuses).count == statuses.count)
        #expect(!statuses.contains(.success))
        #expect(ExitStatus(for: .badDuration("x", reason: "")) == .badTime)
        #expect(ExitStatus(for: .noPortMatches("x")) == .unknownSource)
        #expect(ExitStatus(for: .format(.noAACEncoder)) == .unsupportedFormat)
        #expect(ExitStatus(for: .format(.qualityOutOfRange(2))) == .unsupportedFormat)
        #expect(ExitStatus(for: .badOption(flag: "--quality", value: "x", expected: "")) == .usage)
        #expect(ExitStatus(for: TakeReport.Outcome.lostFrames) == .lostFrames)
        #expect(ExitStatus(for: TakeReport.Outcome.complete) == .success)
        #expect(Set(ExitStatus.allCases.map(\.rawValue)).count == ExitStatus.allCases.count)
    }
}
