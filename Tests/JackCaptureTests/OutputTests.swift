import Testing
import CSndfile
@testable import JackCapture

@Suite("File formats from extensions")
struct FileFormatTests {
    @Test("extensions map to libsndfile formats", arguments: [
        ("take.wav", nil, SF_FORMAT_RF64 | SF_FORMAT_PCM_24),
        ("take.WAV", BitDepth.float, SF_FORMAT_RF64 | SF_FORMAT_FLOAT),
        ("dir.x/take.w64", .int16, SF_FORMAT_W64 | SF_FORMAT_PCM_16),
        ("take.rf64", .int32, SF_FORMAT_RF64 | SF_FORMAT_PCM_32),
        ("take.caf", nil, SF_FORMAT_CAF | SF_FORMAT_PCM_24),
        ("take.aif", nil, SF_FORMAT_AIFF | SF_FORMAT_PCM_24),
        ("take.aiff", .int16, SF_FORMAT_AIFF | SF_FORMAT_PCM_16),
        ("take.flac", nil, SF_FORMAT_FLAC | SF_FORMAT_PCM_24),
        ("take.flac", .int16, SF_FORMAT_FLAC | SF_FORMAT_PCM_16),
        ("take.ogg", nil, SF_FORMAT_OGG | SF_FORMAT_VORBIS),
        ("take.opus", nil, SF_FORMAT_OGG | SF_FORMAT_OPUS),
        ("take.mp3", nil, SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III),
    ] as [(String, BitDepth?, Int)])
    func mapping(path: String, depth: BitDepth?, format: Int) throws {
        #expect(try FileFormat(path: path, bitDepth: depth).sndfileFormat == Int32(format))
    }

    @Test("unsupported pairs name what would work", arguments: [
        ("take.flac", BitDepth.float), ("take.flac", .int32), ("take.ogg", .int24), ("take.mp3", .int16), ("take.opus", .float),
    ])
    func unsupported(path: String, depth: BitDepth) {
        do {
            _ = try FileFormat(path: path, bitDepth: depth)
            Issue.record("\(path) with \(depth) should fail")
        } catch {
            guard case .unsupportedEncoding(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("use"))
        }
    }

    @Test("unknown extensions", arguments: ["take.mp4", "take", "take.", ".wav", "dir.wav/take", "take.aac"])
    func unknownExtension(path: String) {
        #expect(throws: CaptureError.self) { try FileFormat(path: path, bitDepth: nil) }
    }

    @Test("channel limits: FLAC 8, MP3 2")
    func channelLimits() throws {
        let flac = try FileFormat(path: "x.flac", bitDepth: nil)
        try flac.validate(channels: 8)
        #expect(throws: CaptureError.tooManyChannels(container: "FLAC", maximum: 8, requested: 9)) {
            try flac.validate(channels: 9)
        }
        #expect(throws: CaptureError.self) { try FileFormat(path: "x.mp3", bitDepth: nil).validate(channels: 3) }
        try FileFormat(path: "x.wav", bitDepth: nil).validate(channels: 1_024)
    }

    @Test("every mapped format is one libsndfile accepts")
    func libsndfileAccepts() throws {
        for container in FileContainer.allCases {
            for depth in (container.bitDepths ?? [nil]) as [BitDepth?] {
                let format = try FileFormat(container: container, bitDepth: depth)
                var info = SF_INFO()
                info.samplerate = 48_000
                info.channels = 2
                info.format = format.sndfileFormat
                #expect(sf_format_check(&info) == Int32(SF_TRUE), "\(format.displayName)")
            }
        }
    }
}

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
        #expect(ExitStatus(for: TakeReport.Outcome.lostFrames) == .lostFrames)
        #expect(ExitStatus(for: TakeReport.Outcome.complete) == .success)
        #expect(Set(ExitStatus.allCases.map(\.rawValue)).count == ExitStatus.allCases.count)
    }
}
