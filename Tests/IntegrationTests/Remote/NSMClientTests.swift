import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// jcap under an NSM session manager: `nsm_test_server.py`, a minimal server that follows the NSM
/// API document step by step (announce, open, save, SIGTERM), drives jcap as nsmd would, and
/// asserts every reply; here its takes are then checked sample by sample against the test
/// signal, as the console's takes are. (Debian bookworm has no nsmd package to test against;
/// the README gives the steps with nsmd.)
final class NSMClientTests: JackTestCase {
    static let tracks = ["Kick", "Snare", "Room L", "Room R"]

    /// A template session of four tracks on `sig:out_1..4`, the room pair a group.
    func writeTemplate() throws -> String {
        var text = "[session]\nname = \"template\"\nformat = \"wav\"\nbit_depth = \"float\"\n"
        for (index, name) in Self.tracks.enumerated() {
            text += "\n[[track]]\nname = \"\(name)\"\nsource = \"sig:out_\(index + 1)\"\n"
            if index >= 2 { text += "group = \"room\"\n" }
        }
        let file = path("template.toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Runs the test server's `scenario` on jcap; its transcript, after asserting it passed.
    @discardableResult
    func runServer(_ scenario: String, template: String? = nil, line: UInt = #line) throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("nsm_test_server.py")
        var arguments = [script.path, "--scenario", scenario, "--jcap", try Executables.built("jcap").path,
                         "--server", server.name, "--root", path("NSM Sessions/test session")]
        if let template { arguments += ["--template", template] }
        let python = try Subprocess(URL(fileURLWithPath: "/usr/bin/python3"), arguments, server: server.name, directory: directory)
        let status = try python.wait(timeout: 120)
        let transcript = python.output + python.errorOutput
        print(transcript)
        XCTAssertEqual(status, 0, transcript, line: line)
        XCTAssertTrue(transcript.contains("\nPASS"), transcript, line: line)
        return transcript
    }

    var clientFolder: String { path("NSM Sessions/test session/jcap.nTEST") }

    /// Announce, open (folder, session file, JACK name), a take from the terminal, an arming
    /// change (dirty), save (clean, the file), a switch to another session during a take, a take
    /// there ended by SIGTERM: every reply asserted by the server; the takes here, sample by sample.
    func testASessionUnderTheManagerRecordsSavesSwitchesAndQuitsOnSIGTERM() throws {
        let transcript = try runServer("session", template: try writeTemplate())
        let accounts = try takeLogAccounts(folder: clientFolder)
        XCTAssertEqual(accounts.count, 2, transcript)
        for account in accounts { assertAccountedFor(account, transcript) }
        // The session switched to: a new folder from the template, its own take 1, every track armed.
        let switched = path("NSM Sessions/test session/jcap.nOTHR")
        let switchedAccounts = try takeLogAccounts(folder: switched)
        XCTAssertEqual(switchedAccounts.count, 1, transcript)
        for account in switchedAccounts { assertAccountedFor(account, transcript) }
        XCTAssertEqual(try TakeLog(folder: switched).entries().first?.files.map(\.path),
                       ["take-001-Kick.wav", "take-001-Snare.wav", "take-001-room.wav"])
        let entries = try TakeLog(folder: clientFolder).entries()
        XCTAssertEqual(entries.map(\.take), [1, 2])
        XCTAssertEqual(entries.first?.files.map(\.path), ["take-001-Kick.wav", "take-001-Snare.wav", "take-001-room.wav"])
        // Kick was disarmed before take 2, and the saved file says so.
        XCTAssertEqual(entries.last?.files.map(\.path), ["take-002-Snare.wav", "take-002-room.wav"])
        let saved = try SessionDefinition.load(path: clientFolder + "/session.toml")
        XCTAssertEqual(saved.name, "jcap.nTEST")
        XCTAssertEqual(saved.tracks.map(\.name), Self.tracks)
        XCTAssertEqual(saved.tracks.map(\.armed), [false, true, true, true])
        XCTAssertEqual(saved.tracks.map(\.group), [nil, nil, "room", "room"])
        XCTAssertEqual(saved.tracks.map(\.source), (1...4).map { .port("sig:out_\($0)") })
        XCTAssertEqual(saved.format.displayName, "32-bit float WAV")
    }

    /// `jcap` alone under the manager (X-NSM-Exec=jcap): the default session, two tracks on the
    /// first two physical capture ports, named after the client id; SIGTERM quits with 0.
    func testJcapAloneOpensTheDefaultSession() throws {
        try runServer("default")
        let saved = try SessionDefinition.load(path: clientFolder + "/session.toml")
        XCTAssertEqual(saved.tracks.map(\.name), ["In 1", "In 2"])
        XCTAssertEqual(saved.tracks.map(\.source), [.channel(1), .channel(2)])
        XCTAssertEqual(try TakeLog(folder: clientFolder).entries().count, 0)
    }

    /// The manager refusing the announce: status 28, nothing opened.
    func testARefusedAnnounceExits28() throws {
        try runServer("refuse")
        XCTAssertFalse(FileManager.default.fileExists(atPath: clientFolder))
    }

    /// A template whose source the server lacks: `/error` to the open, and jcap exits with the
    /// status it gives that session without a manager.
    func testASessionThatCannotOpenIsAnErrorReply() throws {
        let file = path("bad.toml")
        try "[session]\nname = \"bad\"\n\n[[track]]\nname = \"Gone\"\nsource = \"nobody:out_1\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let transcript = try runServer("bad-open", template: file)
        XCTAssertTrue(transcript.contains("jcap exited \(ExitStatus.unknownSource.rawValue)")
                      || transcript.contains("jcap exited \(ExitStatus.badSessionFile.rawValue)"), transcript)
    }
}
