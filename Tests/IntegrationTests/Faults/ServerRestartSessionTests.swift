import CJack
import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// The JACK server restarting in the middle of a session: jcap finishes the take the server cut
/// short (every file readable, its log line `server shutdown`), says so, waits for the server,
/// opens the session's ports on it again with their connections, and records the takes still to
/// come, numbered after the last. Its own class: it stops and restarts its server.
final class ServerRestartSessionTests: JackTestCase {
    func testASessionWaitsForTheServerAndRecordsTheNextTakesWhenItIsBack() throws {
        let jcap = try sessionCutInItsFirstTake("restart", after: 1_000_000)
        usleep(1_000_000)
        XCTAssertNil(jcap.process.isRunning ? nil : "exited", "jcap waits: \(jcap.errorOutput)")

        try restartServer()
        try Self.waitFor("the session's ports again") {
            observer.audioPorts(flags: JackPortIsInput).contains("restart:B")
        }
        let status = try jcap.wait(timeout: 40)
        let errors = jcap.errorOutput
        XCTAssertEqual(errors.components(separatedBy: "waiting for it to come back").count, 2, "said once: \(errors)")
        XCTAssertTrue(errors.contains("the JACK server is back: 2 ports open again and connected"), errors)
        XCTAssertTrue(errors.contains("recording takes 2 to 3"), "the cut take and the one never begun, numbered after it: \(errors)")

        let entries = try checkTakes("restart", errors)
        XCTAssertEqual(status, worstStatus(of: entries), "a take was cut short by the server: \(errors)")
        XCTAssertEqual(entries.map(\.take), [1, 2, 3], errors)
        XCTAssertGreaterThan(entries[0].frames, 24_000, "take 1 holds what came before the shutdown")
        XCTAssertEqual(entries.dropFirst().map(\.frames), [96_000, 96_000], "the takes after it are whole")
    }

    /// On a returned server where the tracks' sources are not there yet, the session's client
    /// stays open while it waits for them, and is the client that records once they come: never
    /// closed and opened again (jack2 1.9.21 can leave a client opened again under the closed
    /// one's number never woken, `StudioSession.clientOnReturnedServer`).
    func testTheClientThatWaitsForTheSourcesIsTheOneThatRecords() throws {
        let jcap = try sessionCutInItsFirstTake("kept", after: 500_000)
        try server.restart()
        Self.observer = try JackClient(name: "observer", server: server.name)
        try Self.observer.activate()
        try Self.waitFor("jcap to wait for the sources") { jcap.errorOutput.contains("waiting for the sources") }
        // Sampled over a second: one client, the same UUID throughout.
        var seen: Set<String> = []
        for _ in 0..<10 {
            seen.insert(observer.uuid(ofClientNamed: "kept") ?? "none")
            usleep(100_000)
        }
        XCTAssertEqual(seen.count, 1, "\(seen): \(jcap.errorOutput)")
        XCTAssertFalse(seen.contains("none"), "the session's client is on the server while it waits: \(jcap.errorOutput)")
        Self.signal = try Subprocess(try Executables.built("jcap-testsignal"),
                                     ["play", "--channels", "\(Self.signalChannels)", "--name", "sig"],
                                     server: server.name, directory: NSTemporaryDirectory())
        try Self.waitFor("the session's ports again") { observer.audioPorts(flags: JackPortIsInput).contains("kept:B") }
        XCTAssertEqual(observer.uuid(ofClientNamed: "kept"), seen.first, "the client that waited is the session's")
        let status = try jcap.wait(timeout: 40)
        let entries = try checkTakes("kept", jcap.errorOutput)
        XCTAssertEqual(status, worstStatus(of: entries), jcap.errorOutput)
        XCTAssertEqual(entries.map(\.take), [1, 2, 3], jcap.errorOutput)
        XCTAssertEqual(entries.dropFirst().map(\.frames), [96_000, 96_000], "the takes after it are whole")
    }

    /// A client of a server that shut down has let go (`hasLetGo`, which the session waits for
    /// before it opens its client on the returned server) only once libjack's close returned.
    func testAClientOfAServerThatShutDownLetsGoOnceItsCloseReturns() throws {
        let held = try JackClient(name: "held", server: server.name)
        XCTAssertFalse(held.hasLetGo)
        stopServer()
        defer { try? restartServer() }
        XCTAssertFalse(held.hasLetGo, "nothing closed it yet")
        XCTAssertTrue(held.closeAfterServerShutdown(timeout: .seconds(10)), "libjack's close did not return in 10 s")
        XCTAssertTrue(held.isClosed)
        XCTAssertTrue(held.hasLetGo)
    }

