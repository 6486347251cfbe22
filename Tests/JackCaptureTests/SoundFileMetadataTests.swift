import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import JackCapture

/// Metadata written to real files of each container, read back after the audio and the close.
@Suite("Sound file metadata (bext, iXML, tags)", .serialized)
struct SoundFileMetadataTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-metadata-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// 2024-07-01 12:34:56.789012 UTC: 14:34:56.789012 in Berlin (summer time).
    static let start: Int64 = 1_719_837_296_789_012
    /// 2024-07-01 12:35:10 UTC: 14:35:10 in Berlin.
    static let origination: Int64 = 1_719_837_310_000_000
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let utc = TimeZone(secondsFromGMT: 0)!

    func metadata(sampleRate: Int = 48_000) -> TakeFileMetadata {
        TakeFileMetadata(sessionName: "Live at Mo's & <Co>", takeNumber: 7,
                         tracks: [.init(name: "Kick", channel: 1), .init(name: "Sn\"are é", channel: 2)],
                         note: "second set",
                         originationMicrosecondsSinceEpoch: Self.origination, sampleRate: sampleRate,
                         startMicrosecondsSinceEpoch: Self.start, timeZone: Self.berlin)
    }

    func create(_ name: String, format: AudioFormat? = nil, channels: Int = 2) throws -> SoundFile {
        let path = folder + "/" + name
        return try SoundFile.create(path: path, format: try RecordingSettings(format: format).resolveFormat(forPath: path),
                                    channels: channels, sampleRate: 48_000, overwrite: false)
    }

    /// A ramp, different on every sample, so shifted or lost frames show.
    func samples(frames: Int, channels: Int, from first: Int = 0) -> [Float] {
        (0..<frames * channels).map { Float((first * channels + $0) % 1_000) / 2_000 }
    }

    func write(_ file: SoundFile, frames: Int, from first: Int = 0) throws {
        let block = samples(frames: frames, channels: file.channels, from: first)
        try block.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            try file.write(interleaved: buffer.baseAddress!, frames: frames)
        }
    }

    /// Every sample of a file.
    func decoded(_ path: String) throws -> [Float] {
        let file = try SoundFile.open(readingFrom: path)
        var samples = [Float](repeating: 0, count: Int(file.frames) * file.channels)
        let read = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Int(file.frames)) }
        #expect(Int64(read) == file.frames)
        return samples
    }

    /// Reads the whole file back and checks it is the ramp `write` wrote.
    func expectAudio(_ path: String, frames: Int, tolerance: Float = 1e-6) throws {
        let back = try decoded(path)
        #expect(back.count == frames * 2, "\(path): \(back.count / 2) frames")
        let worst = zip(back, samples(frames: frames, channels: 2)).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= tolerance, "\(path): samples differ by up to \(worst)")
    }

    func fourCC(_ path: String) throws -> String {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        return String(decoding: try handle.read(upToCount: 4) ?? Data(), as: UTF8.self)
    }

    // MARK: WAV and RF64: bext and iXML

    @Test("WAV (RF64 that stays RIFF), RF64 and plain WAV carry the bext chunk and the iXML chunk",
          arguments: [("take.wav", nil, "RIFF"), ("take.rf64", nil, "RF64"), ("adpcm.wav", AudioFormat.imaADPCM, "RIFF")])
    func broadcastWave(name: String, format: AudioFormat?, container: String) throws {
        let file = try create(name, format: format)
        let metadata = metadata()
        #expect(try file.apply(metadata) == [.broadcastInfo, .iXML])
        #expect(file.broadcastInfo()?.timeReference == 2_519_845_872, "readable while writing")
        try write(file, frames: 4_800)
        file.updateHeader()  // jcap rewrites the header twice a second while recording
        try write(file, frames: 4_800, from: 4_800)
        try file.close()
        #expect(try fourCC(file.path) == container)
        if format == .imaADPCM {
            // Lossy, and padded to whole blocks: the audio must be what the same file without
            // metadata holds, sample for sample.
            let plain = try create("plain-" + name, format: format)
            try write(plain, frames: 4_800)
            plain.updateHeader()
            try write(plain, frames: 4_800, from: 4_800)
            try plain.close()
            #expect(try decoded(file.path) == decoded(plain.path))
        } else {
            try expectAudio(file.path, frames: 9_600)
        }

        let reader = try SoundFile.open(readingFrom: file.path)
        let bext = try #require(reader.broadcastInfo())
        #expect(bext.description == "session: Live at Mo's & <Co>; take: 7; tracks: 1 Kick, 2 Sn\"are é; second set")
        #expect(bext.originator == "jcap")
        #expect(bext.originatorReference == "")
        #expect(bext.originationDate == "2024-07-01")
        #expect(bext.originationTime == "14:35:10", "local time in Berlin")
        // 14:34:56.789012 is 52,496.789012 s after midnight: 2,519,845,872.576 samples at 48 kHz.
        #expect(bext.timeReference == 2_519_845_872)
        #expect(bext.version == 2)
        #expect(bext.codingHistory.contains("F=48000"), "libsndfile's own line: \(bext.codingHistory)")

        let chunk = try #require(try reader.chunk(id: "iXML"))
        #expect(chunk.count % 4 == 0)
        #expect(!chunk.contains(0), "padded with spaces, not the zeros libsndfile would add")
        let text = String(decoding: chunk, as: UTF8.self)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == metadata.iXML.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try reader.chunk(id: "abcd") == nil)
        #expect(reader.string(.title) == nil, "no tags in WAV: bext and iXML say it")
        #if canImport(FoundationXML)
        try expectIXML(chunk)
        #endif
    }

    #if canImport(FoundationXML)
    /// The iXML chunk parses, and its values are the metadata's, unescaped.
    func expectIXML(_ chunk: [UInt8]) throws {
        let document = try XMLDocument(data: Data(chunk))
        func values(_ path: String) throws -> [String] {
            try document.nodes(forXPath: path).compactMap(\.stringValue)
        }
        #expect(try values("/BWFXML/PROJECT") == ["Live at Mo's & <Co>"])
        #expect(try values("/BWFXML/TAKE") == ["7"])
        #expect(try values("/BWFXML/NOTE") == ["second set"])
        #expect(try values("/BWFXML/TRACK_LIST/TRACK_COUNT") == ["2"])
        #expect(try values("/BWFXML/TRACK_LIST/TRACK/CHANNEL_INDEX") == ["1", "2"])
        #expect(try values("/BWFXML/TRACK_LIST/TRACK/INTERLEAVE_INDEX") == ["1", "2"])
        #expect(try values("/BWFXML/TRACK_LIST/TRACK/NAME") == ["Kick", "Sn\"are é"])
        #expect(try values("/BWFXML/SPEED/TIMESTAMP_SAMPLE_RATE") == ["48000"])
        #expect(try values("/BWFXML/SPEED/TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI") == ["0"])
        #expect(try values("/BWFXML/SPEED/TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO") == ["2519845872"])
    }
    #endif

    @Test("sndfile-info reads the same bext chunk and lists the iXML chunk")
    func sndfileInfoAgrees() throws {
        guard let tool = ["/usr/bin/sndfile-info", "/usr/local/bin/sndfile-info"].first(where: FileManager.default.isExecutableFile) else {
            print("note: sndfile-info is not installed (sndfile-programs); not compared")
            return
        }
        let file = try create("info.wav")
        try file.apply(metadata())
        try write(file, frames: 480)
        try file.close()
        func run(_ arguments: [String]) throws -> String { try ChildProcess.run(tool, arguments).output }
        let broadcast = try run(["--broadcast", file.path])
        let fields = Dictionary(broadcast.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].trimmingCharacters(in: .whitespaces),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }, uniquingKeysWith: { first, _ in first })
        #expect(fields["Description"] == "session: Live at Mo's & <Co>; take: 7; tracks: 1 Kick, 2 Sn\"are é; second set")
        #expect(fields["Originator"] == "jcap")
        #expect(fields["Origination date"] == "2024-07-01")
        #expect(fields["Origination time"] == "14:35:10")
        // sndfile-info prints the time reference in hexadecimal, then in seconds: `0x09631cbf0 (52496.789000 seconds)`.
        let reference = fields["Time ref"]?.split(separator: " ").first.flatMap { UInt64($0.dropFirst(2), radix: 16) }
        #expect(reference == 2_519_845_872, "\(broadcast)")
        #expect(fields["BWF version"] == "2")
        let chunks = try run([file.path])
        #expect(chunks.contains("bext : "), "\(chunks)")
        #expect(chunks.range(of: "iXML : [0-9]+", options: .regularExpression) != nil, "\(chunks)")
    }

    // MARK: W64: nothing

    @Test("W64 gets nothing: libsndfile 1.2.0 writes no bext, no other chunk and no tag to it")
    func wave64() throws {
        let file = try create("take.w64")
        #expect(try file.apply(metadata()) == [])
        #expect(throws: CaptureError.metadataRefused(
            path: file.path, item: "a bext chunk",
            reason: "libsndfile writes one only to WAV and RF64 files, before the first write of audio")) {
            try file.setBroadcastInfo(BroadcastInfo(description: "x"))
        }
        do {
            try file.setChunk(id: "iXML", data: Array("<BWFXML/>".utf8))
            Issue.record("a W64 file took a chunk")
        } catch {
            guard case .metadataRefused(_, "a 'iXML' chunk", let reason) = error else { throw error }
            #expect(reason.contains("not supported"), "libsndfile's reason: \(reason)")
        }
        #expect(throws: CaptureError.self) { try file.setString(.title, "Kick") }
        try write(file, frames: 480)
        try file.close()
        try expectAudio(file.path, frames: 480)
        let reader = try SoundFile.open(readingFrom: file.path)
        #expect(reader.broadcastInfo() == nil)
        #expect(try reader.chunk(id: "iXML") == nil)
        #expect(reader.string(.title) == nil)
    }

    // MARK: FLAC and Ogg: tags

    @Test("FLAC, Ogg Vorbis and Ogg Opus carry the names as tags", arguments: ["take.flac", "take.ogg", "take.opus"])
    func tags(name: String) throws {
        let file = try create(name)
        #expect(try file.apply(metadata()) == .tags)
        try write(file, frames: 4_800)
        try file.close()
        let reader = try SoundFile.open(readingFrom: file.path)
        #expect(reader.frames == 4_800)
        #expect(reader.string(.title) == "Kick, Sn\"are é")
        #expect(reader.string(.album) == "Live at Mo's & <Co>")
        #expect(reader.string(.comment) == "take 7: second set")
        #expect(reader.string(.software)?.hasPrefix("jcap") == true, "libsndfile appends its own name: \(reader.string(.software) ?? "nil")")
        #expect(reader.string(.date) == "2024-07-01")
        #expect(reader.broadcastInfo() == nil)
        #expect(try reader.chunk(id: "iXML") == nil)
    }

    @Test("a take without named tracks is titled by session and take")
    func untitledTracks() throws {
        var metadata = metadata()
        metadata.tracks = []
        metadata.note = nil
        let file = try create("untitled.flac")
        try file.apply(metadata)
        try write(file, frames: 480)
        try file.close()
        let reader = try SoundFile.open(readingFrom: file.path)
        #expect(reader.string(.title) == "Live at Mo's & <Co> take 7")
        #expect(reader.string(.comment) == "take 7")
        #expect(metadata.broadcastDescription == "session: Live at Mo's & <Co>; take: 7")
        #expect(metadata.iXML.contains("<TRACK_COUNT>0</TRACK_COUNT>"))
        #expect(!metadata.iXML.contains("<NOTE>"))
    }

    @Test("other containers get nothing from apply", arguments: ["take.aiff", "take.caf", "take.au"])
    func otherContainers(name: String) throws {
        let file = try create(name)
        #expect(try file.apply(metadata()) == [])
        try write(file, frames: 480)
        try file.close()
        #expect(try SoundFile.open(readingFrom: file.path).chunk(id: "iXML") == nil)
    }

    // MARK: Order and refusals

    @Test("metadata must precede the audio: bext and chunks are refused after it, the audio stays intact")
    func afterAudio() throws {
        let file = try create("late.wav")
        try write(file, frames: 480)
        #expect(throws: CaptureError.self) { try file.setBroadcastInfo(BroadcastInfo(description: "late")) }
        #expect(throws: CaptureError.metadataRefused(path: file.path, item: "a 'iXML' chunk",
                                                     reason: "audio is already written (a chunk must come first)")) {
            try file.setChunk(id: "iXML", data: Array("abcd".utf8))
        }
        #expect(throws: CaptureError.self) { try file.apply(metadata()) }
        try write(file, frames: 480, from: 480)
        try file.close()
        try expectAudio(file.path, frames: 960)
        let reader = try SoundFile.open(readingFrom: file.path)
        #expect(reader.broadcastInfo() == nil)
        #expect(try reader.chunk(id: "iXML") == nil)

        let flac = try create("late.flac")
        try write(flac, frames: 480)
        #expect(throws: CaptureError.self) { try flac.setString(.title, "late") }
        try flac.close()
    }

    @Test("a chunk id is four printable ASCII characters")
    func chunkIDs() throws {
        let file = try create("ids.wav")
        for id in ["iXM", "iXMLs", "", "iX\u{1}L", "ïXML"] {
            #expect(throws: CaptureError.self, "\(id.debugDescription)") { try file.setChunk(id: id, data: [1, 2, 3, 4]) }
        }
        try file.setChunk(id: "jcap", data: [1, 2, 3, 4])
        try write(file, frames: 480)
        try file.close()
        #expect(try SoundFile.open(readingFrom: file.path).chunk(id: "jcap") == [1, 2, 3, 4])
    }

    @Test("apply refuses tracks outside the file's channels and metadata for another sample rate")
    func applyRefusals() throws {
        let file = try create("refused.wav")
        var metadata = metadata()
        metadata.tracks.append(.init(name: "Ghost", channel: 3))
        #expect(throws: CaptureError.metadataRefused(path: file.path, item: "track 'Ghost'",
                                                     reason: "channel 3 is not one of the file's 1-2")) {
            try file.apply(metadata)
        }
        metadata.tracks = [.init(name: "Zero", channel: 0)]
        #expect(throws: CaptureError.self) { try file.apply(metadata) }
        #expect(throws: CaptureError.metadataRefused(path: file.path, item: "the take's metadata",
                                                     reason: "it is for 44100 Hz but the file is 48000 Hz")) {
            try file.apply(self.metadata(sampleRate: 44_100))
        }
        #expect(try file.apply(self.metadata()) == [.broadcastInfo, .iXML], "nothing was written by the refusals")
        try file.close()
    }

    @Test("bext text fields are segmentStart to their sizes between characters, never inside one")
    func fieldSizes() throws {
        let file = try create("long.wav")
        try file.setBroadcastInfo(BroadcastInfo(description: String(repeating: "é", count: 200),
                                                originator: String(repeating: "o", count: 40),
                                                originatorReference: "x€" + String(repeating: "r", count: 29),
                                                originationDate: "2024-07-01T00:00", originationTime: "14:35:10.5",
                                                timeReference: UInt64(UInt32.max) + 5))
        try write(file, frames: 480)
        try file.close()
        let bext = try #require(try SoundFile.open(readingFrom: file.path).broadcastInfo())
        #expect(bext.description == String(repeating: "é", count: 128), "256 bytes of 2-byte characters")
        #expect(bext.originator == String(repeating: "o", count: 32))
        #expect(bext.originatorReference == "x€" + String(repeating: "r", count: 28), "the last r would not fit")
        #expect(bext.originationDate == "2024-07-01")
        #expect(bext.originationTime == "14:35:10")
        #expect(bext.timeReference == UInt64(UInt32.max) + 5, "both 32-bit halves")
        #expect(SoundFile.prefix("aé", bytes: 2) == "a")
        #expect(SoundFile.prefix("", bytes: 0) == "")
        #expect(SoundFile.prefix("👍🏽x", bytes: 8) == "👍🏽", "a skin-toned emoji is one character of 8 bytes")
    }

    // MARK: The iXML document and the time reference

    @Test("names are XML-escaped; characters XML cannot hold are dropped")
    func xmlEscaping() {
        #expect(TakeFileMetadata.xmlEscaped("a&b<c>\"d'e\u{1}f\tg\u{FFFE}h") == "a&amp;b&lt;c&gt;&quot;d&apos;ef\tgh")
        let metadata = TakeFileMetadata(sessionName: "<s>", takeNumber: 1, tracks: [.init(name: "a&b", channel: 1)],
                                        originationMicrosecondsSinceEpoch: 0, sampleRate: 48_000,
                                        startMicrosecondsSinceEpoch: 0, timeZone: Self.utc)
        #expect(metadata.iXML.contains("<PROJECT>&lt;s&gt;</PROJECT>"))
        #expect(metadata.iXML.contains("<NAME>a&amp;b</NAME>"))
    }

    struct TimeReferenceCase: Sendable, CustomTestStringConvertible {
        let microseconds: Int64
        let sampleRate: Int
        let zone: String
        let samples: UInt64
        let why: String
        var testDescription: String { why }
    }

    @Test("samples since local midnight", arguments: [
        TimeReferenceCase(microseconds: 500_000, sampleRate: 48_000, zone: "UTC", samples: 24_000,
                          why: "half a second into 1970 in UTC"),
        TimeReferenceCase(microseconds: 1_719_837_296_789_012, sampleRate: 44_100, zone: "UTC", samples: 1_997_588_395,
                          why: "12:34:56.789012 UTC at 44.1 kHz, rounded down"),
        TimeReferenceCase(microseconds: 1_719_837_296_789_012, sampleRate: 48_000, zone: "Europe/Berlin",
                          samples: 2_519_845_872, why: "14:34:56.789012 in Berlin's summer time"),
        TimeReferenceCase(microseconds: 1_704_139_200_000_000, sampleRate: 48_000, zone: "+05:30", samples: 259_200_000,
                          why: "20:00 UTC is 01:30 the next day at UTC+05:30"),
        TimeReferenceCase(microseconds: 1_711_845_000_000_000, sampleRate: 48_000, zone: "Europe/Berlin",
                          samples: 259_200_000, why: "01:30 winter time, on the day clocks go forward"),
        TimeReferenceCase(microseconds: 1_711_879_200_000_000, sampleRate: 48_000, zone: "Europe/Berlin",
                          samples: 2_073_600_000, why: "12:00 summer time the same day: the clock's 12 hours, not the 11 elapsed"),
        TimeReferenceCase(microseconds: 1_710_086_400_000_000, sampleRate: 48_000, zone: "America/New_York",
                          samples: 2_073_600_000, why: "12:00 EDT on the day New York's clocks go forward"),
        TimeReferenceCase(microseconds: 1_729_989_000_000_000, sampleRate: 48_000, zone: "Europe/Berlin",
                          samples: 432_000_000, why: "the first 02:30 (summer time) of the day clocks go back"),
        TimeReferenceCase(microseconds: 1_729_992_600_000_000, sampleRate: 48_000, zone: "Europe/Berlin",
                          samples: 432_000_000, why: "the second 02:30 (winter time), an hour later"),
        TimeReferenceCase(microseconds: -1, sampleRate: 48_000, zone: "UTC", samples: 4_147_199_999,
                          why: "a microsecond before 1970 is 23:59:59.999999"),
        TimeReferenceCase(microseconds: 21, sampleRate: 48_000, zone: "UTC", samples: 1, why: "21 µs is 1.008 samples"),
        TimeReferenceCase(microseconds: 20, sampleRate: 48_000, zone: "UTC", samples: 0, why: "20 µs is 0.96 samples"),
        TimeReferenceCase(microseconds: 1_719_837_296_789_012, sampleRate: 0, zone: "UTC", samples: 0, why: "no rate"),
        TimeReferenceCase(microseconds: 1_719_837_296_789_012, sampleRate: -48_000, zone: "UTC", samples: 0,
                          why: "a negative rate"),
    ])
    func timeReference(_ example: TimeReferenceCase) throws {
        let zone = try #require(example.zone == "+05:30" ? TimeZone(secondsFromGMT: 19_800) : TimeZone(identifier: example.zone))
        #expect(TakeFileMetadata.samplesSinceLocalMidnight(microsecondsSinceEpoch: example.microseconds,
                                                           sampleRate: example.sampleRate, timeZone: zone) == example.samples)
    }

    @Test("the time reference never traps, whatever the moment or rate")
    func timeReferenceExtremes() {
        let day: UInt64 = 86_400
        for microseconds in [Int64.min, Int64.min + 1, -86_400_000_000, 0, Int64.max] {
            for rate in [1, 48_000, 768_000, Int.max] {
                let samples = TakeFileMetadata.samplesSinceLocalMidnight(microsecondsSinceEpoch: microseconds,
                                                                         sampleRate: rate, timeZone: Self.berlin)
                let (dayOfSamples, overflow) = day.multipliedReportingOverflow(by: UInt64(rate))
                #expect(overflow || samples < dayOfSamples, "\(microseconds) µs at \(rate) Hz: \(samples)")
            }
        }
    }

    @Test("origination date and time are local")
    func localDateAndTime() {
        #expect(TakeFileMetadata.localDateAndTime(microsecondsSinceEpoch: Self.origination, timeZone: Self.berlin)
                == ("2024-07-01", "14:35:10"))
        #expect(TakeFileMetadata.localDateAndTime(microsecondsSinceEpoch: Self.origination, timeZone: Self.utc)
                == ("2024-07-01", "12:35:10"))
        #expect(TakeFileMetadata.localDateAndTime(microsecondsSinceEpoch: 1_704_139_200_000_000,
                                                  timeZone: TimeZone(secondsFromGMT: 19_800)!) == ("2024-01-02", "01:30:00"))
        #expect(TakeFileMetadata.localDateAndTime(microsecondsSinceEpoch: -1, timeZone: Self.utc) == ("1969-12-31", "23:59:59"))
    }
}
