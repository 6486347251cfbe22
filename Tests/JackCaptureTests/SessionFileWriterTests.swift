import Foundation
import Testing
@testable import JackCapture

@Suite("Session files: written back (SessionFileWriter)")
/// Named SessionFile... so that `swift test --filter SessionFile` runs it with the reader's tests.
struct SessionFileWriterTests {
    /// Everything a session is, but where its keys sat in the file (lines, the file's path).
    static func expectSameSession(_ read: SessionDefinition, _ original: SessionDefinition,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(read.name == original.name, sourceLocation: sourceLocation)
        #expect(read.folder == original.folder, sourceLocation: sourceLocation)
        #expect(read.sampleRate == original.sampleRate, sourceLocation: sourceLocation)
        #expect(read.settings == original.settings, sourceLocation: sourceLocation)
        #expect(read.fileExtension == original.fileExtension, sourceLocation: sourceLocation)
        #expect(read.format == original.format, sourceLocation: sourceLocation)
        #expect(read.layout == original.layout, sourceLocation: sourceLocation)
        #expect(read.scene == original.scene, sourceLocation: sourceLocation)
        #expect(read.tape == original.tape, sourceLocation: sourceLocation)
        #expect(read.bufferSeconds == original.bufferSeconds, sourceLocation: sourceLocation)
        #expect(read.alignsToCaptureLatency == original.alignsToCaptureLatency, sourceLocation: sourceLocation)
        #expect(read.takeFiles == original.takeFiles, sourceLocation: sourceLocation)
        #expect(read.remote == original.remote, sourceLocation: sourceLocation)
        #expect(read.tracks.count == original.tracks.count, sourceLocation: sourceLocation)
        for (track, expected) in zip(read.tracks, original.tracks) {
            var lineless = track
            lineless.line = expected.line
            #expect(lineless == expected, sourceLocation: sourceLocation)
        }
    }

    /// Writes `original` at `path` (text only) and reads the text back from there.
    static func roundTrip(_ original: SessionDefinition, armed: [Bool]? = nil, path: String) throws -> (String, SessionDefinition) {
        let text = SessionFileWriter.text(of: original, armed: armed, path: path)
        return (text, try SessionDefinition.parse(text, path: path))
    }

    @Test("every example session in sessions/ reads back the same, and writes the same text again")
    func exampleSessions() throws {
        for name in ["band", "demo", "drums", "stereo"] {
            let path = "sessions/\(name).toml"
            let original = try SessionDefinition.parse(try Self.exampleText(name), path: path)
            let (text, read) = try Self.roundTrip(original, path: path)
            Self.expectSameSession(read, original)
            #expect(SessionFileWriter.text(of: read, path: path) == text)
        }
    }

    @Test("every key a session file can set survives: format keys, buffer, labels, groups, pan, ports")
    func everyKey() throws {
        let path = "/studio/sessions/live.toml"
        let original = try SessionDefinition.parse("""
            [session]
            name = "live \\"A\\" \\\\ room"
            folder = "takes/day 1"
            sample_rate = 44100
            format = "flac"
            bit_depth = 16
            compression_level = 8
            buffer = "96000f"
            layout = "interleaved"
            align_latency = true
            scene = "12A"
            tape = "Day 3\\tB"

            [[track]]
            name = "Kick: In"
            source = "system:capture_1"
            pan = -0.3

            [[track]]
            name = "OH L"
            source = 9
            group = "overheads"
            pan = 1

            [[track]]
            name = "OH R"
            source = "synth:out_*"
            group = "overheads"
            arm = false
            """, path: path)
        let (text, read) = try Self.roundTrip(original, path: path)
        Self.expectSameSession(read, original)
        #expect(text.contains("folder = \"takes/day 1\"\n"))
        #expect(text.contains("buffer = \"96000f\"\n"))

        let mp3 = try SessionDefinition.parse("""
            [session]
            name = "m"
            format = "mp3"
            quality = 0.6
            buffer = "250ms"

            [[track]]
            name = "a"
            source = 1
            """, path: path)
        Self.expectSameSession(try Self.roundTrip(mp3, path: path).1, mp3)

        let float = try SessionDefinition.parse("""
            [session]
            name = "f"
            format = "caf"
            bit_depth = "float"
            endian = "little"

            [[track]]
            name = "a"
            source = 1
            """, path: path)
        Self.expectSameSession(try Self.roundTrip(float, path: path).1, float)
    }

