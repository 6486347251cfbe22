import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// When the disk falls behind, whole cycles are dropped, counted, and padded with silence at their
/// exact positions, so everything after them stays aligned; the take reports where.
final class OverrunTests: JackTestCase {
    func testSlowWriterOverrunIsCountedPaddedAndReported() throws {
        // An xrun adds loss of its own (skipped frames): counted with the overrun's, checked against
        // the report like any other take.
        let (report, status, signal) = try overrunTake()

        XCTAssertEqual(report.outcome, .lostFrames)
        XCTAssertEqual(ExitStatus(for: report.outcome), .lostFrames, "jcap exits non-zero")
        XCTAssertGreaterThan(status.overrunCycles, 0)
        XCTAssertEqual(report.lostFrames, status.overrunFrames + status.skippedFrames, "every lost frame is counted")
        // The ring holds at least four 8192-frame periods (0.68 s) of the 1 s stall; the rest is lost.
        XCTAssertGreaterThanOrEqual(report.lostFrames, Int64(0.2 * Double(server.sampleRate)))
        XCTAssertEqual(report.frames, 96_000, "the file keeps the take's length")

        XCTAssertEqual(signal.frames, 96_000)
        // No frame is shifted; silence exactly where the report says (and nowhere else).
        assertAccountedFor(try account(of: report))
        let overruns = report.events.compactMap { event -> Int64? in if case .overrun(let position, _) = event { position } else { nil } }
        XCTAssertFalse(overruns.isEmpty)
        XCTAssertTrue(overruns.allSatisfy { $0 >= 24_000 }, "the disk stalled from take frame 24,000: \(report.events)")
        // Before the stall only what JACK skipped (nothing on a quiet server) is lost.
        XCTAssertLessThanOrEqual(report.lostSpans.filter { $0.position < 24_000 }.reduce(0) { $0 + $1.frames }, report.skippedFrames,
                                 "\(report.lostSpans)")
    }

    /// 2 s of 4 channels through the smallest ring (0.1 s asked for; four 8192-frame periods given), the disk stalling for 1 s once, half a second in.
    private func overrunTake() throws -> (TakeReport, CaptureStatus, TestSignalReport) {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "overrun"
        configuration.sources = .ports((1...4).map { "sig:out_\($0)" })
        configuration.outputPath = path("overrun.wav")
        configuration.bufferSeconds = 0.1
        configuration.duration = .frames(96_000)
        let stalled = ManagedFlag()
        let session = try OneTake(configuration: configuration) { position in
            if position >= 24_000 && stalled.setOnce() { usleep(1_000_000) }
        }
        try session.start()
        try Self.waitFor("the take to end", timeout: 30) { session.isFinished }
        let status = session.status
        let report = session.finish()
        return (report, status, try check("overrun.wav"))
    }
}

/// A flag one thread sets once.
final class ManagedFlag: @unchecked Sendable {
    private var set = false
    private let lock = NSLock()
    /// True the first time only.
    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if set { return false }
        set = true
        return true
    }
}
