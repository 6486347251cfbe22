import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// `--master-clock` on one server (the NetJACK2 tests follow it over a link): the timecode `jcap
/// timecode` writes is read back, a start named on it lands on its frame, and a port without it
/// is refused before anything is recorded.
final class MasterClockTests: JackTestCase {
    /// `jcap timecode` on the same server, patched straight to jcap's timecode port: it runs first
    /// in the cycle, so the master's clock is the server's (offset 0), and `--at @F` starts on F
    /// with the master's frame F reported; every sample is the test signal's.
    func testAStartOnTheTimecodesFrameLandsOnIt() throws {
        let timecode = try Subprocess(try Executables.built("jcap"), ["timecode", "--name", "tc"], server: server.name, directory: directory)
        defer {
            timecode.signal(SIGTERM)
            _ = try? timecode.wait(timeout: 10)
        }
        try Self.waitFor("jcap timecode", saying: { timecode.errorOutput }) { timecode.errorOutput.contains("jcap timecode:") }
        let frame = frameAhead(3)
        let jcap = try launchJcap(signalPorts(2) + ["--master-clock", "tc:out", "--at", "@\(frame)", "--for", "24000f",
                                                    "-o", "take.wav", "--format", "float", "--meter", "json"])
        let status = try jcap.wait(timeout: 30)
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(status, exitStatus(reporting: account), jcap.errorOutput)
        XCTAssertEqual(account.startFrame, frame, jcap.errorOutput)
        XCTAssertEqual(number(after: "\"master_start_frame\":", in: jcap.output), Int64(frame), jcap.output)
        XCTAssertTrue(jcap.errorOutput.contains("following the master's clock: its timecode on tc:out"), jcap.errorOutput)
        XCTAssertEqual(try check("take.wav").frames, 24_000)
        assertAccountedFor(account, "take.wav")
    }

    /// A port that carries no timecode (a capture port of silence): one line naming it and what
    /// to do, exit status 30, and no file.
    func testAPortWithoutTimecodeIsRefused() throws {
        let (status, errors) = try runJcap(["--channels", "1", "--master-clock", "system:capture_2", "--for", "1s", "-o", "take.wav"])
        XCTAssertEqual(status, 30, errors)
        XCTAssertTrue(errors.contains("no master timecode on 'system:capture_2': run jcap timecode on the master"), errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("take.wav")))
    }

    /// A port the server does not have: refused as an unknown source (11) before anything is made.
    func testAnUnknownPortIsRefused() throws {
        let (status, errors) = try runJcap(["--channels", "1", "--master-clock", "nobody:out", "--for", "1s", "-o", "take.wav"])
        XCTAssertEqual(status, 11, errors)
        XCTAssertTrue(errors.contains("nobody:out"), errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("take.wav")))
    }
}
