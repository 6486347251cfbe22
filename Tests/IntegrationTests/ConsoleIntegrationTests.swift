import Atomics
import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// What the jcap executable prints while and after it records.
final class ConsoleIntegrationTests: JackTestCase {
    func testJSONMeterLinesOnStandardOutput() throws {
        let jcap = try launchJcap(signalPorts(2) + ["--meter", "json", "--for", "1s", "-o", "json.wav"])
        let status = try jcap.wait()
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(status, exitStatus(reporting: account), jcap.errorOutput)
        let lostInAll = account.lostSpans.reduce(0) { $0 + Int($1.frames) }
        // The meter lines; the take's summary line comes last (testJSONSummaryAccountsForEveryFrame).
        let lines = jcap.output.split(separator: "\n").filter { !$0.hasPrefix("{\"summary\"") }
        XCTAssertGreaterThanOrEqual(lines.count, 5, "about 10 lines a second")
        var lastFrames = -1, lastXruns = 0, lastLost = 0
        for line in lines {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            let frames = try XCTUnwrap(object["elapsed_frames"] as? Int)
            XCTAssertGreaterThanOrEqual(frames, lastFrames, "elapsed frames never go back")
            lastFrames = frames
            XCTAssertNotNil(object["buffer_fill"] as? Double)
            // Counts so far: they never go back, and the frames lost never pass the summary's.
            let xruns = try XCTUnwrap(object["xruns"] as? Int), lost = try XCTUnwrap(object["lost_frames"] as? Int)
            XCTAssertGreaterThanOrEqual(xruns, lastXruns, String(line))
            XCTAssertGreaterThanOrEqual(lost, lastLost, String(line))
            XCTAssertLessThanOrEqual(lost, lostInAll, "\(line); \(account)")
            (lastXruns, lastLost) = (xruns, lost)
            let channels = try XCTUnwrap(object["channels"] as? [[String: Any]])
            XCTAssertEqual(channels.map { $0["name"] as? String }, ["out_1", "out_2"])
            for channel in channels {
                XCTAssertNotNil(channel["peak_db"] as? Double)
                XCTAssertNotNil(channel["average_db"] as? Double)
                XCTAssertNotNil(channel["clip"] as? Bool)
            }
        }
        XCTAssertLessThanOrEqual(lastFrames, 48_000)
        XCTAssertTrue(jcap.errorOutput.contains("jcap: wrote json.wav"), "the summary stays on standard error")
    }

    /// The summary line `--meter json` ends with says everything jcap reported of the take;
    /// checked against the file, every frame is in place or inside a span it names, whatever the
    /// server did meanwhile. Every meter line carries the session and take fields (null here).
    func testJSONSummaryAccountsForEveryFrame() throws {
        let jcap = try launchJcap(signalPorts(4) + ["--meter", "json", "--for", "3s", "-o", "summary.wav"])
        let status = try jcap.wait()
        let lines = jcap.output.split(separator: "\n")
        let last = try XCTUnwrap(lines.last)
        XCTAssertTrue(last.hasPrefix("{\"summary\":"), String(last))
        XCTAssertEqual(lines.filter { $0.hasPrefix("{\"summary\"") }.count, 1, "one summary for one take")
        for line in lines.dropLast() {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            XCTAssertTrue(object["session"] is NSNull && object["take"] is NSNull, String(line))
            XCTAssertTrue(object.keys.contains("disk_seconds_left"), String(line))
            XCTAssertNotNil(object["state"] as? String, String(line))
        }
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])["summary"] as? [String: Any]
        XCTAssertEqual(summary?["frames"] as? Int, 3 * server.sampleRate)
        XCTAssertEqual((summary?["files"] as? [[String: Any]])?.first?["path"] as? String, "summary.wav")
        XCTAssertEqual(summary?["outcome"] as? String, (summary?["lost"] as? [Any])?.isEmpty == true ? "complete" : "frames lost")
        var account = try XCTUnwrap(TakeAccount(meterSummaryLine: last), String(last))
        account.files = account.files.map { var file = $0; file.path = path(file.path); return file }
        XCTAssertEqual(account.files.first?.signalChannels, [0, 1, 2, 3])
        XCTAssertEqual(status, exitStatus(reporting: account), jcap.errorOutput)
        let verification = TakeVerification.verify(account)
        XCTAssertTrue(verification.isAccountedFor, "\(verification)")
        XCTAssertEqual(verification.checkedSamples, Int64(4 * 3 * server.sampleRate))
    }

    func testPlainStatusLinesWhenNotATerminal() throws {
        do {
            let jcap = try launchJcap(signalPorts(2) + ["--for", "2.5s", "-o", "plain.wav"])
            XCTAssertEqual(try jcap.wait(), exitStatus(reportedOnConsole: jcap.errorOutput), jcap.errorOutput)
            let lines = jcap.output.split(separator: "\n")
            XCTAssertGreaterThanOrEqual(lines.count, 2, "a line a second: \(jcap.output)")
            XCTAssertLessThanOrEqual(lines.count, 4)
            XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("rec ") && $0.contains("peak dBFS: out_1 ") }, jcap.output)
            XCTAssertFalse(jcap.output.contains("\u{1B}") || jcap.errorOutput.contains("\u{1B}"), "no escape codes")
        }
    }

    func testSummaryGivesEachChannelsPeakAndClips() throws {
        do {
            let xrunsBefore = Self.serverXruns.load(ordering: .relaxed)
            let run = try runJcap(signalPorts(3) + ["--for", "0.5s", "-o", "summary.wav"])
            let undisturbed = Self.serverXruns.load(ordering: .relaxed) == xrunsBefore
            XCTAssertEqual(run.status, exitStatus(reportedOnConsole: run.errors), run.errors)
            let table = try XCTUnwrap(run.errors.split(separator: "\n").last { $0.hasPrefix("  peak dBFS: ") }, run.errors)
            for channel in 1...3 {
                XCTAssertNotNil(table.range(of: "out_\(channel) -[0-9]+\\.[0-9]( |$)", options: .regularExpression), run.errors)
            }
            XCTAssertFalse(run.errors.contains("clipped sample"), "no clips: \(run.errors)")
            XCTAssertTrue(run.errors.hasSuffix(table + "\n"), "the peaks are the last lines: \(run.errors)")
            // The counts of a take the server did not disturb are 0; of one it did, what jcap saw.
            XCTAssertTrue(undisturbed ? run.errors.contains("jcap: no xruns, nothing lost")
                              : run.errors.range(of: "jcap: ([0-9,]+ xruns?, [0-9,]+ frames lost|no xruns, nothing lost)",
                                                 options: .regularExpression) != nil, run.errors)
        }
    }

    func testNoMeterPrintsNothingLiveAndNoPeaks() throws {
        do {
            let run = try launchJcap(signalPorts(1) + ["--meter", "none", "--for", "1.2s", "-o", "quiet.wav"])
            XCTAssertEqual(try run.wait(), exitStatus(reportedOnConsole: run.errorOutput), run.errorOutput)
            XCTAssertEqual(run.output, "")
            XCTAssertFalse(run.errorOutput.contains("dBFS"), "metering was off")
        }
    }
}
