import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// A callback on a NetJACK2 slave still busy past the middle of its period, with JACK's frame
/// time not yet moved on: the slave's driver may already be clearing the capture ports and
/// rendering the next period's packets into them (`NetSlaveCopyWindow`). jcap must report such a
/// copy as a late copy at its position, though the frame time it reads after the copy says
/// nothing happened. The engine's test hook spins the chosen callbacks after their copy, so their
/// samples are in fact in place: the test holds jcap to the report, and the file to the signal.
final class NetJackLateCopyTests: NetJackTestCase {
    func testACopyEndingPastTheMiddleOfThePeriodIsReportedLate() throws {
        try onNewLink(period: 1_024, channels: 8) {
            let mark = xrunMark()
            var configuration = CaptureConfiguration()
            configuration.serverName = link.slaves[0]
            configuration.clientName = "latecopy"
            configuration.sources = .ports((1...8).map { "system:capture_\($0)" })
            configuration.outputPath = path("late.wav")
            configuration.duration = .frames(3 * 48_000)
            configuration.settings.format = .float
            let take = try OneTake(configuration: configuration)
            // Only the slave has eight capture ports: this process's clients reach the slave.
            XCTAssertEqual(take.jack.physicalCapturePorts().count, 8, "\(take.jack.physicalCapturePorts())")
            try take.start()
            try JackTestCase.waitFor("recording") { take.status.position > 0 }
            // 0.7 of a period: past the middle, before the next cycle begins (its packets have
            // all arrived only a period after this one's).
            let stall = link.period * 1_000_000 * 7 / 10 / 48_000
            // Where the take stood just after each stalled callback (the status lags the
            // callback by a period or two, and the wait polls every 20 ms).
            var stalledNear: [Int64] = []
            for _ in 0..<4 {
                usleep(400_000)
                take.engine.stallNextCycle(microseconds: stall)
                try JackTestCase.waitFor("the stalled cycle") { take.engine.state.pointee.stallMicroseconds.load(ordering: .relaxed) == 0 }
                stalledNear.append(take.status.position)
            }
            try JackTestCase.waitFor("the take to end", timeout: 20) { take.isFinished }
            let report = take.finish()
            let xruns = xruns(since: mark)
            let startFrame = try XCTUnwrap(report.startFrame)

            // An xrun on the slave (a loaded machine) loses frames and runs cycles late of its
            // own, which jcap reports; without one, neither.
            // A link dropout jcap estimates from its callbacks' times (frames lost) is accepted only
            // with master xruns: a master that misses its deadlines stops the slave's callbacks as
            // a link down does (measured under tools/steal).
            if xruns.slave == 0 {
                XCTAssertEqual(report.outcome, report.linkDropouts.isEmpty ? .complete : .lostFrames, "\(report.events)")
                XCTAssertEqual(report.lostSpans, [])
                if report.linkDropouts.isEmpty {
                    XCTAssertEqual(take.engine.lateCycles, 0, "the stalls ended before the frame time moved on")
                } else {
                    XCTAssertGreaterThan(xruns.master, 0, "a link dropout with no master xrun: \(report.linkDropouts)")
                }
            }
            let late = report.lateCopySpans
            // Each stalled copy is reported, near where the take stood after it. Spans are whole
            // periods on the cycles (a loaded machine's own late copies join them into longer ones),
            // but for one that reaches the take's end, which ends with it (3 s is 140.625 periods;
            // seen beside tools/steal: 11,904 frames at 132,096).
            let period = Int64(link.period)
            let takeFrames = Int64(3 * 48_000)
            for position in stalledNear {
                XCTAssertTrue(late.contains { $0.position < position + 8 * period && $0.position + $0.frames > position - 4 * period },
                              "no late copy reported within 4 periods before or 8 after take position \(position): \(late)")
            }
            for span in late {
                XCTAssertTrue(span.frames % period == 0 || span.position + span.frames == takeFrames, "whole periods: \(late)")
                XCTAssertEqual((span.position - late[0].position) % period, 0, "on the cycles: \(late)")
            }
            let offset = signalDistance(from: Int(startFrame) % TestSignal.timeModulus, to: try firstFrameTime("late.wav"))
            let account = TakeAccount(startFrame: startFrame,
                                      files: [.init(path: path("late.wav"), signalChannels: Array(0..<8),
                                                    shifts: Array(repeating: offset, count: 8))],
                                      lostSpans: report.lostSpans, lateCopySpans: late, uncertainSpans: report.uncertainSpans)
            let (verification, steps) = verifySlaveTake(account, masterXruns: xruns.master)
            XCTAssertTrue(verification.isAccountedFor, "\(verification); xruns \(xruns), steps with the master's clock \(steps)")
            XCTAssertEqual(verification.checkedSamples, 3 * 48_000 * 8)
            // The stalls spun after their copies: those periods are in place. A late copy the
            // machine's load made may not be.
            if late.count == 4, late.allSatisfy({ $0.frames == period }) {
                XCTAssertEqual(verification.excusedMisplacedSamples, 0, "the stalls spun after the copies: \(verification)")
            }
        }
    }
}