    func testInteractivelyTheNextTakeIsNumberedAfterTheOneTheServerCut() throws {
        let session = try writeSession("keys")
        let keys = Pipe()
        let jcap = try Subprocess(try Executables.built("jcap"), ["session", session, "--meter", "none"],
                                  server: server.name, directory: directory, standardInput: keys.fileHandleForReading)
        func press(_ text: String) { keys.fileHandleForWriting.write(Data(text.utf8)) }
        try Self.waitFor("the session") { jcap.errorOutput.contains("r records a take") }
        press("r")
        try Self.waitFor("take 1") { jcap.errorOutput.contains("recording take 1") }
        usleep(1_000_000)
        stopServer()
        try Self.waitFor("jcap to wait for the server") { jcap.errorOutput.contains("waiting for it to come back") }
        press("r")
        try Self.waitFor("the refusal") { jcap.errorOutput.contains("the JACK server is gone; takes record again when it is back") }
        try restartServer()
        try Self.waitFor("the session to be back") { jcap.errorOutput.contains("the JACK server is back: 2 ports") }
        press("r")
        try Self.waitFor("take 2") { jcap.errorOutput.contains("recording take 2") }
        usleep(1_000_000)
        press("s")
        try Self.waitFor("take 2 to end") { jcap.errorOutput.contains("take 2 complete") || jcap.errorOutput.contains("take 2 frames lost") }
        press("q")
        let status = try jcap.wait(timeout: 20)
        let errors = jcap.errorOutput
        let entries = try checkTakes("keys", errors)
        // The worst of the takes' statuses: the cut (5) outranks a loss (3), not an uncertain placement (9).
        XCTAssertEqual(status, worstStatus(of: entries), errors)
        XCTAssertEqual(entries.map(\.take), [1, 2], errors)
        XCTAssertGreaterThan(entries.last?.frames ?? 0, 24_000, errors)
    }

    func testTakesOnSoundGoOnWhenTheServerIsBack() throws {
        let session = try writeSession("sound")
        // The test signal is always above -40 dBFS: each take starts on its first cycle.
        let jcap = try launchJcap(["session", session, "--trigger", "-40", "--for", "1s", "--meter", "none"])
        try Self.waitFor("take 1") { jcap.errorOutput.contains("recording take 1") }
        usleep(300_000)
        stopServer()
        try Self.waitFor("jcap to wait for the server") { jcap.errorOutput.contains("waiting for it to come back") }
        try restartServer()
        try Self.waitFor("a take after the server came back") {
            jcap.errorOutput.contains("the JACK server is back") && jcap.errorOutput.contains("take 2 complete")
                || jcap.errorOutput.contains("take 2 frames lost")
        }
        jcap.signal(SIGINT)
        let status = try jcap.wait(timeout: 20)
        let errors = jcap.errorOutput
        let entries = try checkTakes("sound", errors)
        XCTAssertEqual(status, worstStatus(of: entries), errors)
        XCTAssertEqual(Array(entries.map(\.take).prefix(2)), [1, 2], errors)
        XCTAssertEqual(entries.dropFirst().first?.frames, 48_000, "a whole take after the server came back: \(errors)")
    }

