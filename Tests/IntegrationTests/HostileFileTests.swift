import Foundation
import XCTest
@testable import JackCapture
import jcap

/// What jcap does with files that are not what they claim, or point elsewhere: FIFOs in place of
/// a session file or a sound file, symlinks inside a session folder, a log jcap cannot write,
/// names and notes carrying terminal escapes. Each is one clear line and a distinct status,
/// never a hang, a crash or a touched file outside the session.
final class HostileFileTests: JackTestCase {
    func writeSession(_ name: String, tracks: String = "[[track]]\nname = \"Vox\"\nsource = \"sig:out_1\"\n") throws -> String {
        let file = path("\(name).toml")
        try "[session]\nname = \"\(name)\"\nformat = \"wav\"\n\n\(tracks)".write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func testAFifoIsRefusedAtOnceAsASessionFileAndAsASoundFile() throws {
        let fifo = path("fifo.toml")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for arguments in [["session", fifo, "--for", "1s", "--meter", "none"], ["takes", fifo]] {
            let run = try runJcap(arguments, timeout: 10)
            XCTAssertEqual(run.status, 20, "\(arguments): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("fifo.toml") && run.errors.contains("not a regular file"), run.errors)
        }
        let sound = path("fifo.wav")
        XCTAssertEqual(mkfifo(sound, 0o644), 0)
        let run = try runJcap(["play", sound, "--meter", "none"], timeout: 10)
        XCTAssertEqual(run.status, 24, run.errors)
        XCTAssertTrue(run.errors.contains("fifo.wav") && run.errors.contains("not a regular file"), run.errors)
    }

    func testATakeFileBehindASymlinkOutOfTheSessionIsNeverDeleted() throws {
        let session = try writeSession("linked")
        let outside = path("outside")
        try FileManager.default.createDirectory(atPath: path("linked"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("not yours".utf8).write(to: URL(fileURLWithPath: outside + "/take-001-Vox.wav"))
        try FileManager.default.createSymbolicLink(atPath: path("linked/sub"), withDestinationPath: outside)
        try Data("{\"take\":1,\"status\":\"complete\",\"sample_rate\":48000,\"files\":[{\"path\":\"sub/take-001-Vox.wav\",\"tracks\":[\"Vox\"]}]}\n".utf8)
            .write(to: URL(fileURLWithPath: path("linked/takes.jsonl")))
        let run = try runJcap(["takes", session, "--delete", "1"], timeout: 20)
        XCTAssertEqual(run.status, 22, run.errors)
        XCTAssertTrue(run.errors.contains("sub/take-001-Vox.wav") && run.errors.contains("outside the session folder"), run.errors)
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside + "/take-001-Vox.wav"), "the file outside was removed")
    }

    func testASymlinkedLockIsRefusedAndItsTargetKept() throws {
        let session = try writeSession("locked")
        try FileManager.default.createDirectory(atPath: path("locked"), withIntermediateDirectories: true)
        let precious = path("precious.txt")
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: precious))
        try FileManager.default.createSymbolicLink(atPath: path("locked/.jcap.lock"), withDestinationPath: precious)
        let run = try runJcap(["session", session, "--for", "1s", "--meter", "none"], timeout: 20)
        XCTAssertEqual(run.status, 22, run.errors)
        XCTAssertTrue(run.errors.contains(".jcap.lock") && run.errors.contains("symbolic link"), run.errors)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: precious)), Data("keep me\n".utf8))
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: path("locked")).contains { $0.hasSuffix(".wav") })
    }

    func testEscapesInNamesAndNotesNeverReachTheTerminalRaw() throws {
        // A track name and a note carrying ESC sequences (clear the screen, red), a C1 CSI and a BEL.
        let session = try writeSession("escapes", tracks: "[[track]]\nname = \"\\u001B[2JVox\\u009B31m\\u0007\"\nsource = \"sig:out_1\"\n")
        let take = try runJcap(["session", session, "--for", "4800f", "--meter", "none"])
        let accounts = try takeLogAccounts(folder: path("escapes"))
        XCTAssertEqual(take.status, exitStatus(reportingAll: accounts), take.errors)
        for account in accounts { assertAccountedFor(account) }
        XCTAssertTrue(take.errors.contains("\\u{1B}[2JVox\\u{9B}31m\\u{7}"), take.errors)
        let note = "\u{1B}]0;owned\u{7}\u{1B}[31mbest take\u{7F}"
        let setNote = try runJcap(["takes", session, "--note", "1", note])
        XCTAssertEqual(setNote.status, 0, setNote.errors)

        let list = try launchJcap(["takes", session])
        XCTAssertEqual(try list.wait(timeout: 20), 0, list.errorOutput)
        for text in [take.errors, setNote.errors, list.output, list.errorOutput] {
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) },
                           "a control character reached the terminal: \(text.debugDescription)")
        }
        XCTAssertTrue(list.output.contains("\\u{1B}]0;owned\\u{7}\\u{1B}[31mbest take\\u{7F}"), list.output)

        // The JSON stays exact: the note as it was set, the name as the file says.
        let json = try launchJcap(["takes", session, "--json"])
        XCTAssertEqual(try json.wait(timeout: 20), 0, json.errorOutput)
        let entries = try JSONDecoder().decode([TakeLogEntry].self, from: Data(json.output.utf8))
        XCTAssertEqual(entries.first?.note, note)
        XCTAssertEqual(entries.first?.tracks.first?.name, "\u{1B}[2JVox\u{9B}31m\u{7}")
    }

    func testDuplicateSourcesAreRefusedAtTheirLineAndCreateNothing() throws {
        // The same port written twice, and a glob that resolves to a port another track has.
        for (name, second, line) in [("twice", "sig:out_1", 11), ("glob", "sig:out_[1]", 11)] {
            let session = try writeSession(name, tracks: "[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n\n[[track]]\nname = \"B\"\nsource = \"\(second)\"\n")
            let run = try runJcap(["session", session, "--for", "1s", "--meter", "none"], timeout: 20)
            XCTAssertEqual(run.status, 20, run.errors)
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("\(name).toml:\(line): track 'B': source:") && run.errors.contains("track 'A'"), run.errors)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path(name)), "\(name): the session folder was created")
        }
    }

    func testOneUnreadableLogLineIsReportedAndTheSessionStillRecords() throws {
        let session = try writeSession("damaged")
        try FileManager.default.createDirectory(atPath: path("damaged"), withIntermediateDirectories: true)
        var log = Data("{\"take\":1,\"status\":\"complete\",\"sample_rate\":48000,\"frames\":480}\n".utf8)
        log += Data("{\"take\":1,\"note\":\"caf".utf8) + [0xE9] + Data("\"}\n".utf8)                // line 2: not UTF-8
        log += Data("{\"take\":2,\"status\":\"complete\",\"sample_rate\":48000,\"frames\":480}\n".utf8)
        log += Data("{\"take\":2,\"status\":\"newer-status\",\"note\":\"kept\"}\n".utf8)     // line 4: unknown status
        try log.write(to: URL(fileURLWithPath: path("damaged/takes.jsonl")))

        let take = try runJcap(["session", session, "--for", "4800f", "--meter", "none"])
        // The take's status as its log entry has it (a loaded server's xrun costs it frames, said so).
        let logged = try TakeLog(folder: path("damaged")).entry(3)
        XCTAssertEqual(take.status, ExitStatus(for: logged.status).rawValue, take.errors)
        XCTAssertTrue(take.errors.contains("line 2:") && take.errors.contains("line 4: unknown status \"newer-status\""), take.errors)
        XCTAssertTrue(take.errors.contains("take 3 \(logged.status.rawValue)"), take.errors)

        let list = try launchJcap(["takes", session])
        XCTAssertEqual(try list.wait(timeout: 20), 0, list.errorOutput)
        XCTAssertEqual(list.errorOutput.components(separatedBy: "line 2:").count, 2, "reported once: \(list.errorOutput)")
        XCTAssertEqual(list.output.split(separator: "\n").count, 3, list.output)
        XCTAssertTrue(list.output.contains("\"kept\""), list.output)
    }

    /// Makes the file impossible to write to for this process: read-only for a user, immutable
    /// (chattr +i) for root, whom permissions do not stop. Returns what undoes it.
    func makeUnwritable(_ file: String) throws -> () -> Void {
        guard geteuid() == 0 else {
            XCTAssertEqual(chmod(file, 0o444), 0)
            return { _ = chmod(file, 0o644) }
        }
        func chattr(_ flag: String) throws -> Int32 {
            let process = try Process.run(URL(fileURLWithPath: "/usr/bin/chattr"), arguments: [flag, file])
            process.waitUntilExit()
            return process.terminationStatus
        }
        guard try chattr("+i") == 0 else { throw XCTSkip("chattr +i is not supported here") }
        return { _ = try? chattr("-i") }
    }

    func testATakeLogThatCannotBeWrittenIsRefusedBeforeAnyFileIsMade() throws {
        let session = try writeSession("readonly")
        try FileManager.default.createDirectory(atPath: path("readonly"), withIntermediateDirectories: true)
        let log = path("readonly/takes.jsonl")
        try Data("{\"take\":1,\"status\":\"complete\",\"sample_rate\":48000,\"frames\":480}\n".utf8).write(to: URL(fileURLWithPath: log))
        let undo = try makeUnwritable(log)
        defer { undo() }
        let run = try runJcap(["session", session, "--for", "4800f", "--meter", "none"])
        XCTAssertEqual(run.status, 22, run.errors)
        XCTAssertTrue(run.errors.contains(log), run.errors)
        XCTAssertEqual(run.errors.split(separator: "\n").filter { $0.contains("error") }.count, 1, run.errors)
        var files = try FileManager.default.contentsOfDirectory(atPath: path("readonly"))
        XCTAssertFalse(files.contains { $0.hasPrefix("take-") }, "a take file was left: \(files)")

        // Made unwritable while the session is open: the next take is refused before its files.
        undo()
        let opened = try StudioSession(definition: try SessionDefinition.load(path: session), serverName: server.name)
        defer { opened.close() }
        let undoAgain = try makeUnwritable(log)
        defer { undoAgain() }
        XCTAssertThrowsError(try opened.record(length: .frames(4_800))) { error in
            guard case StudioSessionError.takeLog(.cannotWriteLog(let path, _)) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, log)
        }
        files = try FileManager.default.contentsOfDirectory(atPath: path("readonly"))
        XCTAssertFalse(files.contains { $0.hasPrefix("take-") }, "a take file was left: \(files)")
    }
}
