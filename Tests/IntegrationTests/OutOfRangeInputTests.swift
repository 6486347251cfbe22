import Foundation
import XCTest
@testable import JackCapture
import jcap

/// Numbers, times and names from files and flags that are out of range: each refused in one line
/// with its own exit status before anything is created, never a crash or a hang.
final class OutOfRangeInputTests: JackTestCase {
    /// A one-track session `name` recording `sig:out_1`.
    func writeSession(_ name: String) throws -> String {
        let text = "[session]\nname = \"\(name)\"\nformat = \"wav\"\n\n[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n"
        let file = path("\(name).toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The names in `folder` but the session lock's (opening a session makes it, and it stays).
    func contents(of folder: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder)).subtracting([".jcap.lock"])
    }

    /// A take number at Int.max in a file name or in the log crashed the session (status 132);
    /// one past the highest a session gives is refused as well, with the folder left as it was.
    func testTakeNumbersAboveTheHighestInTheFolderOrTheLogAreRefused() throws {
        let session = try writeSession("S")
        let folder = path("S")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["take-9223372036854775807-A.wav", "take-\(SessionTake.highestNumber)-A.wav"] {
            let file = folder + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: nil))
            let before = try contents(of: folder)
            let run = try runJcap(["session", session, "--for", "1s", "--meter", "none"])
            XCTAssertEqual(run.status, ExitStatus.takeLogFailed.rawValue, "\(name): \(run.errors)")
            let errors = run.errors.split(separator: "\n").filter { $0.contains("error") }
            XCTAssertEqual(errors.count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("no take number left") && run.errors.contains("\(SessionTake.highestNumber)"), run.errors)
            XCTAssertEqual(try contents(of: folder), before, "\(name): nothing created")
            try FileManager.default.removeItem(atPath: file)
        }

        let log = folder + "/takes.jsonl"
        try Data("{\"take\":9223372036854775807,\"status\":\"complete\",\"sample_rate\":48000}\n".utf8)
            .write(to: URL(fileURLWithPath: log))
        let before = try contents(of: folder)
        let run = try runJcap(["session", session, "--for", "1s", "--meter", "none"])
        XCTAssertEqual(run.status, ExitStatus.takeLogFailed.rawValue, run.errors)
        XCTAssertTrue(run.errors.contains("no take number left"), run.errors)
        XCTAssertEqual(try contents(of: folder), before, "the log record: nothing created")
    }

    /// `--takes 9223372036854775807` crashed; `--takes 4611686018427387904` grew memory without
    /// bound and ignored signals. Both are refused at once as a bad option, nothing created.
    func testHugeTakeCountsAreRefusedAtOnce() throws {
        let session = try writeSession("T")
        for count in ["9223372036854775807", "4611686018427387904", "\(SessionTake.mostTakesBackToBack + 1)"] {
            let run = try runJcap(["session", session, "--for", "1s", "--takes", count, "--meter", "none"], timeout: 20)
            XCTAssertEqual(run.status, ExitStatus.usage.rawValue, "\(count): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("bad --takes '\(count)': use at most \(SessionTake.mostTakesBackToBack)"), run.errors)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("T")), "nothing created")
    }

    /// A date years ahead overflowed the countdown (status 132, header-only files left). It waits
    /// (the README: any distance ahead), counts down in frames, and Ctrl-C cancels it (6) with
    /// nothing left behind. So does the last second of year 9999.
    func testAStartYearsAheadCountsDownAndCancelsCleanly() throws {
        for (date, meter) in [("2040-01-01T00:00:00Z", "none"), ("9999-12-31T23:59:59Z", "none"), ("2040-01-01T00:00:00Z", "json")] {
            let jcap = try launchJcap(signalPorts(2) + ["--at", date, "--for", "1s", "--meter", meter,
                                                        "-o", "far-\(meter).wav"])
            try Self.waitFor("the countdown") { jcap.errorOutput.contains("jcap: recording") || !jcap.process.isRunning }
            usleep(1_500_000)
            jcap.signal(SIGINT)
            let status = try jcap.wait(timeout: 20)
            XCTAssertEqual(status, ExitStatus.cancelled.rawValue, "\(date): \(jcap.errorOutput)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("far-\(meter).wav")), "\(meter): no file left")
            guard meter == "json" else { continue }
            // The meter lines while it waits (after them, the cancelled take's summary line, and on
            // a busy machine perhaps one last line of the finished state, with nothing recorded).
            var lines = jcap.output.split(separator: "\n").filter { !$0.hasPrefix("{\"summary\"") }
            if let last = lines.last, last.contains("\"state\":\"finished\""), last.contains("\"elapsed_frames\":0,") {
                lines.removeLast()
            }
            XCTAssertFalse(lines.isEmpty, "meter lines while it waits")
            let target = 2_208_988_800.0  // 2040-01-01T00:00:00Z in seconds since the epoch
            for line in lines {
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
                XCTAssertEqual(object["state"] as? String, "countdown", String(line))
                let frames = try XCTUnwrap(object["countdown_frames"] as? Int, String(line))
                let expected = (target - Date().timeIntervalSince1970) * Double(server.sampleRate)
                XCTAssertEqual(Double(frames), expected, accuracy: 10 * Double(server.sampleRate), String(line))
            }
        }
    }

    /// `--loops -2` played forever (only -1 is documented); it is a bad option now.
    func testLoopsBelowMinusOneAreRefused() throws {
        let file = try writeFloatFile("loop.wav", channels: 1, frames: 100) { _, _ in 0.1 }
        for loops in ["-2", "-9223372036854775808"] {
            let run = try runJcap(["play", file, "--no-connect", "--loops", loops, "--meter", "none"], timeout: 10)
            XCTAssertEqual(run.status, ExitStatus.usage.rawValue, run.errors)
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("bad --loops '\(loops)': use 0 or more repeats, or -1 (forever)"), run.errors)
        }
    }

    /// `--from` at or past the end played nothing and exited 0; it is a bad time naming the length.
    func testFromAtOrPastTheEndIsRefusedNamingTheLength() throws {
        let file = try writeFloatFile("short.wav", channels: 1, frames: 24_000) { _, _ in 0.1 }
        for from in ["1s", "24000f", "0.5s"] {
            let run = try runJcap(["play", file, "--no-connect", "--from", from, "--meter", "none"], timeout: 20)
            XCTAssertEqual(run.status, ExitStatus.badTime.rawValue, "\(from): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
            XCTAssertTrue(run.errors.contains("bad --from '\(from)': at or past the end of the file, 24000 frames long "
                                              + "(0.500 s at \(server.sampleRate) Hz)"), run.errors)
        }
        let lastFrame = try runJcap(["play", file, "--no-connect", "--from", "23999f", "--meter", "none"], timeout: 20)
        XCTAssertEqual(lastFrame.status, 0, "the last frame is a start: \(lastFrame.errors)")
    }

    /// `--at +0s` was refused as passed in both commands; it is now, the next cycle. A delay
    /// past JACK's 32-bit frame clock was "already passed" in `jcap play`; it is a bad time
    /// naming the limit, in both.
    func testAtPlusZeroIsNowAndAnUncountableDelayIsABadTime() throws {
        let file = try writeFloatFile("now.wav", channels: 1, frames: 4_800) { _, _ in 0.1 }
        let playNow = try runJcap(["play", file, "--no-connect", "--at", "+0s", "--meter", "none"], timeout: 20)
        XCTAssertEqual(playNow.status, 0, playNow.errors)
        let recordNow = try runJcap(signalPorts(1) + ["--at", "+0s", "--for", "0.1s", "--meter", "none", "-o", "now-rec.wav"], timeout: 20)
        XCTAssertEqual(recordNow.status, exitStatus(reportedOnConsole: recordNow.errors), recordNow.errors)
        XCTAssertEqual(try SoundFile.open(readingFrom: path("now-rec.wav")).frames, 4_800)

        let limit = "JACK's 32-bit frame clock can schedule a start at most 12:25:39 ahead at 48000 Hz"
        let playFar = try runJcap(["play", file, "--no-connect", "--at", "+99999999s", "--meter", "none"], timeout: 20)
        XCTAssertEqual(playFar.status, ExitStatus.badTime.rawValue, playFar.errors)
        XCTAssertEqual(playFar.errors.split(separator: "\n").count, 1, playFar.errors)
        XCTAssertTrue(playFar.errors.contains(limit), playFar.errors)
        let recordFar = try runJcap(signalPorts(1) + ["--at", "+99999999s", "--for", "1s", "--meter", "none", "-o", "far.wav"], timeout: 20)
        XCTAssertEqual(recordFar.status, ExitStatus.badTime.rawValue, recordFar.errors)
        XCTAssertTrue(recordFar.errors.contains(limit), recordFar.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("far.wav")))
    }

    /// `--name` over 63 bytes gave JACK's bare "status 0x21"; '' and 'a:b' were accepted. Each is
    /// refused before JACK is asked, in jcap and jcap play; 63 bytes is fine.
    func testClientNamesJackCannotTakeAreRefusedBeforeJackIsAsked() throws {
        let file = try writeFloatFile("named.wav", channels: 1, frames: 480) { _, _ in 0.1 }
        for name in [String(repeating: "n", count: 64), "", "a:b", "bell\u{07}"] {
            for command in [["play", file, "--no-connect"], signalPorts(1) + ["--for", "0.1s", "-o", "named-rec.wav"]] {
                let run = try runJcap(command + ["--name", name, "--meter", "none"], timeout: 20)
                XCTAssertEqual(run.status, ExitStatus.usage.rawValue, "\(command[0]) '\(name)': \(run.errors)")
                XCTAssertEqual(run.errors.split(separator: "\n").count, 1, run.errors)
                XCTAssertTrue(run.errors.contains("a JACK client name of 1 to 63 bytes, without ':' or control characters"), run.errors)
                XCTAssertFalse(run.errors.contains("\u{07}"), "control characters are not printed raw")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("named-rec.wav")))
        let longest = String(repeating: "n", count: 63)
        let run = try runJcap(["play", file, "--no-connect", "--name", longest, "--meter", "none"], timeout: 20)
        XCTAssertEqual(run.status, 0, run.errors)
        XCTAssertTrue(run.errors.contains("client '\(longest)'"), run.errors)
    }

    /// `--delete 1 --delete 2` deleted only take 2: each is deleted now, and a number the log
    /// lacks among them deletes nothing. `--note N ''` said "note set" while it removed the note.
    func testEveryDeleteIsDoneAndAnEmptyNoteSaysCleared() throws {
        let session = try writeSession("D")
        let record = try runJcap(["session", session, "--for", "0.1s", "--takes", "3", "--meter", "none"], timeout: 30)
        let accounts = try takeLogAccounts(folder: path("D"))
        XCTAssertEqual(record.status, exitStatus(reportingAll: accounts), record.errors)
        for account in accounts { assertAccountedFor(account) }
        func entries() throws -> [Int: TakeLogEntry] {
            Dictionary(uniqueKeysWithValues: try TakeLog(folder: path("D")).entries().map { ($0.take, $0) })
        }
        // As recorded: complete, or frames lost where a busy machine lost them.
        let recorded = try entries()
        XCTAssertEqual(recorded.count, 3)

        let wrong = try runJcap(["takes", session, "--delete", "1", "--delete", "99"])
        XCTAssertEqual(wrong.status, ExitStatus.noSuchTake.rawValue, wrong.errors)
        XCTAssertEqual(try entries()[1]?.status, recorded[1]?.status, "a wrong number among them deletes nothing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("D/take-001-A.wav")))

        let both = try runJcap(["takes", session, "--delete", "1", "--delete", "2", "--delete", "1"])
        XCTAssertEqual(both.status, 0, both.errors)
        XCTAssertEqual(try entries()[1]?.status, .deleted, both.errors)
        XCTAssertEqual(try entries()[2]?.status, .deleted, both.errors)
        XCTAssertEqual(try entries()[3]?.status, recorded[3]?.status)
        XCTAssertTrue(both.errors.contains("take 1 deleted") && both.errors.contains("take 2 deleted"), both.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("D/take-001-A.wav")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("D/take-002-A.wav")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("D/take-003-A.wav")))

        let set = try runJcap(["takes", session, "--note", "3", "good one"])
        XCTAssertTrue(set.errors.contains("jcap: take 3: note set"), set.errors)
        XCTAssertEqual(try entries()[3]?.note, "good one")
        let cleared = try runJcap(["takes", session, "--note", "3", ""])
        XCTAssertEqual(cleared.status, 0, cleared.errors)
        XCTAssertTrue(cleared.errors.contains("jcap: take 3: note cleared"), cleared.errors)
        XCTAssertNil(try entries()[3]?.note)
    }

    /// `jcap play --channels`/`--port` named a "capture channel" and an "output port" where they
    /// mean the places it plays to.
    func testPlaybackDestinationsAreWordedForPlayback() throws {
        let file = try writeFloatFile("dest.wav", channels: 1, frames: 480) { _, _ in 0.1 }
        let channel = try runJcap(["play", file, "--channels", "3", "--meter", "none"])
        XCTAssertEqual(channel.status, ExitStatus.unknownSource.rawValue, channel.errors)
        XCTAssertTrue(channel.errors.contains("jcap: error: no playback channel 3: the JACK server has 2 (1-2)"), channel.errors)
        for pattern in ["nothing:here", "sig:out_1"] {
            let port = try runJcap(["play", file, "--port", pattern, "--meter", "none"])
            XCTAssertEqual(port.status, ExitStatus.unknownSource.rawValue, port.errors)
            XCTAssertTrue(port.errors.contains("jcap: error: no JACK input port to play to matches '\(pattern)' (use --channels for the physical playback ports)"),
                          port.errors)
            XCTAssertFalse(port.errors.contains("output port") || port.errors.contains("capture"), port.errors)
        }
    }

    /// Without `-o`, a take is named one past the highest `take-NNN` in the folder: a name at
    /// Int.max crashed it (132). Numbers above the highest jcap gives leave none: refused (14)
    /// with the folder as it was.
    func testPlainTakeNamesAboveTheHighestAreRefused() throws {
        let folder = path("plain")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["take-9223372036854775807.wav", "take-\(TakeNaming.highestNumber).flac"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil))
            let jcap = try Subprocess(try Executables.built("jcap"), signalPorts(1) + ["--for", "0.1s", "--meter", "none"],
                                      server: server.name, directory: folder)
            let status = try jcap.wait(timeout: 20)
            XCTAssertEqual(status, ExitStatus.outputUnwritable.rawValue, "\(name): \(jcap.errorOutput)")
            XCTAssertEqual(jcap.errorOutput.split(separator: "\n").count, 1, jcap.errorOutput)
            XCTAssertTrue(jcap.errorOutput.contains("no take number left") && jcap.errorOutput.contains("\(TakeNaming.highestNumber)"),
                          jcap.errorOutput)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [name], "nothing created")
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}
