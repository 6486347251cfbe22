import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// jcap stopped (SIGSTOP) for 3 s mid-take and continued: its JACK thread stops with it, so the
/// server skips it for those cycles. The frames it never received are silence exactly where jcap
/// reports them lost; everything around them is the signal at its true position, never shifted.
final class SuspendedJcapTests: JackTestCase {
    func testThreeSecondsStoppedAreReportedLostWhereTheSilenceIs() throws {
        let jcap = try launchJcap(signalPorts(2) + ["--for", "8s", "--meter", "json", "-o", "stopped.wav"])
        try Self.waitFor("recording") { jcap.errorOutput.contains("jcap: recording") }
        usleep(1_500_000)
        jcap.signal(SIGSTOP)
        usleep(3_000_000)
        jcap.signal(SIGCONT)
        let status = try jcap.wait(timeout: 30)
        let errors = jcap.errorOutput
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(status, ExitStatus.lostFrames.rawValue, errors)
        let lost = account.lostSpans.reduce(0) { $0 + $1.frames }
        // 3 s is 144,000 frames; whole periods around it may go too (a busy machine's xruns,
        // each reported), or the server may have resumed jcap a period early.
        XCTAssertGreaterThan(lost, 130_000, errors)
        XCTAssertLessThan(lost, 192_000, errors)
        XCTAssertEqual(try SoundFile.open(readingFrom: path("stopped.wav")).frames, 384_000,
                       "8 s exactly: the lost frames are in the file as silence")
        assertAccountedFor(account, "jcap said: \(errors)")
    }
}
