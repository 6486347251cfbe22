import Foundation
import XCTest
@testable import JackCapture
import jcap

/// `jcap session` on a pseudo-terminal, driven as a person drives it: keys typed one at a time,
/// the screen read back after each.
final class SessionConsoleTests: JackTestCase {
    /// A session file of `count` tracks on the test signal's first ports, named `A`, `B`, ... (or
    /// `T1`... past 26); `disarmed` start disarmed.
    func writeSession(_ name: String, tracks count: Int, disarmed: Set<Int> = []) throws -> String {
        var text = "[session]\nname = \"\(name)\"\nformat = \"wav\"\nbit_depth = \"float\"\n"
        for index in 0..<count {
            text += "\n[[track]]\nname = \"\(Self.trackName(index, of: count))\"\nsource = \"sig:out_\(index + 1)\"\n"
            if disarmed.contains(index) { text += "arm = false\n" }
        }
        let file = path("\(name).toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    static func trackName(_ index: Int, of count: Int) -> String {
        count <= 26 ? String(UnicodeScalar(UInt8(ascii: "A") + UInt8(index))) : "T\(index + 1)"
    }

    func open(_ arguments: [String], columns: Int = 80, rows: Int = 24) throws -> TerminalSession {
        try TerminalSession(try Executables.built("jcap"), arguments, columns: columns, rows: rows,
                            server: server.name, directory: directory)
    }

    func entries(_ name: String) throws -> [TakeLogEntry] { try TakeLog(folder: path(name)).entries() }

    /// The exit status a session run calls for by its folder's take log: the worst of its takes'
    /// (a busy machine can lose frames in a take; jcap logs it so and exits 3).
    func exitStatus(ofSession name: String) throws -> Int32 {
        ExitStatus.worst(try entries(name).map { ExitStatus(for: $0.status) }).rawValue
    }

    /// Every track is on screen with its number, a disarmed one marked ○; its number arms it, and
    /// the next take records the tracks armed then.
    func testEveryTrackIsShownNumberedAndItsNumberArmsIt() throws {
        let file = try writeSession("arm", tracks: 3, disarmed: [2])
        let terminal = try open(["session", file])
        try terminal.waitForScreen("READY with every track") { screen in
            screen.contains { $0.contains("READY") } && screen.contains { $0.hasPrefix("1● A ") }
                && screen.contains { $0.hasPrefix("2● B ") } && screen.contains { $0.hasPrefix("3○ C ") }
        }
        terminal.type("3")
        try terminal.waitForScreen("C armed") { $0.contains { $0.hasPrefix("3● C ") } }
        terminal.type("1")
        try terminal.waitForScreen("A disarmed") { $0.contains { $0.hasPrefix("1○ A ") } }
        terminal.type("r")
        try terminal.waitForScreen("take 1 recording") { $0.contains { $0.contains("REC") } }
        terminal.type("2")
        try terminal.waitFor("a take is recording; stop it before arming or disarming a track")
        try terminal.waitForScreen("B still armed during the take") { $0.contains { $0.hasPrefix("2● B ") } }
        usleep(300_000)
        stopTake(terminal)
        try terminal.waitForScreen("READY again") { $0.contains { $0.contains("READY") } }
        terminal.type("q")
        XCTAssertEqual(try terminal.wait(), try exitStatus(ofSession: "arm"), terminal.transcript)
        let take = try XCTUnwrap(try entries("arm").first, terminal.transcript)
        XCTAssertEqual(take.tracks.map(\.name), ["B", "C"], "the tracks armed when it started")
        XCTAssertEqual(take.files.flatMap(\.tracks), ["B", "C"])
    }

    /// Stops the take as a person does: s, and s again to confirm.
    func stopTake(_ terminal: TerminalSession) {
        terminal.type("ss")
    }

    /// One s asks and lapses, Enter does nothing, r resumes a paused take, q during a take asks
    /// and q again quits (finishing the take), ? lists the keys.
    func testStopAndQuitAreGuardedAndEnterDoesNothing() throws {
        let file = try writeSession("guard", tracks: 2)
        let terminal = try open(["session", file])
        try terminal.waitForScreen("READY") { $0.contains { $0.contains("READY") } }
        terminal.type("?")
        try terminal.waitFor("s s stop the take")
        terminal.type("r")
        try terminal.waitForScreen("take 1 recording") { $0.contains { $0.contains("REC") } }
        terminal.type("\r")
        terminal.type("s")
        try terminal.waitFor("stop take 1? s again within 2 s stops it")
        try terminal.waitForScreen("the question in the header") { $0.contains { $0.contains("STOP take 1? s again") } }
        try terminal.waitFor("take 1 goes on recording", timeout: 5)
        try terminal.waitForScreen("still recording") { $0.contains { $0.contains("REC") } }
        terminal.type(" ")
        try terminal.waitForScreen("paused") { $0.contains { $0.contains("PAUSED") } }
        terminal.type("r")
        try terminal.waitForScreen("resumed by r") { $0.contains { $0.contains("REC") } }
        XCTAssertFalse(terminal.transcript.contains("a take is recording"), terminal.transcript)
        terminal.type("q")
        try terminal.waitFor("q again within 2 s ends it and quits")
        terminal.type("q")
        let status = try terminal.wait()
        let takes = try entries("guard")
        XCTAssertEqual(takes.map(\.take), [1], terminal.transcript)
        // A busy machine can lose frames in the take: jcap then logs it so and exits 3.
        let take = try XCTUnwrap(takes.first, terminal.transcript)
        XCTAssertTrue([.complete, .framesLost].contains(take.status), "\(take.status): \(terminal.transcript)")
        XCTAssertEqual(status, ExitStatus(for: take.status).rawValue, terminal.transcript)
        XCTAssertEqual(takes.first?.pauses.count, 1, "paused once, resumed by r")
        XCTAssertGreaterThan(takes.first?.frames ?? 0, 48_000, "the single s and Enter did not stop it")
    }

    /// `--overdub N --tracks B` records only B and plays take N without B (unless
    /// `--play-replaced`).
    func testAnOverdubOfSomeTracksPlaysTheOthers() throws {
        let file = try writeSession("dub", tracks: 3)
        // Each run exits as its take's log entry and its player call for: a busy machine can lose
        // a take frames, or the player a period ("playback fell behind"); both are reported.
        func assertStatus(_ run: (status: Int32, errors: String), take: Int, line: UInt = #line) throws {
            let entry = try XCTUnwrap(try entries("dub").first { $0.take == take }, run.errors, line: line)
            let player: ExitStatus = run.errors.contains("jcap: playback fell behind: ") ? .lostFrames : .success
            XCTAssertEqual(run.status, ExitStatus.worst(ExitStatus(for: entry.status), player).rawValue, "\(entry.status): \(run.errors)", line: line)
        }
        let first = try runJcap(["session", file, "--for", "0.3s", "--meter", "none"])
        try assertStatus(first, take: 1)
        let dub = try runJcap(["session", file, "--overdub", "1", "--tracks", "B", "--at", "+0.3s", "--for", "0.3s", "--meter", "none"])
        try assertStatus(dub, take: 2)
        XCTAssertTrue(dub.errors.contains("dub-play:A"), dub.errors)
        XCTAssertTrue(dub.errors.contains("dub-play:C"), dub.errors)
        XCTAssertFalse(dub.errors.contains("dub-play:B"), "B is being replaced: not played: \(dub.errors)")
        let again = try runJcap(["session", file, "--overdub", "1", "--tracks", "B", "--play-replaced", "--at", "+0.3s",
                                 "--for", "0.3s", "--meter", "none"])
        try assertStatus(again, take: 3)
        XCTAssertTrue(again.errors.contains("dub-play:B"), again.errors)
        let takes = try entries("dub")
        XCTAssertEqual(takes.map { $0.tracks.map(\.name) }, [["A", "B", "C"], ["B"], ["B"]])
        let unknown = try runJcap(["session", file, "--tracks", "Vocal", "--for", "0.3s", "--meter", "none"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.errors.contains("Vocal"), unknown.errors)
    }

    /// A test-signal client of one port, `name:out_1`, playing `signal` ("sine" at `level` dBFS,
    /// or "silence").
    func signalClient(_ name: String, _ signal: String, level: Int = -12) throws -> Subprocess {
        let client = try Subprocess(try Executables.built("jcap-testsignal"),
                                    ["play", "--channels", "1", "--name", name, "--signal", signal, "--level=\(level)"],
                                    server: server.name, directory: directory)
        try Self.waitFor("\(name)'s port") { observer.audioOutputPorts().contains("\(name):out_1") }
        return client
    }

    /// From the moment the session opens: CLIP latched on a +3 dBFS source until x clears it, a
    /// silent source marked DEAD after 2 s, an unpatched one at once (x clears CLIP); `jcap takes` flags the take.
    func testMetersLatchClipsAndMarkDeadTracksFromTheStart() throws {
        let hot = try signalClient("hot", "sine", level: 3)
        let quiet = try signalClient("quiet", "silence")
        defer { quiet.signal(SIGTERM) }
        let text = "[session]\nname = \"live\"\nformat = \"wav\"\n\n[[track]]\nname = \"Vox\"\nsource = \"sig:out_1\"\n"
            + "\n[[track]]\nname = \"Hot\"\nsource = \"hot:out_1\"\n\n[[track]]\nname = \"Mute\"\nsource = \"quiet:out_1\"\n"
        try text.write(toFile: path("live.toml"), atomically: true, encoding: .utf8)
        let terminal = try open(["session", path("live.toml")])
        try terminal.waitForScreen("CLIP on Hot in READY") { screen in
            screen.contains { $0.contains("READY") } && screen.contains { $0.hasPrefix("2● Hot") && $0.hasSuffix("CLIP") }
        }
        try terminal.waitFor("Mute is dead: below -90 dBFS for 2 s while other tracks carry signal")
        try terminal.waitForScreen("Mute marked DEAD") { $0.contains { $0.hasPrefix("3● Mute") && $0.hasSuffix("DEAD") } }
        XCTAssertFalse(terminal.transcript.contains("Vox is dead"), terminal.transcript)
        hot.signal(SIGTERM)
        _ = try hot.wait(timeout: 10)
        try terminal.waitFor("Hot is dead: nothing is patched to its input")
        terminal.type("x")
        try terminal.waitForScreen("CLIP cleared, DEAD shown") { $0.contains { $0.hasPrefix("2● Hot") && $0.hasSuffix("DEAD") } }
        terminal.type("r")
        try terminal.waitForScreen("take 1 recording") { $0.contains { $0.contains("REC") } }
        XCTAssertTrue(terminal.screen.contains { $0.hasPrefix("3● Mute") && $0.hasSuffix("DEAD") }, "still dead while recording")
        usleep(500_000)
        stopTake(terminal)
        try terminal.waitForScreen("READY again") { $0.contains { $0.contains("READY") } }
        terminal.type("q")
        XCTAssertEqual(try terminal.wait(), try exitStatus(ofSession: "live"), terminal.transcript)
        XCTAssertFalse(terminal.transcript.contains(" disconnected at "),
                       "an unpatching between takes is told when it happens, not again at the next take: \(terminal.transcript)")
        let takes = try runJcap(["takes", path("live.toml")])
        XCTAssertEqual(takes.status, 0, takes.errors)
        let listing = try launchJcap(["takes", path("live.toml")])
        _ = try listing.wait()
        XCTAssertTrue(listing.output.contains("2 dead tracks: Hot, Mute"), listing.output)
    }

    /// m drops markers in the take, c circles it while it records, n types its note (q and s in
    /// it are text), f marks it a false start after; the log, `jcap takes` and the files (as cue
    /// points) have them all.
    func testMarkersMarksAndNotesWhileRecording() throws {
        let file = try writeSession("marks", tracks: 2)
        let terminal = try open(["session", file])
        try terminal.waitForScreen("READY") { $0.contains { $0.contains("READY") } }
        terminal.type("r")
        try terminal.waitForScreen("take 1 recording") { $0.contains { $0.contains("REC") } }
        usleep(500_000)
        terminal.type("m")
        try terminal.waitFor("take 1: marker at 0:00:0")
        usleep(300_000)
        terminal.type("m")
        terminal.type("c")
        try terminal.waitFor("take 1: marked circled")
        terminal.type("n")
        try terminal.waitForScreen("the note's line") { $0.contains { $0.hasPrefix("note for take 1: _") } }
        terminal.type("quiet, sung")
        try terminal.waitForScreen("the note typed") { $0.contains { $0.hasPrefix("note for take 1: quiet, sung_") } }
        terminal.type("\r")
        try terminal.waitFor("take 1: note set")
        XCTAssertFalse(terminal.transcript.contains("stop take 1?"), "s in the note was text: \(terminal.transcript)")
        XCTAssertFalse(terminal.transcript.contains("ends it and quits"), "q in the note was text")
        stopTake(terminal)
        try terminal.waitForScreen("READY again") { $0.contains { $0.contains("READY") } }
        terminal.type("f")
        try terminal.waitFor("take 1: marked false start")
        terminal.type("q")
        XCTAssertEqual(try terminal.wait(), try exitStatus(ofSession: "marks"), terminal.transcript)
        let take = try XCTUnwrap(try entries("marks").first)
        XCTAssertEqual(take.markers.count, 2, terminal.transcript)
        let positions = take.markers.map(\.position)
        XCTAssertGreaterThan(positions[0], 12_000, "half a second in")
        XCTAssertGreaterThan(positions[1], positions[0])
        XCTAssertLessThan(positions[1], take.frames)
        // Every track's file carries the markers as its cue list, at the logged frames.
        XCTAssertEqual(take.files.count, 2)
        for file in take.files {
            let reader = try SoundFile.open(readingFrom: path("marks") + "/" + file.path)
            XCTAssertEqual(reader.cueFrames().map(Int64.init), positions, file.path)
        }
        XCTAssertEqual(take.mark, .falseStart)
        XCTAssertEqual(take.note, "quiet, sung")
        let listing = try launchJcap(["takes", file])
        XCTAssertEqual(try listing.wait(), 0)
        XCTAssertTrue(listing.output.contains("false start"), listing.output)
        XCTAssertTrue(listing.output.contains("2 markers 0:00:0"), listing.output)
        XCTAssertTrue(listing.output.contains("\"quiet, sung\""), listing.output)
    }

    /// 64 tracks: at 160×48 in two columns of full-length bars, at 80×24 in numbered compact
    /// columns; all 64 on screen either way, and a two-digit number arms or disarms a track.
    func testSixtyFourTracksFitTheTerminal() throws {
        let file = try writeSession("big", tracks: 64)
        for (columns, rows) in [(160, 48), (80, 24)] {
            let terminal = try open(["session", file], columns: columns, rows: rows)
            try terminal.waitForScreen("all 64 tracks at \(columns)×\(rows)", timeout: 30) { screen in
                screen.contains { $0.contains("READY") } && (1...64).allSatisfy { track in
                    screen.contains { $0.contains("\(track)● ") }
                }
            }
            let screen = terminal.screen
            XCTAssertFalse(screen.contains { $0.contains("more channels") }, screen.joined(separator: "\n"))
            if columns == 160 {
                let row = try XCTUnwrap(screen.first { $0.contains(" 1● T1 ") })
                XCTAssertTrue(row.contains("33● T33 "), "two columns of bars: \(row)")
                let cells = row.split(separator: "[")[1].prefix { $0 != "]" }.count
                XCTAssertGreaterThanOrEqual(cells, 40, "full-length bars: \(row)")
            }
            terminal.type("64")
            try terminal.waitForScreen("track 64 disarmed") { $0.contains { $0.contains("64○ ") } }
            terminal.type("q")
            XCTAssertEqual(try terminal.wait(), 0, terminal.transcript)
        }
    }

    /// Less text: 64 sources in one line, the take's summary last with every peak in a compact
    /// table; -v gives a line per track and the frame numbers.
    func testSixtyFourTracksSayLittleAndTheSummaryComesLast() throws {
        let file = try writeSession("quietly", tracks: 64)
        let run = try runJcap(["session", file, "--for", "0.3s", "--meter", "none"])
        // A loaded host can disturb the take: then jcap says so, logs it and exits by the log's status.
        try assertStatusMatchesLog(run, folder: path("quietly"))
        let take = try XCTUnwrap(try entries("quietly").first { $0.take == 1 }, run.errors)
        XCTAssertTrue(run.errors.contains("  T1..64 <- sig:out_1..64\n"), run.errors)
        XCTAssertFalse(run.errors.contains("T5: quietly:T5"), "no line per track without -v")
        let lines = run.errors.split(separator: "\n").map(String.init)
        // jcap's reports of trouble (late or uncertain periods as they happen; losses and xruns in
        // the summary) are said whatever the track count; the rest must be little.
        let trouble = lines.filter {
            $0.hasPrefix("jcap: late callback: ") || $0.hasPrefix("jcap: placement uncertain: ") || $0.hasPrefix("jcap: take 1: ")
        }
        XCTAssertLessThan(lines.count - trouble.count, 20, run.errors)
        let summary = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("jcap: take 1 \(take.status.rawValue): 00:00:00.300, 64 files, started ") },
                                    run.errors)
        XCTAssertFalse(lines[summary].contains("JACK frame"), "no frame numbers without -v: \(lines[summary])")
        XCTAssertFalse(lines[summary].contains("Z"), "local time, not UTC: \(lines[summary])")
        // Under the summary line, the losses and xruns the log holds (and only those), then the peaks.
        let said = Array(lines[(summary + 1)...].prefix { $0.hasPrefix("jcap: take 1: ") })
        let lost = take.lost.reduce(Int64(0)) { $0 + $1.frames }
        let xruns = take.xruns.count
        XCTAssertEqual(said, said.filter { line in
            line.hasPrefix("jcap: take 1: ") && (line.contains(" frames lost, written as silence at ") || line.contains(" xrun"))
        }, run.errors)
        /// The number a line under the summary starts with (`1,024 frames lost`); nil without such a line.
        func count(_ words: String) -> Int64? {
            said.first { $0.contains(words) }.map { Int64($0.dropFirst("jcap: take 1: ".count).prefix { $0 != " " }.filter(\.isNumber)) ?? -1 }
        }
        XCTAssertEqual(count(" frames lost, "), lost == 0 ? nil : lost, "the frames the log says were lost: \(run.errors)")
        XCTAssertEqual(count(" xrun"), xruns == 0 ? nil : Int64(xruns), "the xruns the log holds: \(run.errors)")
        let peaks = lines[(summary + 1 + said.count)...]
        XCTAssertTrue(peaks.first?.hasPrefix("  peak dBFS: T1 -") == true, run.errors)
        XCTAssertTrue(peaks.allSatisfy { $0.hasPrefix("  ") }, "the peaks are the last lines: \(run.errors)")
        XCTAssertTrue(peaks.joined().contains("T64 -"), run.errors)

        let verbose = try runJcap(["session", file, "--for", "0.3s", "--meter", "none", "-v"])
        let second = try XCTUnwrap(try entries("quietly").first { $0.take == 2 }, verbose.errors)
        XCTAssertEqual(verbose.status, ExitStatus(for: second.status).rawValue, "\(second.status): \(verbose.errors)")
        XCTAssertTrue(verbose.errors.contains("  T5: quietly:T5 <- sig:out_5"), verbose.errors)
        XCTAssertTrue(verbose.errors.contains("14400 frames, from JACK frame "), verbose.errors)
    }

