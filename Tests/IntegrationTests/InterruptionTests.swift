import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// What JACK does to a take from outside: the period changes, xruns, and (in its own class, since
/// it ends the server) the server shutting down.
final class InterruptionTests: JackTestCase {
    func testABufferSizeChangeMidTakeKeepsEveryDeliveredFrameInPlace() throws {
        defer { try? setPeriod(1_024) }
        let xrunsBefore = Self.serverXruns.load(ordering: .relaxed)
        let (recorder, delegate) = try makeRecorder("bufsize.wav", channels: 4)
        try recorder.record(forDuration: 3)
        try changePeriodTwice(delegate)
        _ = try delegate.waitForFinish()
        let report = try XCTUnwrap(recorder.finalReport)
        XCTAssertEqual(report.frames, 144_000, "3 s exactly, across two period changes")
        // Every sample is the signal where JACK's clock (its steps included) put it, or inside a
        // span jcap reported.
        assertAccountedFor(try account(of: report))
        XCTAssertFalse(delegate.events.contains { if case .overrun = $0 { true } else { false } }, "jcap dropped nothing")
        // JACK 2 numbers the first cycle after a change by the new period, though an old period
        // of time has passed (tools/period-change): its clock steps by new less old, with no
        // frame missing. jcap says where, and the take has no break. (A late callback at a change
        // can hide a step in the readings: then the take is as an xrun leaves it, reported.)
        if Self.serverXruns.load(ordering: .relaxed) == xrunsBefore {
            XCTAssertEqual(report.clockSteps.map(\.frames), [1_024, -1_536], "\(delegate.events)")
            XCTAssertEqual(report.outcome, .complete, "no xrun, nothing missing: \(delegate.events)")
        } else {
            XCTAssertTrue(Set(report.clockSteps.map(\.frames)).isSubset(of: [1_024, -1_536]), "\(delegate.events)")
        }
    }

    func testJcapSaysWhereThePeriodChangesSteppedJacksClock() throws {
        defer { try? setPeriod(1_024) }
        let xrunsBefore = Self.serverXruns.load(ordering: .relaxed)
        let jcap = try launchJcap(signalPorts(2) + ["--for", "3s", "--meter", "json", "-o", "steps.wav"])
        try Self.waitFor("recording") { jcap.errorOutput.contains("jcap: recording") }
        usleep(700_000)
        try setPeriod(2_048)
        usleep(700_000)
        try setPeriod(512)
        let status = try jcap.wait(timeout: 20)
        let account = try summaryAccount(jcap.output)
        // The summary's clock_steps move the signal on as pauses do: without them the check fails.
        assertAccountedFor(account)
        XCTAssertEqual(status, exitStatus(reporting: account), jcap.errorOutput)
        if Self.serverXruns.load(ordering: .relaxed) == xrunsBefore {
            XCTAssertEqual(account.pauses.map(\.skippedFrames), [1_024, -1_536], jcap.output)
            XCTAssertTrue(jcap.errorOutput.contains("jcap: JACK's clock stepped +1,024 frames at the period change"), jcap.errorOutput)
            XCTAssertTrue(jcap.errorOutput.contains("jcap: JACK's clock stepped -1,536 frames at the period change"), jcap.errorOutput)
        }
    }

