import CJack
import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// Arming and disarming a session's tracks between takes, and marking takes, against a private
/// dummy server and the test signal: a disarmed track has no file in the next take while the
/// others stay sample-exact, re-armed it is back; arming is refused during a take; marks go
/// through the log and `jcap takes`.
final class SessionArmingTests: JackTestCase {
    /// 8 tracks from `sig:out_1..8`; "OH Left" and "OH Right" share the stereo "overheads" file;
    /// "Talkback" (`sig:out_9`) is disarmed in the file.
    static let drumTracks = ["Kick In", "Kick Out", "Snare Top", "Snare Bottom", "Hi-Hat", "Tom", "OH Left", "OH Right"]
    static let allTracks = drumTracks + ["Talkback"]

    func writeSession(_ name: String) throws -> String {
        var text = "[session]\nname = \"\(name)\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n"
        text += Self.drumTracks.enumerated().map { index, track in
            "[[track]]\nname = \"\(track)\"\nsource = \"sig:out_\(index + 1)\"\n" + (index >= 6 ? "group = \"overheads\"\n" : "")
        }.joined(separator: "\n")
        text += "\n[[track]]\nname = \"Talkback\"\nsource = \"sig:out_9\"\narm = false\n"
        let file = path("\(name).toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Records a take of `frames` frames starting half a second from now, finishes it, and checks
    /// that its files are exactly `expected` (file label and the test-signal channels it holds,
    /// in order), each holding the signal sample for sample from the start frame, and that its
    /// log entry lists the files' tracks. Repeated when the server had an xrun.
    @discardableResult
    func recordAndCheck(_ session: StudioSession, frames: Int64, expected: [(label: String, signalChannels: [Int])],
                        line: UInt = #line) throws -> TakeLogEntry {
        do {
            let start = FrameTime.advance(observer.estimatedFrameTime, by: server.sampleRate / 2)
            let take = try session.record(at: .frame(start), length: .frames(frames))
            let entry = try XCTUnwrap(finished(take).last, line: line)
            // Every sample checked against what the take log reports of the take.
            let account = try XCTUnwrap(TakeAccount(entry, folder: session.definition.folder), "\(entry)", line: line)
            XCTAssertEqual(entry.status, takeStatus(reporting: account), line: line)
            XCTAssertEqual(account.files.map(\.signalChannels), expected.map(\.signalChannels), line: line)
            assertAccountedFor(account, line: line)
            XCTAssertEqual(entry.startFrame, start, line: line)
            XCTAssertEqual(entry.frames, frames, line: line)
            let number = String(format: "%03d", entry.take)
            XCTAssertEqual(entry.files.map(\.path), expected.map { "take-\(number)-\($0.label).wav" }, line: line)
            let namesOfTracks = expected.flatMap(\.signalChannels).map { Self.drumTracks[$0] }
            XCTAssertEqual(entry.files.flatMap(\.tracks), namesOfTracks, line: line)
            XCTAssertEqual(entry.tracks.map(\.name), namesOfTracks, line: line)
            XCTAssertEqual(entry.tracks.map(\.source), expected.flatMap(\.signalChannels).map { "sig:out_\($0 + 1)" }, line: line)
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: session.definition.folder)
                .filter { $0.hasPrefix("take-\(number)") }.sorted()
            XCTAssertEqual(onDisk, entry.files.map(\.path).sorted(), "no file for a disarmed track", line: line)
            for (file, channels) in zip(entry.files, expected.map(\.signalChannels)) {
                let sound = try SoundFile.open(readingFrom: session.definition.folder + "/" + file.path)
                XCTAssertEqual(sound.channels, channels.count, file.path, line: line)
                XCTAssertEqual(sound.frames, frames, file.path, line: line)
                // iXML names the file's tracks.
                let ixml = try sound.chunk(id: "iXML").map { String(decoding: $0, as: UTF8.self) } ?? ""
                for channel in channels {
                    XCTAssertTrue(ixml.contains("<NAME>\(Self.drumTracks[channel])</NAME>"), "\(file.path): \(ixml)", line: line)
                }
            }
            return entry
        }
    }

    /// The take's log entries once it has ended by itself (its length reached).
    func finished(_ take: SessionTake) throws -> [TakeLogEntry] {
        guard take.recording.waitUntilFinished(timeout: 30) != nil else { throw TestFailure("the take did not end") }
        return take.finish()
    }

    static let everyFile: [(label: String, signalChannels: [Int])] =
        (0..<6).map { (drumTracks[$0], [$0]) } + [("overheads", [6, 7])]

    func testADisarmedTrackHasNoFileInTheNextTakeAndReArmedItIsBack() throws {
        let definition = try SessionDefinition.load(path: try writeSession("arming"))
        let session = try StudioSession(definition: definition, serverName: server.name)
        defer { session.close() }

        // Every track has its port, the disarmed one too, connected to its source.
        XCTAssertEqual(session.trackNames, Self.allTracks)
        XCTAssertEqual(session.armedTrackNames, Self.drumTracks)
        XCTAssertEqual(session.client.portNames, Self.allTracks.map { "arming:" + $0 })
        XCTAssertEqual(session.sources, (1...9).map { "sig:out_\($0)" })
        try Self.waitFor("the disarmed track's port, connected") {
            (try? observer.port(named: "arming:Talkback")).map { observer.connections(of: $0) } == ["sig:out_9"]
        }

        let first = try recordAndCheck(session, frames: 12_000, expected: Self.everyFile)

        try session.setArmed(false, track: "Snare Top")
        try session.setArmed(false, track: "OH Right")
        XCTAssertEqual(session.armedTrackNames, ["Kick In", "Kick Out", "Snare Bottom", "Hi-Hat", "Tom", "OH Left"])
        XCTAssertFalse(try session.isArmed(track: "Snare Top"))
        // The group's file holds its armed tracks only; Snare Top has none.
        let second = try recordAndCheck(session, frames: 12_000, expected: [
            ("Kick In", [0]), ("Kick Out", [1]), ("Snare Bottom", [3]), ("Hi-Hat", [4]), ("Tom", [5]), ("overheads", [6]),
        ])
        XCTAssertGreaterThan(second.take, first.take)

        try session.setArmed(true, track: "Snare Top")
        try session.setArmed(true, track: "OH Right")
        XCTAssertEqual(session.armedTrackNames, Self.drumTracks)
        try recordAndCheck(session, frames: 12_000, expected: Self.everyFile)

        // Only the talkback armed: its file is its own, as any track's.
        for track in Self.drumTracks { try session.setArmed(false, track: track) }
        XCTAssertEqual(session.armedTrackNames, [])
        XCTAssertThrowsError(try session.record()) { XCTAssertEqual($0 as? StudioSessionError, .noArmedTrack) }
        try session.setArmed(true, track: "Talkback")
        let talkback = try { () -> TakeLogEntry in
            let start = FrameTime.advance(observer.estimatedFrameTime, by: server.sampleRate / 2)
            let entry = try XCTUnwrap(finished(try session.record(at: .frame(start), length: .frames(4_800))).last)
            XCTAssertEqual(entry.tracks.map(\.name), ["Talkback"])
            let account = try XCTUnwrap(TakeAccount(entry, folder: definition.folder), "\(entry)")
            XCTAssertEqual(account.startFrame, start)
            XCTAssertEqual(account.files.map(\.signalChannels), [[8]])
            assertAccountedFor(account)
            return entry
        }()
        XCTAssertEqual(talkback.files.map(\.path), ["take-\(String(format: "%03d", talkback.take))-Talkback.wav"])
    }

    func testArmingIsRefusedDuringATakeAndForAnUnknownTrack() throws {
        let definition = try SessionDefinition.load(path: try writeSession("refusals"))
        let session = try StudioSession(definition: definition, serverName: server.name)
        defer { session.close() }

        XCTAssertThrowsError(try session.setArmed(true, track: "Cowbell")) { error in
            XCTAssertEqual(error as? StudioSessionError, .unknownTrack("Cowbell", known: Self.allTracks))
            XCTAssertEqual("\(error)", "no track 'Cowbell' in the session (its tracks: 'Kick In', 'Kick Out', 'Snare Top', "
                           + "'Snare Bottom', 'Hi-Hat', 'Tom', 'OH Left', 'OH Right', 'Talkback')")
        }

        // Armed and waiting for its start frame: refused, and so while it records.
        let start = FrameTime.advance(observer.estimatedFrameTime, by: server.sampleRate)
        let take = try session.record(at: .frame(start), length: .frames(Int64(server.sampleRate)))
        XCTAssertThrowsError(try session.setArmed(false, track: "Kick In")) {
            XCTAssertEqual($0 as? StudioSessionError, .takeInProgress)
        }
        try Self.waitFor("the take's first frame") { take.recording.status.position > 0 }
        XCTAssertThrowsError(try session.setArmed(true, track: "Talkback")) {
            XCTAssertEqual($0 as? StudioSessionError, .takeInProgress)
        }
        take.stop()
        let entry = try XCTUnwrap(take.finish().last)
        XCTAssertEqual(entry.tracks.map(\.name), Self.drumTracks, "the take records what was armed when it started")
        XCTAssertEqual(session.armedTrackNames, Self.drumTracks)
        // Finished, the next take may be armed differently.
        try session.setArmed(true, track: "Talkback")
        XCTAssertEqual(session.armedTrackNames, Self.allTracks)
    }

    func testArmingMoreTracksThanTheFileFormatHoldsIsRefusedAtTheTrack() throws {
        let text = "[session]\nname = \"flac\"\nformat = \"flac\"\n"
            + (1...9).map { "[[track]]\nname = \"T\($0)\"\nsource = \"sig:out_\($0)\"\ngroup = \"kit\"\narm = \($0 != 9)\n" }.joined()
        try text.write(toFile: path("flac.toml"), atomically: true, encoding: .utf8)
        let session = try StudioSession(definition: try SessionDefinition.load(path: path("flac.toml")), serverName: server.name)
        defer { session.close() }
        XCTAssertThrowsError(try session.setArmed(true, track: "T9")) { error in
            guard case .sessionFile(let fileError) = error as? StudioSessionError else { return XCTFail("\(error)") }
            XCTAssertEqual(fileError.description, path("flac.toml") + ":48: track 'T9': arm: cannot arm: group 'kit' would have 9 "
                           + "channels: FLAC holds at most 8 channels, not 9 (use PCM or float in a .wav, .w64 or .caf file)")
        }
        XCTAssertEqual(session.armedTrackNames, (1...8).map { "T\($0)" })
        // Line 48 is its `arm`. With another disarmed, it fits.
        try session.setArmed(false, track: "T1")
        try session.setArmed(true, track: "T9")
        XCTAssertEqual(session.armedTrackNames, (2...9).map { "T\($0)" })
    }

    func testMarksRoundTripThroughTheLogAndJcapTakes() throws {
        let file = try writeSession("marks")
        let definition = try SessionDefinition.load(path: file)
        let session = try StudioSession(definition: definition, serverName: server.name)
        var numbers: [Int] = []
        for _ in 0..<3 {
            numbers += try finished(session.record(length: .frames(2_400))).map(\.take)
        }
        XCTAssertEqual(numbers.count, 3)
        try session.mark(take: numbers[0], as: .circled)
        try session.mark(take: numbers[1], as: .falseStart)
        try session.setNote(take: numbers[1], "count-in too fast")
        XCTAssertThrowsError(try session.mark(take: 99, as: .noGood)) {
            XCTAssertEqual($0 as? StudioSessionError, .takeLog(.noSuchTake(99)))
        }
        XCTAssertThrowsError(try session.setNote(take: 99, "nope")) {
            XCTAssertEqual($0 as? StudioSessionError, .takeLog(.noSuchTake(99)))
        }

        // Another process marks a take while the session is open (and holds the folder's lock).
        let marking = try launchJcap(["takes", file, "-v", "--mark", "\(numbers[2])", "no-good"])
        XCTAssertEqual(try marking.wait(timeout: 30), 0, marking.errorOutput)
        XCTAssertTrue(marking.errorOutput.contains("jcap: take \(numbers[2]): marked no good"), marking.errorOutput)
        let listed = marking.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(listed.count, 3, marking.output)
        XCTAssertTrue(listed[0].contains("2400 frames  circled  "), listed[0])
        XCTAssertTrue(listed[1].contains("2400 frames  false start  ") && listed[1].hasSuffix("\"count-in too fast\""), listed[1])
        XCTAssertTrue(listed[2].contains("2400 frames  no good  "), listed[2])
        XCTAssertEqual(try session.log.entries().map(\.mark), [.circled, .falseStart, .noGood])
        session.close()

        let clearing = try launchJcap(["takes", file, "--mark", "\(numbers[0])", "none", "--json"])
        XCTAssertEqual(try clearing.wait(timeout: 30), 0, clearing.errorOutput)
        XCTAssertTrue(clearing.errorOutput.contains("jcap: take \(numbers[0]): mark cleared"), clearing.errorOutput)
        let json = try JSONDecoder().decode([TakeLogEntry].self, from: Data(clearing.output.utf8))
        XCTAssertEqual(json.map(\.mark), [nil, .falseStart, .noGood])
        XCTAssertEqual(json.map(\.note), [nil, "count-in too fast", nil])
        XCTAssertEqual(try TakeLog(folder: definition.folder).entries(), json)

        let unknownTake = try runJcap(["takes", file, "--mark", "99", "circled"])
        XCTAssertEqual(unknownTake.status, 23, unknownTake.errors)
        let badMark = try runJcap(["takes", file, "--mark", "\(numbers[0])", "great"])
        XCTAssertEqual(badMark.status, 64, badMark.errors)
        XCTAssertTrue(badMark.errors.contains("--mark takes a take number and a mark (circled|false-start|no-good|none)"),
                      badMark.errors)
    }
}