    /// `jcap record` on a terminal speaks as a session does: 64 sources in one line, the take's
    /// summary last (length, start in local time, counts, every peak in a compact table) and no
    /// frame numbers; -v gives a line per channel and the frames.
    func testRecordOnATerminalSaysLittleAndTheSummaryComesLast() throws {
        let terminal = try open(["--port", "sig:out_*", "--for", "0.5s", "-o", "rec.wav"])
        XCTAssertEqual(try terminal.wait(), exitStatus(reportedOnConsole: terminal.transcript), terminal.transcript)
        let text = terminal.transcript
        XCTAssertTrue(text.contains("jcap:in_1..64 <- sig:out_1..64"), text)
        XCTAssertFalse(text.contains("channel 10:"), "no line per channel without -v: \(text)")
        XCTAssertFalse(text.contains("JACK frame"), "no frame numbers without -v: \(text)")
        let lines = text.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let summary = try XCTUnwrap(lines.lastIndex { $0.hasPrefix("jcap: wrote rec.wav: 00:00:00.500, 64 channels, ") }, text)
        XCTAssertNotNil(lines[summary].range(of: "started [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}$", options: .regularExpression),
                        "the start in local time: \(lines[summary])")
        XCTAssertTrue(lines[summary + 1] == "jcap: no xruns, nothing lost"
                      || lines[summary + 1].range(of: "^jcap: [0-9,]+ xruns?, [0-9,]+ frames lost$", options: .regularExpression) != nil,
                      lines[summary + 1])
        XCTAssertTrue(lines[summary + 2].hasPrefix("peak dBFS: out_1 "), text)
        XCTAssertTrue(lines[(summary + 2)...].joined().contains("out_64 "), "every peak, and they are the last lines: \(text)")
        XCTAssertLessThan(lines.count - summary, 24, "the summary fits the 80×24 screen: \(text)")

        let verbose = try open(["--port", "sig:out_*", "--for", "0.5s", "-o", "verbose.wav", "-v"])
        XCTAssertEqual(try verbose.wait(), exitStatus(reportedOnConsole: verbose.transcript), verbose.transcript)
        XCTAssertTrue(verbose.transcript.contains("channel 10: jcap:in_10 <- sig:out_10"), verbose.transcript)
        XCTAssertTrue(verbose.transcript.contains("00:00:00.500 (24000 frames), 64 channels"), verbose.transcript)
        XCTAssertTrue(verbose.transcript.contains(", JACK frames "), verbose.transcript)
    }

    /// READY names the next take (for slating) and the disk time as hours and minutes; a stop
    /// is said without frame numbers.
    func testReadySaysTheNextTakeAndTheDiskTime() throws {
        let file = try writeSession("slate", tracks: 2)
        let terminal = try open(["session", file])
        try terminal.waitForScreen("READY with the next take") { screen in
            screen.contains { $0.contains("session slate, next take 1, ") && $0.contains("min of recording left") && $0.contains("READY") }
        }
        terminal.type("r")
        try terminal.waitForScreen("take 1 recording") { $0.contains { $0.contains("session slate, take 1, ") && $0.contains("REC") } }
        usleep(300_000)
        stopTake(terminal)
        try terminal.waitForScreen("next take 2") { $0.contains { $0.contains("session slate, next take 2, ") } }
        terminal.type("q")
        XCTAssertEqual(try terminal.wait(), try exitStatus(ofSession: "slate"), terminal.transcript)
        XCTAssertTrue(terminal.transcript.contains("jcap: stopping take 1\n"), terminal.transcript)
    }
}