    @Test("the arm states given replace the file's; the folder is written relative to the file")
    func armStatesAndFolder() throws {
        var original = try SessionDefinition.parse(try Self.exampleText("drums"), path: "sessions/drums.toml")
        let armed = original.tracks.indices.map { $0 % 2 == 0 }
        original.folder = "/nsm/session/jcap.nXYZ"
        let path = "/nsm/session/jcap.nXYZ/jcap.toml"
        let text = SessionFileWriter.text(of: original, armed: armed, path: path)
        #expect(text.contains("folder = \".\"\n"))
        let read = try SessionDefinition.parse(text, path: path)
        #expect(read.tracks.map(\.armed) == armed)
        #expect(read.folder == "/nsm/session/jcap.nXYZ/.")
        #expect(SessionFileWriter.relativeFolder("/elsewhere/takes", filePath: path) == "/elsewhere/takes")
        #expect(SessionFileWriter.relativeFolder("/nsm/session/jcap.nXYZ/takes", filePath: path) == "takes")
        #expect(SessionFileWriter.relativeFolder("/nsm/session/jcap.nXYZ/", filePath: path) == ".")
    }

    @Test("the browser remote's [remote] survives, with or without its address and token")
    func remoteTable() throws {
        let head = "[session]\nname = \"band\"\n\n[[track]]\nname = \"Kick\"\nsource = 1\n\n"
        for table in ["[remote]\nport = 8080\n", "[remote]\naddress = \"0.0.0.0\"\nport = 0\ntoken = \"studio \\\"B\\\"\"\n"] {
            let original = try SessionDefinition.parse(head + table, path: "sessions/band.toml")
            #expect(original.remote != nil)
            let (_, read) = try Self.roundTrip(original, path: "sessions/band.toml")
            Self.expectSameSession(read, original)
        }
        let without = try SessionDefinition.parse(head, path: "sessions/band.toml")
        #expect(!SessionFileWriter.text(of: without, path: "sessions/band.toml").contains("[remote]"))
    }

    @Test("write(_:armed:to:) puts the text in the file, atomically; an unwritable place is one line")
    func writeFile() throws {
        let folder = FileManager.default.temporaryDirectory.path + "/jcap-writer-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let original = try SessionDefinition.parse(try Self.exampleText("stereo"), path: folder + "/stereo.toml")
        let path = folder + "/saved.toml"
        try SessionFileWriter.write(original, to: path)
        Self.expectSameSession(try SessionDefinition.load(path: path), original)
        #expect(throws: SessionFileError.self) { try SessionFileWriter.write(original, to: folder + "/no/such/dir/s.toml") }
    }

    @Test("TOML strings: quotes, backslashes and control characters are escaped")
    func quoting() {
        #expect(SessionFileWriter.quoted("a \"b\" \\ c") == "\"a \\\"b\\\" \\\\ c\"")
        #expect(SessionFileWriter.quoted("x\ny\u{1}") == "\"x\\ny\\u0001\"")
        #expect(SessionFileWriter.buffer(4, sampleRate: 48000) == "4s")
        #expect(SessionFileWriter.buffer(0.25, sampleRate: nil) == "0.25s")
    }

    /// The text of `sessions/NAME.toml`, found from this file's place in the package.
    static func exampleText(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("sessions/\(name).toml"), encoding: .utf8)
    }
}
