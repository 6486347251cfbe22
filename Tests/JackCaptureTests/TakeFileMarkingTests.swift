import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import JackCapture

/// Scene, tape, marks and notes in a take's files: written when the take is made, rewritten in
/// place (or through a copy renamed over the file) when a mark or note changes afterwards, with
/// the audio byte for byte as it was.
@Suite("Take files: scene, tape, marks and notes", .serialized)
struct TakeFileMarkingTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "/jcap-marking-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    static let start: Int64 = 1_719_837_296_789_012

    func metadata(note: String? = nil, mark: TakeMark? = nil) -> TakeFileMetadata {
        TakeFileMetadata(sessionName: "Live", scene: "12A & <B>", tape: "Day 3", takeNumber: 4,
                         tracks: [.init(name: "Kick", channel: 1), .init(name: "Snare", channel: 2)],
                         note: note, mark: mark, originationMicrosecondsSinceEpoch: Self.start, sampleRate: 48_000,
                         startMicrosecondsSinceEpoch: Self.start, timeZone: TimeZone(secondsFromGMT: 0)!)
    }

    /// A take's file as a session writes it: metadata first, then a ramp of audio.
    func makeTakeFile(_ name: String, frames: Int = 9_600) throws -> String {
        let path = folder + "/" + name
        let file = try SoundFile.create(path: path, format: try RecordingSettings().resolveFormat(forPath: path),
                                        channels: 2, sampleRate: 48_000, overwrite: false)
        try file.apply(metadata())
        let samples = (0..<frames * 2).map { Float($0 % 1_000) / 2_000 }
        try samples.withUnsafeBufferPointer { (buffer) throws(CaptureError) in
            try file.write(interleaved: buffer.baseAddress!, frames: frames)
        }
        try file.close()
        return path
    }

    /// The log entry of the take whose files these are.
    func entry(_ names: [String], note: String? = nil, mark: TakeMark? = nil) -> TakeLogEntry {
        var entry = TakeLogEntry(take: 4, status: .complete, sampleRate: 48_000, frames: 9_600)
        entry.files = names.map { TakeLogFile(path: $0, tracks: ["Kick", "Snare"]) }
        entry.note = note
        entry.mark = mark
        return entry
    }

    /// The bytes of the file's data chunk, found by walking the chunks independently of libsndfile.
    func audioBytes(_ path: String) throws -> Data {
        let chunks = try RIFFMetadataRewriter.chunks(of: path).chunks
        let data = try #require(chunks.first { $0.id == "data" })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.size == 9_600 * 2 * 3, "24-bit stereo")
        return bytes.subdata(in: Int(data.dataOffset)..<Int(data.dataOffset + data.size))
    }

    func iXML(_ path: String) throws -> String {
        let reader = try SoundFile.open(readingFrom: path)
        return String(decoding: try #require(try reader.chunk(id: "iXML")), as: UTF8.self)
    }

    /// The text of every element at `path` of the file's iXML document, parsed as XML.
    func values(_ xpath: String, in path: String) throws -> [String] {
        #if canImport(FoundationXML)
        let document = try XMLDocument(data: Data(try iXML(path).utf8))
        return try document.nodes(forXPath: xpath).map { $0.stringValue ?? "" }
        #else
        return []
        #endif
    }

    // MARK: Written with the take

    @Test("the iXML names scene, tape and take, an unmarked take is DEFAULT and not circled")
    func writtenWithTheTake() throws {
        let path = try makeTakeFile("take-004.wav")
        #expect(try values("/BWFXML/SCENE", in: path) == ["12A & <B>"])
        #expect(try values("/BWFXML/TAPE", in: path) == ["Day 3"])
        #expect(try values("/BWFXML/TAKE", in: path) == ["4"])
        #expect(try values("/BWFXML/TAKE_TYPE", in: path) == ["DEFAULT"])
        #expect(try values("/BWFXML/CIRCLED", in: path) == ["FALSE"])
        #expect(try values("/BWFXML/NOTE", in: path) == [])
        let bext = try #require(try SoundFile.open(readingFrom: path).broadcastInfo())
        #expect(bext.description == "session: Live; scene: 12A & <B>; take: 4; tracks: 1 Kick, 2 Snare")
    }

    @Test("each mark's TAKE_TYPE, CIRCLED and description word", arguments: [
        (TakeMark?.none, "DEFAULT", "FALSE", ""),
        (.circled, "DEFAULT", "TRUE", "; circled"),
        (.falseStart, "FALSE_START", "FALSE", "; false start"),
        (.noGood, "NO_GOOD", "FALSE", "; no good"),
    ])
    func marks(mark: TakeMark?, takeType: String, circled: String, word: String) {
        let metadata = metadata(note: "good energy", mark: mark)
        #expect(metadata.iXML.contains("<TAKE_TYPE>\(takeType)</TAKE_TYPE>"))
        #expect(metadata.iXML.contains("<CIRCLED>\(circled)</CIRCLED>"))
        #expect(metadata.broadcastDescription == "session: Live; scene: 12A & <B>; take: 4; tracks: 1 Kick, 2 Snare\(word); good energy")
    }

    // MARK: Rewritten after the take

    @Test("marking after the take rewrites iXML and bext in place; the audio stays byte for byte")
    func markedInPlace() throws {
        let path = try makeTakeFile("take-004-Drums.wav")
        let audio = try audioBytes(path)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int

        #expect(TakeFileMarking.apply(entry(["take-004-Drums.wav"], note: "best vocal, \"really\"", mark: .circled),
                                      sessionName: "Live", folder: folder) == [])
        #expect(try values("/BWFXML/CIRCLED", in: path) == ["TRUE"])
        #expect(try values("/BWFXML/TAKE_TYPE", in: path) == ["DEFAULT"])
        #expect(try values("/BWFXML/NOTE", in: path) == ["best vocal, \"really\""])
        #expect(try values("/BWFXML/SCENE", in: path) == ["12A & <B>"], "the scene the file was made with")
        #expect(try values("/BWFXML/TRACK_LIST/TRACK/NAME", in: path) == ["Kick", "Snare"])
        #expect(try values("/BWFXML/SPEED/TIMESTAMP_SAMPLE_RATE", in: path) == ["48000"])
        let bext = try #require(try SoundFile.open(readingFrom: path).broadcastInfo())
        #expect(bext.description == "session: Live; scene: 12A & <B>; take: 4; tracks: 1 Kick, 2 Snare; circled; best vocal, \"really\"")
        #expect(bext.timeReference == metadata().timeReference, "the rest of bext as it was")

        #expect(try audioBytes(path) == audio)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size, "in place: same size")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode, "in place: same file")

        // Changed again: no good, note cleared.
        TakeFileMarking.apply(entry(["take-004-Drums.wav"], mark: .noGood), sessionName: "Live", folder: folder)
        #expect(try values("/BWFXML/TAKE_TYPE", in: path) == ["NO_GOOD"])
        #expect(try values("/BWFXML/CIRCLED", in: path) == ["FALSE"])
        #expect(try values("/BWFXML/NOTE", in: path) == [])
        #expect(try SoundFile.open(readingFrom: path).broadcastInfo()?.description
            == "session: Live; scene: 12A & <B>; take: 4; tracks: 1 Kick, 2 Snare; no good")
        #expect(try audioBytes(path) == audio)
    }

    @Test("a note longer than the room left grows the chunk through a copy renamed over the file; the audio stays byte for byte",
          arguments: ["take-004.wav", "take-004.rf64"])
    func markedThroughACopy(name: String) throws {
        let path = try makeTakeFile(name)
        let audio = try audioBytes(path)
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let note = String(repeating: "a long note é ", count: 200)

        #expect(TakeFileMarking.apply(entry([name], note: note, mark: .falseStart), sessionName: "Live", folder: folder) == [])
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(after > before, "the chunk grew")
        #expect(try values("/BWFXML/NOTE", in: path) == [note])
        #expect(try values("/BWFXML/TAKE_TYPE", in: path) == ["FALSE_START"])
        #expect(try audioBytes(path) == audio)
        // libsndfile reads it whole: every frame, the same samples.
        let reader = try SoundFile.open(readingFrom: path)
        #expect(reader.frames == 9_600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [name], "no copy left behind")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        func littleEndian(_ range: Range<Int>) -> Int {
            bytes[range].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        }
        if name.hasSuffix(".rf64") {
            let ds64 = try #require(try RIFFMetadataRewriter.chunks(of: path).chunks.first { $0.id == "ds64" })
            #expect(littleEndian(Int(ds64.dataOffset)..<Int(ds64.dataOffset) + 8) == after - 8, "RF64's size is in ds64")
        } else {
            #expect(littleEndian(4..<8) == after - 8)
        }

        // The room the copy left takes the next note in place.
        TakeFileMarking.apply(entry([name], note: "short"), sessionName: "Live", folder: folder)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == after)
        #expect(try values("/BWFXML/NOTE", in: path) == ["short"])
        #expect(try audioBytes(path) == audio)
    }

    @Test("a take still recording, a FLAC file and a missing file are left alone")
    func leftAlone() throws {
        let path = try makeTakeFile("take-004.wav")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var recording = entry(["take-004.wav"], mark: .circled)
        recording.status = .recording
        #expect(TakeFileMarking.apply(recording, sessionName: "Live", folder: folder) == [])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let flacPath = folder + "/take-004.flac"
        let flac = try SoundFile.create(path: flacPath, format: try RecordingSettings().resolveFormat(forPath: flacPath),
                                        channels: 2, sampleRate: 48_000, overwrite: false)
        try flac.apply(metadata())
        try flac.close()
        let flacBefore = try Data(contentsOf: URL(fileURLWithPath: flacPath))
        #expect(TakeFileMarking.apply(entry(["take-004.flac", "gone.wav"], mark: .circled), sessionName: "Live", folder: folder) == [])
        #expect(try Data(contentsOf: URL(fileURLWithPath: flacPath)) == flacBefore)
    }

    @Test("the take log's mark and note reach the files through the session's log")
    func throughTheLog() throws {
        let path = try makeTakeFile("take-004.wav")
        let log = TakeLog(folder: folder)
        try log.append(entry(["take-004.wav"]))
        try log.setMark(take: 4, .circled)
        try log.setNote(take: 4, "keeper")
        TakeFileMarking.apply(try log.entry(4), sessionName: "Live", folder: folder)
        #expect(try values("/BWFXML/CIRCLED", in: path) == ["TRUE"])
        #expect(try values("/BWFXML/NOTE", in: path) == ["keeper"])
    }

    // MARK: The session file

    @Test("scene and tape are read from [session]; empty or not text is refused at file:line")
    func sessionFileKeys() throws {
        let tracks = "\n[[track]]\nname = \"A\"\nsource = 1\n"
        let session = try SessionDefinition.parse("[session]\nname = \"band\"\nscene = \"12A\"\ntape = \"Day 3\"\n" + tracks,
                                                  path: "s.toml")
        #expect(session.scene == "12A")
        #expect(session.tape == "Day 3")
        let plain = try SessionDefinition.parse("[session]\nname = \"band\"\n" + tracks, path: "s.toml")
        #expect(plain.scene == nil && plain.tape == nil)

        func refusal(_ lines: String) -> String? {
            do { _ = try SessionDefinition.parse("[session]\nname = \"band\"\n" + lines + "\n" + tracks, path: "s.toml") } catch {
                return error.description
            }
            return nil
        }
        #expect(refusal("scene = \"  \"") == "s.toml:3: scene: empty: leave scene out, or give it in quotes (scene = \"12A\")")
        #expect(refusal("tape = 3")?.hasPrefix("s.toml:3: tape: expected text in quotes (tape = \"Day 3\")") == true)
    }
}

