import Foundation
import JackCapture
import XCTest

/// A real session's takes carry scene, tape, marks and notes in their files: a mark set while
/// the take records reaches the files when they close, one set afterwards (by the session or by
/// `jcap takes` in another process) rewrites them, and the audio stays byte for byte.
final class TakeFileMarkingIntegrationTests: JackTestCase {
    func writeSession(_ name: String) throws -> String {
        let text = """
            [session]
            name = "\(name)"
            scene = "42B"
            tape = "Day 2"

            [[track]]
            name = "Vocal"
            source = "sig:out_1"

            [[track]]
            name = "Guitar"
            source = "sig:out_2"

            """
        let file = path("\(name).toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The file's iXML document.
    func iXML(_ path: String) throws -> String {
        let reader = try SoundFile.open(readingFrom: path)
        return String(decoding: try XCTUnwrap(try reader.chunk(id: "iXML")), as: UTF8.self)
    }

    /// The file's data chunk, found by walking its chunks.
    func audio(_ path: String) throws -> Data {
        let data = try XCTUnwrap(try RIFFMetadataRewriter.chunks(of: path).chunks.first { $0.id == "data" })
        return try Data(contentsOf: URL(fileURLWithPath: path)).subdata(in: Int(data.dataOffset)..<Int(data.dataOffset + data.size))
    }

    func testMarksAndNotesReachTheFilesDuringAndAfterTheTake() throws {
        let file = try writeSession("marking")
        let definition = try SessionDefinition.load(path: file)
        let session = try StudioSession(definition: definition, serverName: server.name)
        defer { session.close() }

        let take = try session.record(length: .frames(Int64(server.sampleRate)))
        // Marked while it records: the log has it now, the files when they close.
        let number = take.numbers.lowerBound
        // The log has the take from its first frame on.
        let deadline = Date().addingTimeInterval(10)
        while (try? session.log.entry(number)) == nil && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(try session.log.entry(number).status, .recording)
        try session.mark(take: number, as: .circled)
        guard take.recording.waitUntilFinished(timeout: 30) != nil else { throw TestFailure("the take did not end") }
        let entry = try XCTUnwrap(take.finish().first)
        let paths = entry.files.map { definition.folder + "/" + $0.path }
        XCTAssertEqual(paths.count, 2)
        for path in paths {
            let document = try iXML(path)
            XCTAssertTrue(document.contains("<SCENE>42B</SCENE>"), document)
            XCTAssertTrue(document.contains("<TAPE>Day 2</TAPE>"), document)
            XCTAssertTrue(document.contains("<TAKE>\(number)</TAKE>"), document)
            XCTAssertTrue(document.contains("<CIRCLED>TRUE</CIRCLED>"), document)
            XCTAssertTrue(document.contains("<TAKE_TYPE>DEFAULT</TAKE_TYPE>"), document)
        }
        let recorded = try paths.map(audio)

        // After the take, by the session: false start, and a note.
        try session.mark(take: number, as: .falseStart)
        try session.setNote(take: number, "count-in & <click> too fast")
        for (path, bytes) in zip(paths, recorded) {
            let document = try iXML(path)
            XCTAssertTrue(document.contains("<TAKE_TYPE>FALSE_START</TAKE_TYPE>"), document)
            XCTAssertTrue(document.contains("<CIRCLED>FALSE</CIRCLED>"), document)
            XCTAssertTrue(document.contains("<NOTE>count-in &amp; &lt;click&gt; too fast</NOTE>"), document)
            XCTAssertEqual(try audio(path), bytes, "\(path): the audio changed")
        }
        let bext = try XCTUnwrap(try SoundFile.open(readingFrom: paths[0]).broadcastInfo())
        XCTAssertEqual(bext.description,
                       "session: marking; scene: 42B; take: \(number); tracks: 1 Vocal; false start; count-in & <click> too fast")

        // By `jcap takes` in another process, while the session is open.
        let marking = try launchJcap(["takes", file, "--mark", "\(number)", "no-good"])
        XCTAssertEqual(try marking.wait(timeout: 30), 0, marking.errorOutput)
        XCTAssertFalse(marking.errorOutput.contains("warning"), marking.errorOutput)
        let noting = try launchJcap(["takes", file, "--note", "\(number)", "use the second half"])
        XCTAssertEqual(try noting.wait(timeout: 30), 0, noting.errorOutput)
        for (path, bytes) in zip(paths, recorded) {
            let document = try iXML(path)
            XCTAssertTrue(document.contains("<TAKE_TYPE>NO_GOOD</TAKE_TYPE>"), document)
            XCTAssertTrue(document.contains("<NOTE>use the second half</NOTE>"), document)
            XCTAssertEqual(try audio(path), bytes, "\(path): the audio changed")
            XCTAssertEqual(try SoundFile.open(readingFrom: path).frames, Int64(server.sampleRate))
        }
        XCTAssertEqual(try SoundFile.open(readingFrom: paths[1]).broadcastInfo()?.description,
                       "session: marking; scene: 42B; take: \(number); tracks: 1 Guitar; no good; use the second half")
    }
}
