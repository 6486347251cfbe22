import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// A process callback that runs late reads the next cycle's frame time (JACK 2 reads its frame
/// counter when asked), and runs again at once for the next cycle, reading the same time again.
/// No frame was lost: the take must hold every frame at its true position, with no silence.
/// The engine's test hook makes chosen callbacks late: each spins a period and a half after
/// copying its cycle, then reads JACK's clock, and the server reports the client late (an xrun).
final class LateCallbackTests: JackTestCase {
    func testLateCallbacksLeaveEveryFrameAtItsTruePositionWithNoSilence() throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "late"
        configuration.sources = .ports((1...8).map { "sig:out_\($0)" })
        configuration.outputPath = path("late.wav")
        configuration.duration = .frames(3 * 48_000)
        let session = try OneTake(configuration: configuration)
        try session.start()
        try Self.waitFor("recording") { session.status.position > 0 }
        let stall = server.period * 1_000_000 * 3 / 2 / server.sampleRate
        for _ in 0..<5 {
            usleep(300_000)
            session.engine.stallNextCycle(microseconds: stall)
            try Self.waitFor("the late cycle") { session.engine.state.pointee.stallMicroseconds.load(ordering: .relaxed) == 0 }
        }
        try Self.waitFor("the take to end", timeout: 20) { session.isFinished }
        let lateCycles = session.engine.lateCycles
        let report = session.finish()

        XCTAssertGreaterThanOrEqual(lateCycles, 5, "the hook made callbacks read a later frame time than their cycle's")
        // Each late copy is reported (a loaded host can add its own), and none loses a frame:
        // silence only where JACK's clock itself skipped frames (a loaded host can make it).
        let lateCopies = report.events.filter { if case .lateCopy = $0 { true } else { false } }
        XCTAssertGreaterThanOrEqual(lateCopies.count, 5, "each late copy is reported: \(report.events)")
        let skipped = report.events.compactMap { event -> LostSpan? in
            if case .framesSkipped(let position, let frames) = event { LostSpan(position: position, frames: frames) } else { nil }
        }
        XCTAssertEqual(LostSpan.merged(report.lostSpans), LostSpan.merged(skipped), "lost only what JACK skipped: \(report.events)")
        XCTAssertEqual(report.lostSpans.reduce(0) { $0 + $1.frames }, report.skippedFrames)
        let account = try account(of: report)
        XCTAssertEqual(report.outcome, outcome(reporting: account), "lost \(report.lostSpans), skipped \(report.skippedFrames)")
        XCTAssertEqual(try SoundFile.open(readingFrom: path("late.wav")).frames, 3 * 48_000)
        assertAccountedFor(account, "every sample at its true position")
    }

    /// Callbacks late by up to twelve periods: the server skips the client for the cycles it
    /// spends spinning, so a gap follows each late callback, and a run of late readings longer
    /// than the timeline looks ahead. Every frame must be at its true position or inside what the
    /// take reports (lost, late copy, placement uncertain), and each stall must be reported.
    func testLongStallsAreReportedWhereverPlacementIsAGuess() throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "stalls"
        configuration.sources = .ports((1...8).map { "sig:out_\($0)" })
        configuration.outputPath = path("stalls.wav")
        configuration.duration = .frames(6 * 48_000)
        let session = try OneTake(configuration: configuration)
        try session.start()
        try Self.waitFor("recording") { session.status.position > 0 }
        let periods = [1.5, 2.5, 3.5, 4.5, 6.5, 8.5, 12.5]
        for length in periods {
            usleep(400_000)
            session.engine.stallNextCycle(microseconds: Int(length * Double(server.period) * 1_000_000 / Double(server.sampleRate)))
            try Self.waitFor("the late cycle") { session.engine.state.pointee.stallMicroseconds.load(ordering: .relaxed) == 0 }
        }
        try Self.waitFor("the take to end", timeout: 20) { session.isFinished }
        let report = session.finish()

        XCTAssertEqual(report.frames, 6 * 48_000)
        // A stall of a period and a half is caught up with no loss; the longer ones lose cycles,
        // and the late cycle before each gap cannot be told from one after it.
        XCTAssertGreaterThanOrEqual(report.uncertainSpans.count, 1, "the guesses are reported: \(report.events)")
        XCTAssertFalse(report.lostSpans.isEmpty, "the server skipped the stalled client: \(report.events)")
        XCTAssertEqual(report.outcome, .lostFrames)
        assertAccountedFor(try account(of: report), "events: \(report.events)")
    }
}