/// Markers as the file's cue list: libsndfile reads them back at their frames, the labels name
/// them, the audio stays byte for byte, and writing again replaces the list instead of adding one.
@Suite("Take files: markers as a cue list", .serialized)
struct TakeFileCueTests {
    let files = try! TakeFileMarkingTests()

    func labels(_ path: String) throws -> [String] {
        let chunks = try RIFFMetadataRewriter.chunks(of: path).chunks
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let list = chunks.last(where: { $0.id == "LIST" }) else { return [] }
        var labels: [String] = []
        var offset = Int(list.dataOffset) + 4
        while offset + 12 <= Int(list.dataOffset + list.size) {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
            let text = bytes.subdata(in: offset + 12..<offset + 8 + size)
            labels.append(String(decoding: text.prefix { $0 != 0 }, as: UTF8.self))
            offset += 8 + size + (size & 1)
        }
        return labels
    }

    /// The cue points' frames: libsndfile's reading for WAV; for RF64, whose cue chunk libsndfile
    /// 1.2.0 does not read, the chunk's own sample offsets.
    func cueFrames(_ path: String) throws -> [UInt32] {
        if path.hasSuffix(".wav") { return try SoundFile.open(readingFrom: path).cueFrames() }
        let chunks = try RIFFMetadataRewriter.chunks(of: path).chunks
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let cue = chunks.first(where: { $0.id == "cue " }) else { return [] }
        func word(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        let start = Int(cue.dataOffset)
        return (0..<Int(word(start))).map { word(start + 4 + 24 * $0 + 20) }
    }

    @Test("markers dropped in a take become cues at their frames, labelled with their time, in WAV and RF64",
          arguments: ["take-004.wav", "take-004.rf64"])
    func markersBecomeCues(name: String) throws {
        let path = try files.makeTakeFile(name)
        let audio = try files.audioBytes(path)
        var entry = files.entry([name])
        entry.markers = [TakeLogMarker(position: 4_800, sampleRate: 48_000), TakeLogMarker(position: 9_000, sampleRate: 48_000)]
        #expect(TakeFileMarking.apply(entry, sessionName: "Live", folder: files.folder) == [])
        #expect(try cueFrames(path) == [4_800, 9_000])
        #expect(try labels(path) == ["marker 1 0:00:00.100", "marker 2 0:00:00.187"])
        #expect(try files.audioBytes(path) == audio)
        #expect(try SoundFile.open(readingFrom: path).frames == 9_600)

        // A third marker later: the list is replaced, not added to; the file's size says so.
        entry.markers.append(TakeLogMarker(position: 100, sampleRate: 48_000))
        #expect(TakeFileMarking.apply(entry, sessionName: "Live", folder: files.folder) == [])
        #expect(try cueFrames(path) == [4_800, 9_000, 100])
        let chunks = try RIFFMetadataRewriter.chunks(of: path).chunks
        #expect(chunks.filter { $0.id == "cue " }.count == 1)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(Int64(size) == chunks.last!.end)
        #expect(try files.audioBytes(path) == audio)
    }

    @Test("a marker past the file's end is left out; a take without markers gets no cue list")
    func outOfRange() throws {
        let path = try files.makeTakeFile("take-004.wav")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(TakeFileMarking.apply(files.entry(["take-004.wav"]), sessionName: "Live", folder: files.folder) == [])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(TakeFileMarking.cues([TakeLogMarker(position: 9_601), TakeLogMarker(position: 5)], frames: 9_600)
            == [RIFFMetadataRewriter.Cue(frame: 5, label: "marker 2")])
    }
}