    func testASessionTakeLogsWhereThePeriodChangesSteppedJacksClock() throws {
        defer { try? setPeriod(1_024) }
        let xrunsBefore = Self.serverXruns.load(ordering: .relaxed)
        let session = path("steps.toml")
        try """
            [session]
            name = "steps"
            format = "wav"
            bit_depth = "float"

            [[track]]
            name = "one"
            source = "sig:out_1"

            [[track]]
            name = "two"
            source = "sig:out_2"
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let jcap = try launchJcap(["session", session, "--for", "3s", "--meter", "none"])
        let log = path("steps/takes.jsonl")
        try Self.waitFor("the take's start in its log", saying: { jcap.errorOutput }) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("\"recording\"")
        }
        usleep(700_000)
        try setPeriod(2_048)
        usleep(700_000)
        try setPeriod(512)
        let status = try jcap.wait(timeout: 30)
        let account = try takeLogAccount(folder: path("steps"), take: 1)
        assertAccountedFor(account)
        XCTAssertEqual(status, exitStatus(reportingAll: [account]), jcap.errorOutput)
        if Self.serverXruns.load(ordering: .relaxed) == xrunsBefore {
            XCTAssertEqual(try TakeLog(folder: path("steps")).entries().first?.clockSteps.map(\.frames), [1_024, -1_536], jcap.errorOutput)
            XCTAssertEqual(account.pauses.map(\.skippedFrames), [1_024, -1_536])
            XCTAssertTrue(jcap.errorOutput.contains("JACK's clock stepped -1,536 frames at the period change"), jcap.errorOutput)
        }
    }

    /// 0.7 s into the take the period goes to 2048 frames, 0.7 s later to 512.
    private func changePeriodTwice(_ delegate: RecordingDelegate) throws {
        usleep(700_000)
        try setPeriod(2_048)
        _ = try delegate.waitFor("the period change") {
            if case .bufferSizeChanged(2_048, _, _) = $0 { true } else { false }
        }
        usleep(700_000)
        try setPeriod(512)
        _ = try delegate.waitFor("the second period change") {
            if case .bufferSizeChanged(512, _, _) = $0 { true } else { false }
        }
    }

    func testXrunsAreReportedWithTheirPositions() throws {
        let stalled = try Subprocess(try Executables.built("jcap-testsignal"), ["play", "--channels", "1", "--name", "stall"],
                                     server: server.name, directory: directory)
        try Self.waitFor("stall's port") { observer.audioOutputPorts().contains("stall:out_1") }
        let (recorder, delegate) = try makeRecorder("xrun.wav", channels: 1)
        try recorder.record()
        usleep(300_000)
        // A client that stops answering makes the server miss its deadline: an xrun.
        stalled.signal(SIGSTOP)
        usleep(150_000)
        stalled.signal(SIGCONT)
        let xrun = try delegate.waitFor("an xrun") { if case .xrun = $0 { true } else { false } }
        recorder.stop()
        _ = try delegate.waitForFinish()
        stalled.signal(SIGTERM)
        _ = try? stalled.wait(timeout: 10)
        guard case .xrun(_, let position) = xrun else { return XCTFail() }
        XCTAssertGreaterThan(position, 0, "the xrun is placed in the take")
        XCTAssertLessThanOrEqual(position, recorder.finalReport!.frames)
        XCTAssertGreaterThan(recorder.finalReport!.xruns, 0)
    }
}

/// The server shuts down mid-take: everything received is written, the file is valid, and the
/// recorder's delegate and jcap's exit status say so. Each test kills its class's server, so each
/// class has one.
final class ServerShutdownRecorderTests: JackTestCase {
    func testServerShutdownMidTakeKeepsEverythingReceived() throws {
        let (recorder, delegate) = try makeRecorder("shutdown.wav")
        try recorder.record()
        usleep(500_000)
        server.stop()
        XCTAssertFalse(try delegate.waitForFinish())
        XCTAssertEqual(recorder.finalReport?.outcome, .serverShutDown)
        XCTAssertEqual(delegate.began, [.serverShutDown])
        XCTAssertTrue(delegate.events.contains { if case .serverShutDown = $0 { true } else { false } })
        let report = try check("shutdown.wav")
        XCTAssertGreaterThan(report.frames, 12_000)
        XCTAssertEqual(report.frames, recorder.finalReport?.frames)
        // Everything received, in order, or inside a span the recorder reported (an xrun's).
        assertAccountedFor(try XCTUnwrap(recorder.finalReport.flatMap { TakeAccount($0) }), "everything received, in order")
    }
}

final class ServerShutdownJcapTests: JackTestCase {
    func testJcapExitsFiveWithAValidFile() throws {
        let jcap = try launchJcap(signalPorts(2) + ["-o", "gone.wav", "--meter", "json"])
        try Self.waitFor("recording") { jcap.errorOutput.contains("jcap: recording") }
        usleep(500_000)
        server.stop()
        let status = try jcap.wait(timeout: 20)
        XCTAssertEqual(status, ExitStatus.serverShutDown.rawValue, jcap.errorOutput)
        XCTAssertTrue(jcap.errorOutput.contains("shut down"), jcap.errorOutput)
        let report = try check("gone.wav")
        XCTAssertGreaterThan(report.frames, 12_000)
        // Every frame in place or inside a span jcap's summary names (an xrun's).
        assertAccountedFor(try summaryAccount(jcap.output))
    }
}

/// The server shutting down while a take waits for its start: nothing recorded, no file left.
final class ServerShutdownBeforeTheStartTests: JackTestCase {
    func testNoEmptyFileIsLeftAndJcapSaysSo() throws {
        let jcap = try launchJcap(signalPorts(1) + ["--at", "+10s", "--for", "1s", "--meter", "none", "-o", "early.wav"])
        try Self.waitFor("the wait for the start") { jcap.errorOutput.contains("jcap: recording") }
        usleep(300_000)
        server.stop()
        let status = try jcap.wait(timeout: 20)
        XCTAssertEqual(status, ExitStatus.serverShutDown.rawValue, jcap.errorOutput)
        XCTAssertTrue(jcap.errorOutput.contains("the JACK server shut down before the start; nothing recorded, no file written"),
                      jcap.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("early.wav")), "no empty file left behind")
    }
}

final class ServerShutdownPlayerTests: JackTestCase {
    func testThePlayerIsInterruptedAndFinishesUnsuccessfully() throws {
        let file = try writeFloatFile("loop.wav", channels: 1, frames: 48_000) { _, _ in 0.1 }
        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        let events = PlayerEvents()
        player.delegate = events
        player.numberOfLoops = -1
        try player.prepareToPlay(clientName: "gone", server: server.name, outputs: .none)
        defer { player.close() }
        try player.play()
        usleep(300_000)
        server.stop()
        try Self.waitFor("the player to finish") { !events.finished.isEmpty }
        XCTAssertEqual(events.interruptions, [.serverShutDown])
        XCTAssertEqual(events.finished, [false])
        XCTAssertFalse(player.isPlaying)
    }
}