    func testATakeWaitingForItsTimeOfDayStillStartsThenOnTheReturnedServer() throws {
        let session = try writeSession("scheduled")
        // Far enough ahead for the server to stop and come back first on a busy machine: 6 s was
        // not, with another test process beside this one (the start had passed when it returned).
        let target = (WallClockTime.nowMicrosecondsSinceEpoch() + 15_000_000) / 1_000 * 1_000
        var seconds = time_t(target / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let at = String(format: "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, Int(target % 1_000_000) / 1_000)
        let jcap = try launchJcap(["session", session, "--at", at, "--for", "1s", "--meter", "none"])
        try Self.waitFor("the session") { jcap.errorOutput.contains("take 1") }
        usleep(500_000)
        stopServer()
        try Self.waitFor("jcap to wait for the server") { jcap.errorOutput.contains("waiting for it to come back") }
        try restartServer()
        let status = try jcap.wait(timeout: 30)
        let errors = jcap.errorOutput
        let entries = try TakeLog(folder: path("scheduled")).entries()
        XCTAssertEqual(status, worstStatus(of: entries), errors)
        XCTAssertEqual(entries.map(\.take), [1], "nothing was recorded before the server went: \(errors)")
        let names = try FileManager.default.contentsOfDirectory(atPath: path("scheduled")).filter { $0.hasPrefix("take-") }.sorted()
        XCTAssertEqual(names, ["take-001-A.wav", "take-001-B.wav"], "no empty files left of the take that never began")
        let entry = try XCTUnwrap(entries.first)
        // An xrun on a busy machine loses frames or places a period by a guess: what the take
        // reports, and every sample checked against it.
        let account = try XCTUnwrap(TakeAccount(entry, folder: path("scheduled")), "\(entry)")
        XCTAssertEqual(entry.status, takeStatus(reporting: account), errors)
        assertAccountedFor(account)
        XCTAssertEqual(entry.frames, 48_000)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let started = try XCTUnwrap(formatter.date(from: try XCTUnwrap(entry.startTime)), entry.startTime ?? "")
        let late = started.timeIntervalSince1970 - Double(target) / 1_000_000
        XCTAssertLessThan(abs(late), 0.05, "started at \(at) on the server that came back: \(errors)")
    }

    func testCtrlCQuitsWhileWaitingForTheServer() throws {
        let session = try writeSession("gone")
        let jcap = try launchJcap(["session", session, "--for", "10s", "--meter", "none"])
        try Self.waitFor("take 1") { jcap.errorOutput.contains("recording take 1") }
        usleep(500_000)
        stopServer()
        defer { try? restartServer() }
        try Self.waitFor("jcap to wait for the server") { jcap.errorOutput.contains("waiting for it to come back") }
        usleep(500_000)
        jcap.signal(SIGINT)
        let status = try jcap.wait(timeout: 10)
        XCTAssertEqual(status, ExitStatus.serverShutDown.rawValue, jcap.errorOutput)
        let entries = try checkTakes("gone", jcap.errorOutput)
        XCTAssertEqual(entries.map(\.status), [.serverShutdown], jcap.errorOutput)
    }

    /// The status a run the server cut calls for: server shut down (5), unless a take's own
    /// outranks it (an xrun's uncertain placement, 9, does).
    private func worstStatus(of entries: [TakeLogEntry]) -> Int32 {
        ExitStatus.worst([.serverShutDown] + entries.map { ExitStatus(for: $0.status) }).rawValue
    }

    /// A session of two tracks, the test signal's channels 1 and 2; returns the session file.
    private func writeSession(_ name: String) throws -> String {
        let session = path(name + ".toml")
        try ("[session]\nname = \"\(name)\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n"
            + "[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n\n[[track]]\nname = \"B\"\nsource = \"sig:out_2\"\n")
            .write(toFile: session, atomically: true, encoding: .utf8)
        return session
    }

    /// The server goes, and with it the test signal and this test's own client.
    /// jcap recording session `name`, two 2 s takes, with the server stopped `microseconds` into
    /// the first and jcap waiting for it.
    private func sessionCutInItsFirstTake(_ name: String, after microseconds: useconds_t) throws -> Subprocess {
        let session = try writeSession(name)
        let jcap = try launchJcap(["session", session, "--takes", "2", "--for", "2s", "--meter", "none"])
        try Self.waitFor("take 1") { jcap.errorOutput.contains("recording takes 1 to 2") }
        usleep(microseconds)
        stopServer()
        try Self.waitFor("jcap to wait for the server") { jcap.errorOutput.contains("waiting for it to come back") }
        return jcap
    }

    private func stopServer() {
        server.stop()
        Self.signal.signal(SIGTERM)
        _ = try? Self.signal.wait(timeout: 10)
        Self.observer.close()
    }

    /// The server comes back under its name, then the test signal (a source's client starts after
    /// its server) and this test's client.
    private func restartServer() throws {
        try server.restart()
        Self.observer = try JackClient(name: "observer", server: server.name)
        try Self.observer.activate()
        Self.signal = try Subprocess(try Executables.built("jcap-testsignal"),
                                     ["play", "--channels", "\(Self.signalChannels)", "--name", "sig"],
                                     server: server.name, directory: NSTemporaryDirectory())
        try Self.waitFor("the test signal") { observer.audioOutputPorts().contains("sig:out_\(Self.signalChannels)") }
    }

    /// Checks every file of every take in session folder `name` against its log entry, sample by
    /// sample (`TakeVerification`): as long as the log says, the signal at the take's start frame,
    /// silence only in the spans the log reports lost, anything else only in a period it reports
    /// late or uncertain. The first take is the one the server cut short: its status says so
    /// whatever else it reports (lost frames included). Returns the log.
    private func checkTakes(_ name: String, _ errors: String) throws -> [TakeLogEntry] {
        let folder = path(name)
        let entries = try TakeLog(folder: folder).entries()
        XCTAssertEqual(entries.first?.status, .serverShutdown, errors)
        for entry in entries {
            let account = try XCTUnwrap(TakeAccount(entry, folder: folder), "take \(entry.take): \(entry)")
            if entry.take != entries.first?.take {
                // An xrun on this busy machine loses frames or places a period by a guess: reported, and checked below.
                XCTAssertEqual(entry.status, takeStatus(reporting: account), "take \(entry.take): \(errors)")
            }
            for file in entry.files { XCTAssertEqual(file.frames, entry.frames, "take \(entry.take) \(file.path)") }
            assertAccountedFor(account, "take \(entry.take):")
        }
        return entries
    }
}
