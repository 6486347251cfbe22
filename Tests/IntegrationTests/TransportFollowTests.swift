import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// `--transport`: a take per roll of the JACK transport, from the frame it starts rolling to the
/// frame it stops. A second test-signal client rolls and stops the transport on chosen frames and
/// prints the frame each roll and stop took effect on, which the takes must match exactly.
final class TransportFollowTests: JackTestCase {
    /// Launches a client that rolls and stops the transport at `pairs` (frames after now) and
    /// waits until it has seen them all; returns the (roll, stop) frames it saw.
    func driveTransport(_ pairs: [(roll: Int, stop: Int)], timebase: Bool = false) throws -> [(roll: UInt32, stop: UInt32)] {
        let now = observer.estimatedFrameTime
        let schedule = pairs.map { "\(FrameTime.advance(now, by: $0.roll)):\(FrameTime.advance(now, by: $0.stop))" }
        let driver = try Subprocess(try Executables.built("jcap-testsignal"),
                                    ["play", "--channels", "1", "--name", "tp", "--transport", schedule.joined(separator: ",")]
                                        + (timebase ? ["--timebase"] : []),
                                    server: server.name, directory: directory)
        defer {
            driver.signal(SIGTERM)
            _ = try? driver.wait(timeout: 10)
        }
        try Self.waitFor("the transport's rolls and stops", timeout: 30) {
            driver.output.components(separatedBy: "transport stopped at JACK frame ").count - 1 == pairs.count
        }
        let rolls = driver.output.components(separatedBy: "transport rolled at JACK frame ").dropFirst()
            .map { UInt32($0.prefix { $0.isNumber })! }
        let stops = driver.output.components(separatedBy: "transport stopped at JACK frame ").dropFirst()
            .map { UInt32($0.prefix { $0.isNumber })! }
        XCTAssertEqual(rolls.count, pairs.count, driver.output)
        return Array(zip(rolls, stops))
    }

