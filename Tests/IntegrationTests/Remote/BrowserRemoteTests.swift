import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// `jcap session --remote` in a real browser: Debian's Chromium driven by Playwright for Python
/// (browser_remote.py, next to this file), against a private server, the test signal and a
/// -20 dBFS sine. The page's take must be the take the keys make (same files, same log, every
/// sample checked), and the remote must refuse what it must without disturbing the recording.
final class BrowserRemoteTests: JackTestCase {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser_remote.py")
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let urlPattern = #"http://127\.0\.0\.1:[0-9]+/\?token=[A-Za-z0-9._~-]+"#

    /// Kick, Snare and Talk from the test signal (Talk disarmed in the file), Tone from a sine at
    /// -20 dBFS.
    func writeSession(_ name: String, tone: Bool = true) throws -> String {
        var text = "[session]\nname = \"\(name)\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n"
        text += "[[track]]\nname = \"Kick\"\nsource = \"sig:out_1\"\n\n[[track]]\nname = \"Snare\"\nsource = \"sig:out_2\"\n\n"
        if tone { text += "[[track]]\nname = \"Tone\"\nsource = \"tone:out_1\"\n\n" }
        text += "[[track]]\nname = \"Talk\"\nsource = \"sig:out_3\"\narm = false\n"
        let file = path("\(name).toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A 1 kHz sine at -20 dBFS on `tone:out_1`.
    func startTone() throws -> Subprocess {
        let tone = try Subprocess(try Executables.built("jcap-testsignal"),
                                  ["play", "--channels", "1", "--name", "tone", "--signal", "sine", "--level=-20"],
                                  server: server.name, directory: directory)
        try Self.waitFor("the tone's port") { observer.audioOutputPorts().contains("tone:out_1") }
        return tone
    }

    /// The URL jcap printed for its remote.
    func remoteURL(in text: String) -> String? {
        text.range(of: Self.urlPattern, options: .regularExpression).map { String(text[$0]) }
    }

    /// Runs browser_remote.py with `arguments`; what it saw (its JSON), or a failure with its errors.
    func browser(_ arguments: [String], timeout: TimeInterval = 120) throws -> [String: Any] {
        let run = try Subprocess(try Self.python(), [Self.script.path] + arguments, server: nil, directory: directory)
        let status = try run.wait(timeout: timeout)
        guard status == 0, let line = run.output.split(separator: "\n").last,
              let seen = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            // Its own one-line account of what failed first, then the end of its standard error.
            let said = run.errorOutput.split(separator: "\n").last { $0.hasPrefix("browser_remote.py: failed") } ?? ""
            throw TestFailure("browser_remote.py \(arguments.first ?? "") exited \(status): \(said)\n\(run.errorOutput.suffix(3_000))")
        }
        return seen
    }

    /// The first python3 on the PATH (or pyenv's) that has Playwright (tools/setup installs it).
    static func python() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        let candidates = path.split(separator: ":").map { "\($0)/python3" } + [home + "/.pyenv/shims/python3", "/usr/bin/python3"]
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: candidate)
            probe.arguments = ["-c", "import playwright.sync_api"]
            probe.standardError = FileHandle.nullDevice
            probe.standardOutput = FileHandle.nullDevice
            guard (try? probe.run()) != nil else { continue }
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return URL(fileURLWithPath: candidate) }
        }
        throw TestFailure("no python3 with Playwright among \(candidates) (run tools/setup)")
    }

    /// The take's account without the sine's file (the verifier knows the test signal only).
    func codeSignalAccount(_ entry: TakeLogEntry, folder: String, line: UInt = #line) throws -> TakeAccount {
        var entry = entry
        entry.files = entry.files.filter { !$0.tracks.contains("Tone") }
        entry.tracks = entry.tracks.filter { $0.name != "Tone" }
        return try XCTUnwrap(TakeAccount(entry, folder: folder), "\(entry)", line: line)
    }

    /// Two pages on a phone-sized screen: the meters read the sine's level and move 25 times a
    /// second; arming, record, stop (asked, confirmed on the other page), a mark and a note from
    /// the pages show on both; then the keys make a take on the terminal. Both takes have the
    /// same files and log, checked sample by sample, and the page shows the keys' take and mark;
    /// a third take, from the page again, paused and resumed, is stopped by holding Stop, then
    /// discarded from the page (asked: No keeps it, Yes removes it).
    func testThePageMakesTheTakeTheKeysMake() throws {
        let tone = try startTone()
        defer { tone.signal(SIGTERM); _ = try? tone.wait(timeout: 10) }
        let file = try writeSession("remote")
        let folder = path("remote")
        let terminal = try TerminalSession(try Executables.built("jcap"), ["session", file, "--remote", "127.0.0.1:0"],
                                           columns: 200, rows: 40, server: server.name, directory: directory)
        try terminal.waitFor("jcap: browser remote: http")
        let url = try XCTUnwrap(remoteURL(in: terminal.transcript), terminal.transcript)
        try terminal.waitForScreen("READY") { $0.contains { $0.contains("READY") } }

        let page = try browser(["page", url])
        XCTAssertEqual(page["session"] as? String, "remote")
        XCTAssertEqual(page["nextTake"] as? String, "1")
        for key in ["tonePeak", "tonePeakSecondPage"] {
            let peak = try XCTUnwrap(page[key] as? Double, "\(page)")
            XCTAssertEqual(peak, -20, accuracy: 0.5, "\(key): the -20 dBFS sine on the page")
        }
        XCTAssertGreaterThan(try XCTUnwrap(page["kickPeak"] as? Double), -30, "the test signal moves its meter")
        let rate = try XCTUnwrap(page["stateRate"] as? Double)
        print("note: \(name): the page's state arrived \(rate) times a second")
        XCTAssertGreaterThanOrEqual(rate, 20, "meters 20 times a second or more")
        XCTAssertLessThanOrEqual(rate, 40, "decimated on jcap's side")
        XCTAssertEqual(page["armed"] as? [String: Bool], ["Kick": true, "Snare": false, "Tone": true, "Talk": true])
        XCTAssertEqual(page["recordingTake"] as? String, "1")
        XCTAssertEqual(page["timerBackground"] as? String, "rgb(229, 72, 77)", "red while recording")
        XCTAssertEqual(page["refusal"] as? String, "a take is recording; stop it before arming or disarming a track")
        XCTAssertEqual(page["question"] as? String, "Stop take 1?")
        XCTAssertEqual(page["noteKeptFocus"] as? Bool, true, "the take list redrawn while a note is typed")
        XCTAssertEqual(page["files"] as? [String], ["take-001-Kick.wav", "take-001-Tone.wav", "take-001-Talk.wav"])
        XCTAssertEqual(page["nextTakeAfter"] as? String, "2")
        let kickBytes = try FileManager.default.attributesOfItem(atPath: folder + "/take-001-Kick.wav")[.size] as? Int
        XCTAssertEqual(page["downloadBytes"] as? Int, kickBytes, "the take file downloads whole")

        // The same take from the keys: r, s s, c; the arming the page left stays.
        try terminal.waitForScreen("READY after the page's take") { $0.contains { $0.contains("READY") } }
        terminal.type("r")
        try terminal.waitForScreen("take 2 recording") { $0.contains { $0.contains("REC") } }
        usleep(2_000_000)
        terminal.type("ss")
        try terminal.waitForScreen("READY again") { $0.contains { $0.contains("READY") } }
        terminal.type("c")
        try terminal.waitFor("take 2: marked circled")
        let screenshot = path("remote.png")
        let watched = try browser(["watch", url, "2", "circled", screenshot])
        try keepScreenshot(screenshot)
        XCTAssertTrue((watched["takeRow"] as? String)?.contains("take-002-Talk.wav") == true, "\(watched)")
        XCTAssertEqual(watched["heldTake"] as? String, "3")
        XCTAssertEqual(watched["recordingRow"] as? String, "recording", "the take recording is in the take list")
        XCTAssertEqual(watched["questionShown"] as? Bool, false, "held, Stop stops without asking")
        XCTAssertEqual(watched["pauseLabel"] as? String, "▶ Resume")
        try Self.waitFor("take 3 logged as finished") {
            (try? TakeLog(folder: folder).entries().last).map { $0.take == 3 && $0.status != .recording } ?? false
        }
        var entries = try TakeLog(folder: folder).entries()
        XCTAssertEqual(entries.map(\.take), [1, 2, 3], terminal.transcript)
        XCTAssertEqual(entries[2].pauses.count, 1, "paused and resumed from the page")
        let held = try codeSignalAccount(entries[2], folder: folder)
        XCTAssertEqual(entries[2].status, takeStatus(reporting: held))
        assertAccountedFor(held, "take 3, stopped by holding Stop")
        var accounts = [held]

        // Discarded from the page as d then y would: asked, kept on No, removed on Yes.
        let discarded = try browser(["discard", url, "3"])
        XCTAssertEqual(discarded["question"] as? String, "Discard take 3? Its files are deleted.")
        XCTAssertEqual(discarded["takes"] as? [String], ["2", "1"])
        terminal.type("q")
        let status = try terminal.wait()

        entries = try TakeLog(folder: folder).entries()
        XCTAssertEqual(entries.map(\.take), [1, 2, 3], terminal.transcript)
        XCTAssertEqual(entries[2].status, .discarded)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("take-003") }, [])
        entries.removeLast()
        let (fromPage, fromKeys) = (entries[0], entries[1])
        XCTAssertEqual(fromPage.mark, .circled)
        XCTAssertEqual(fromPage.note, "from the page")
        XCTAssertEqual(fromKeys.mark, .circled)
        for entry in entries {
            let number = String(format: "%03d", entry.take)
            XCTAssertEqual(entry.files.map(\.path), ["Kick", "Tone", "Talk"].map { "take-\(number)-\($0).wav" })
            XCTAssertEqual(entry.tracks.map(\.name), ["Kick", "Tone", "Talk"])
            XCTAssertEqual(entry.tracks.map(\.source), ["sig:out_1", "tone:out_1", "sig:out_3"])
            let account = try codeSignalAccount(entry, folder: folder)
            XCTAssertEqual(entry.status, takeStatus(reporting: account))
            XCTAssertEqual(account.files.map(\.signalChannels), [[0], [2]])
            assertAccountedFor(account, "take \(entry.take)")
            XCTAssertGreaterThan(entry.frames, Int64(server.sampleRate), "take \(entry.take) ran over a second")
            let tonePeak = try XCTUnwrap(entry.tracks.first { $0.name == "Tone" }?.highestPeakDBFS)
            XCTAssertEqual(tonePeak, -20, accuracy: 0.5, "the sine's take file")
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("take-\(number)") }.sorted()
            XCTAssertEqual(onDisk, entry.files.map(\.path).sorted(), "no file for the disarmed Snare")
        }
        accounts += try entries.map { try codeSignalAccount($0, folder: folder) }
        XCTAssertEqual(status, exitStatus(reportingAll: accounts), terminal.transcript)
    }

    /// The remote behind a token (given with --remote-token) while a take records: requests
    /// without it or with a wrong one, a WebSocket from another origin, paths that try to leave
    /// the take list, garbage, a flood and an oversized message on the WebSocket are all refused;
    /// a client that stops reading holds up nothing; the page goes on updating and the take goes
    /// on recording, its every sample in place.
    func testTheRemoteRefusesWhatItMustAndTheTakeGoesOn() throws {
        let file = try writeSession("guarded", tone: false)
        let folder = path("guarded")
        let token = "only-for-this-test-\(UInt32.random(in: 0 ... .max))"
        let keys = Pipe()
        let jcap = try Subprocess(try Executables.built("jcap"),
                                  ["session", file, "--remote", "127.0.0.1:0", "--remote-token", token, "--meter", "none"],
                                  server: server.name, directory: directory, standardInput: keys.fileHandleForReading)
        try Self.waitFor("the remote's URL") { remoteURL(in: jcap.errorOutput) != nil }
        let url = try XCTUnwrap(remoteURL(in: jcap.errorOutput))
        XCTAssertTrue(url.hasSuffix("?token=" + token), url)
        keys.fileHandleForWriting.write(Data("r".utf8))
        try Self.waitFor("take 1 recording") { jcap.errorOutput.contains("recording take 1") }

        let seen = try browser(["security", url])
        XCTAssertEqual(seen["noToken"] as? Int, 401)
        XCTAssertEqual(seen["wrongToken"] as? Int, 403)
        XCTAssertEqual(seen["wrongCookie"] as? Int, 403)
        XCTAssertEqual(seen["rightToken"] as? Int, 200)
        XCTAssertEqual(seen["post"] as? Int, 405)
        // A refused upgrade is answered 400 by Hummingbird (its answer is not ours to choose).
        XCTAssertEqual(seen["webSocketNoToken"] as? Int, 400)
        XCTAssertEqual(seen["webSocketWrongToken"] as? Int, 400)
        XCTAssertEqual(seen["webSocketWrongOrigin"] as? Int, 400)
        XCTAssertEqual(seen["webSocketNoOrigin"] as? Int, 400)
        XCTAssertEqual(seen["webSocketRight"] as? Int, 101, "the same request with the token and its origin is upgraded")
        let traversal = try XCTUnwrap(seen["traversal"] as? [String: [String: Any]])
        XCTAssertEqual(traversal.count, 13)
        for (path, answer) in traversal {
            XCTAssertTrue([400, 404, 414].contains(answer["status"] as? Int ?? 0), "\(path): \(answer)")
            XCTAssertEqual(answer["leaks"] as? Bool, false, path)
        }
        XCTAssertEqual(seen["stalledHandshake"] as? String, "HTTP/1.1 101", "a client that then never reads")
        XCTAssertEqual(seen["foreignWebSocket"] as? String, "refused", "a page of another site")
        let garbage = try XCTUnwrap(seen["garbage"] as? [String: Any], "\(seen)")
        let told = try XCTUnwrap(garbage["told"] as? [String])
        // Each page hears of a few of its refusals at a time, not of a flood.
        XCTAssertEqual(Array(told.prefix(4)), ["Refused: not a command object ({\"command\": ...})",
                                               "Refused: a binary message (commands are JSON text)",
                                               "Refused: unknown command 'explode'", "Refused: 'arm' needs a track name"])
        XCTAssertLessThan(told.count, 100, "\(told)")
        XCTAssertGreaterThanOrEqual(garbage["refused"] as? Int ?? 0, 508, "every garbage message counted: \(garbage)")
        XCTAssertEqual(garbage["open"] as? Bool, true, "garbage does not close the page's WebSocket")
        XCTAssertGreaterThanOrEqual(garbage["statesAfter"] as? Int ?? 0, 10, "the state kept coming through the flood")
        XCTAssertEqual((seen["oversized"] as? [String: Any])?["closed"] as? Bool, true, "a frame over 64 KiB closes its WebSocket")
        XCTAssertNotEqual(seen["timerBefore"] as? String, seen["timerAfter"] as? String, "the page's timer still runs")
        XCTAssertEqual(seen["mode"] as? String, "recording")
        XCTAssertEqual(seen["link"] as? String, "connected")

        keys.fileHandleForWriting.write(Data("s".utf8))
        try Self.waitFor("take 1 finished", timeout: 30) {
            (try? TakeLog(folder: folder).entries().first?.status).map { $0 != .recording } ?? false
        }
        keys.fileHandleForWriting.write(Data("q".utf8))
        let status = try jcap.wait(timeout: 30)
        let errors = jcap.errorOutput
        XCTAssertTrue(errors.contains("jcap: remote: refused a request for /: no token"), errors)
        XCTAssertTrue(errors.contains("jcap: remote: refused a WebSocket for /ws: from another origin"), errors)
        // At most 8 lines a second, the rest counted: every refusal is on the console, as a line
        // or in a count.
        let lines = errors.split(separator: "\n").filter { $0.hasPrefix("jcap: remote: ") }
        let counted = lines.compactMap { line -> Int? in
            guard line.hasSuffix(" more refused") else { return nil }
            return Int(line.dropFirst("jcap: remote: ".count).prefix { $0.isNumber })
        }
        XCTAssertFalse(counted.isEmpty, "a flood is counted, not printed line by line: \(errors)")
        XCTAssertGreaterThanOrEqual(lines.count - counted.count + counted.reduce(0, +), 508 + 13, errors)
        XCTAssertLessThan(lines.count, 40, "the console was not flooded: \(errors)")

        // The take recorded through all of it: one take, every sample where the log says.
        let entries = try TakeLog(folder: folder).entries()
        XCTAssertEqual(entries.map(\.take), [1], errors)
        let account = try XCTUnwrap(TakeAccount(entries[0], folder: folder), "\(entries[0])")
        XCTAssertEqual(entries[0].status, takeStatus(reporting: account))
        assertAccountedFor(account)
        XCTAssertEqual(entries[0].tracks.map(\.name), ["Kick", "Snare"])
        XCTAssertGreaterThan(entries[0].frames, Int64(server.sampleRate) * 2, "recording went on through the attack")
        XCTAssertEqual(status, exitStatus(reportingAll: [account]), errors)
    }

    /// A token that cannot be one, and an address that does not parse, are refused before the
    /// server is touched (status 64); a port another program holds is status 26.
    func testBadRemoteOptionsAndATakenPortAreRefused() throws {
        let file = try writeSession("options", tone: false)
        var run = try runJcap(["session", file, "--remote", "127.0.0.1:99999"])
        XCTAssertEqual(run.status, 64, run.errors)
        XCTAssertTrue(run.errors.contains("--remote"), run.errors)
        run = try runJcap(["session", file, "--remote", "8080", "--remote-token", "short"])
        XCTAssertEqual(run.status, 64, run.errors)
        XCTAssertTrue(run.errors.contains("--remote-token"), run.errors)

        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, length) == 0 && listen(holder, 1) == 0
                && getsockname(holder, $0, &length) == 0 }
        }
        XCTAssertTrue(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        run = try runJcap(["session", file, "--remote", "127.0.0.1:\(port)"], timeout: 30)
        XCTAssertEqual(run.status, 26, run.errors)
        XCTAssertTrue(run.errors.contains("jcap: error: the browser remote cannot listen on 127.0.0.1:\(port): address already in use"),
                      run.errors)
    }

    /// `[remote]` in the session file serves the remote as the options would, with the file's
    /// token; a token there that cannot be one is the session file's error (20), at its line.
    func testTheSessionFileAsksForTheRemote() throws {
        let file = try writeSession("fromfile", tone: false)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try (text + "\n[remote]\nport = 0\ntoken = \"from-the-file-2026\"\n").write(toFile: file, atomically: true, encoding: .utf8)
        let jcap = try launchJcap(["session", file, "--meter", "none"])
        try Self.waitFor("the remote's URL") { remoteURL(in: jcap.errorOutput) != nil }
        XCTAssertTrue(try XCTUnwrap(remoteURL(in: jcap.errorOutput)).hasSuffix("/?token=from-the-file-2026"), jcap.errorOutput)
        jcap.signal(SIGTERM)
        XCTAssertEqual(try jcap.wait(timeout: 30), 0, jcap.errorOutput)

        try (text + "\n[remote]\nport = 0\ntoken = \"a b\"\n").write(toFile: file, atomically: true, encoding: .utf8)
        let run = try runJcap(["session", file], timeout: 30)
        XCTAssertEqual(run.status, 20, run.errors)
        XCTAssertTrue(run.errors.contains("fromfile.toml:21: [remote]: token: 'a b' must be 8 to 256 characters long"), run.errors)
    }

    /// The screenshot, kept as a test artifact where the test's folder does not remove it.
    func keepScreenshot(_ screenshot: String) throws {
        let artifacts = Self.packageRoot.appendingPathComponent(".build/test-artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let kept = artifacts.appendingPathComponent("remote.png")
        try? FileManager.default.removeItem(at: kept)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: screenshot), to: kept)
    }
}
