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

    @Test("no name past the highest number, however high a name in the folder is")
    func usedUp() {
        #expect(TakeNaming.nextFileName(existing: ["take-999998.wav"], fileExtension: "wav") == "take-999999.wav")
        #expect(TakeNaming.nextFileName(existing: ["take-999999.wav"], fileExtension: "wav") == nil)
        #expect(TakeNaming.nextFileName(existing: ["take-9223372036854775807.wav"], fileExtension: "wav") == nil)
    }

    @Test("take numbers")
    func numbers() {
        #expect(TakeNaming.takeNumber(of: "take-012.flac") == 12)
        #expect(TakeNaming.takeNumber(of: "take-001.wav") == 1)
        #expect(TakeNaming.takeNumber(of: "take-7") == 7)
        #expect(TakeNaming.takeNumber(of: "take-12b.wav") == nil)
        #expect(TakeNaming.takeNumber(of: "mytake-001.wav") == nil)
        #expect(TakeNaming.takeNumber(of: "take-.wav") == nil)
        #expect(TakeNaming.takeNumber(of: "take--001.wav") == nil)
        #expect(TakeNaming.takeNumber(of: "take-99999999999999999999999.wav") == nil)
    }

    @Test("a per-track file name carries its take's number")
    func perTrackNames() {
        #expect(TakeNaming.takeNumber(of: "take-007-Kick In.wav") == 7)
        #expect(TakeNaming.takeNumber(of: "take-007-overheads.wav") == 7)
        #expect(TakeNaming.takeNumber(of: "take-010-.flac") == 10)
        #expect(TakeNaming.takeNumber(of: "take-007_Kick.wav") == nil)
        #expect(TakeNaming.nextFileName(existing: ["take-007-Kick In.wav", "take-003.wav"], fileExtension: "wav") == "take-008.wav")
    }
}

@Suite("A series of files after -o (one per transport roll)")
struct NumberedPathTests {
    @Test("mix.wav gives mix-001.wav, then one past the highest number there")
    func numbered() {
        #expect(TakeNaming.nextNumberedPath(after: "mix.wav", existing: []) == "mix-001.wav")
        #expect(TakeNaming.nextNumberedPath(after: "out/mix.wav", existing: ["mix-001.wav", "mix-007.wav", "mix.wav"])
                == "out/mix-008.wav")
        #expect(TakeNaming.nextNumberedPath(after: "mix.wav", existing: ["mix-01x.wav", "mix-002.flac", "mixer-009.wav"])
                == "mix-001.wav", "only this series counts")
        #expect(TakeNaming.nextNumberedPath(after: "a.b/take", existing: ["take-999"]) == "a.b/take-1000")
        #expect(TakeNaming.nextNumberedPath(after: ".hidden", existing: []) == ".hidden-001")
    }
}