    func testEachRollIsATakeFromTheFrameTheTransportRollsToTheFrameItStops() throws {
        var rolls: [(roll: UInt32, stop: UInt32)] = []
        let jcap = try { () -> Subprocess in
            let jcap = try launchJcap(signalPorts(2) + ["--transport", "--meter", "json", "-o", "roll.wav", "-v"])
            try Self.waitFor("jcap to wait for the transport") { jcap.errorOutput.contains("waiting for the JACK transport") }
            // Two rolls, the second 0.4 s after the first stops: jcap has armed the next take by then.
            rolls = try driveTransport([(48_000, 48_000 + 30_000), (48_000 + 30_000 + 19_200, 48_000 + 30_000 + 19_200 + 25_000)])
            try Self.waitFor("the second take to be written") {
                jcap.errorOutput.components(separatedBy: "jcap: wrote ").count - 1 == 2
            }
            jcap.signal(SIGINT)
            return jcap
        }()
        _ = try jcap.wait(timeout: 20)
        // Each take checked against its summary line (the cancelled wait at the end has one too).
        let accounts = try summaryAccounts(jcap.output).filter { !$0.files.isEmpty }
        XCTAssertEqual(try jcap.wait(timeout: 20), exitStatus(reportingAll: accounts), jcap.errorOutput)
        XCTAssertEqual(rolls.count, 2)
        XCTAssertEqual(accounts.count, 2)
        for (index, (roll, account)) in zip(rolls, accounts).enumerated() {
            let file = "roll-00\(index + 1).wav"
            let report = try check(file)
            XCTAssertEqual(account.files.map(\.path), [path(file)])
            assertAccountedFor(account, file)
            XCTAssertEqual(account.startFrame, roll.roll, "\(file) starts on the roll's frame")
            XCTAssertEqual(report.frames, Int64(FrameTime.distance(from: roll.roll, to: roll.stop)), "\(file) ends on the stop's frame")
            XCTAssertTrue(jcap.errorOutput.contains("the transport rolled at JACK frame \(roll.roll)"), jcap.errorOutput)
            XCTAssertTrue(jcap.errorOutput.contains("JACK frames \(roll.roll) to \(roll.stop)"), jcap.errorOutput)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("roll-003.wav")), "Ctrl-C while waiting records nothing")
    }

    func testASessionRecordsEachRollAsItsNextTakeAndLogsTheTransportFrame() throws {
        let session = path("rolls.toml")
        try "[session]\nname = \"rolls\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n[[track]]\nname = \"One\"\nsource = \"sig:out_1\"\n"
            .write(toFile: session, atomically: true, encoding: .utf8)
        var rolls: [(roll: UInt32, stop: UInt32)] = []
        let jcap = try { () -> Subprocess in
            let jcap = try launchJcap(["session", session, "--transport", "--meter", "none"])
            try Self.waitFor("the session to wait for the transport") { jcap.errorOutput.contains("waiting for the JACK transport") }
            rolls = try driveTransport([(38_400, 38_400 + 12_000), (38_400 + 12_000 + 24_000, 38_400 + 12_000 + 24_000 + 7_000)],
                                       timebase: true)
            try Self.waitFor("the second take to be logged") {
                ((try? TakeLog(folder: path("rolls")).entries()) ?? []).filter { $0.status != .recording }.count == 2
            }
            jcap.signal(SIGINT)
            return jcap
        }()
        let accounts = try takeLogAccounts(folder: path("rolls"))
        XCTAssertEqual(try jcap.wait(timeout: 20), exitStatus(reportingAll: accounts), jcap.errorOutput)
        let entries = try TakeLog(folder: path("rolls")).entries()
        XCTAssertEqual(entries.map(\.take), [1, 2])
        // The transport rolls on from where it stopped: its frame at the second roll is the
        // first's plus exactly the frames the first take holds.
        let first = try XCTUnwrap(entries.first?.transportFrame), second = try XCTUnwrap(entries.last?.transportFrame)
        XCTAssertEqual(Int64(second) - Int64(first), entries.first?.frames)
        for (entry, roll) in zip(entries, rolls) {
            XCTAssertEqual(entry.startFrame, roll.roll)
            XCTAssertEqual(entry.frames, Int64(FrameTime.distance(from: roll.roll, to: roll.stop)))
            // The timebase master counts 120 beats a minute in 4/4, 1920 ticks a beat, from frame 0.
            let frame = Int64(try XCTUnwrap(entry.transportFrame))
            let ticks = frame * 2 * 1_920 / Int64(server.sampleRate), beats = ticks / 1_920
            XCTAssertEqual(entry.bbt, TransportBBT(bar: Int(beats / 4 + 1), beat: Int(beats % 4 + 1), tick: Int(ticks % 1_920)).description)
            let account = try takeLogAccount(folder: path("rolls"), take: entry.take)
            XCTAssertEqual(account.files.map(\.signalChannels), [[0]])
            XCTAssertEqual(entry.status, takeStatus(reporting: account))
            assertAccountedFor(account)
        }
    }

    func testAPreRollKeepsTheFramesBeforeTheRoll() throws {
        var rolls: [(roll: UInt32, stop: UInt32)] = []
        let jcap = try { () -> Subprocess in
            let jcap = try launchJcap(signalPorts(2) + ["--transport", "--pre-roll", "4800f", "--meter", "json", "-o", "pre.wav"])
            try Self.waitFor("jcap to wait for the transport") { jcap.errorOutput.contains("waiting for the JACK transport") }
            rolls = try driveTransport([(48_000, 48_000 + 9_600)])
            try Self.waitFor("the take to be written") { jcap.errorOutput.contains("jcap: wrote ") }
            jcap.signal(SIGINT)
            return jcap
        }()
        _ = try jcap.wait(timeout: 20)
        let account = try XCTUnwrap(try summaryAccounts(jcap.output).first { !$0.files.isEmpty }, jcap.output)
        XCTAssertEqual(try jcap.wait(timeout: 20), exitStatus(reporting: account), jcap.errorOutput)
        let roll = try XCTUnwrap(rolls.first)
        let report = try check("pre-001.wav")
        assertAccountedFor(account)
        XCTAssertEqual(account.startFrame, FrameTime.advance(roll.roll, by: -4_800), "4800 frames before the roll")
        XCTAssertEqual(report.frames, Int64(FrameTime.distance(from: roll.roll, to: roll.stop)) + 4_800)
    }

    func testTransportWithAStartTimeIsRefused() throws {
        let run = try runJcap(signalPorts(1) + ["--transport", "--at", "+1s", "-o", "no.wav"])
        XCTAssertEqual(run.status, ExitStatus.usage.rawValue, run.errors)
        XCTAssertTrue(run.errors.contains("--transport"), run.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("no.wav")))
    }
}
