import Foundation
import XCTest
@testable import JackCapture

/// Collects everything a recorder tells its delegate, for tests to wait on and inspect.
final class RecordingDelegate: RecorderDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [CaptureEvent] = []
    private var _began: [RecorderInterruption] = []
    private var _ended: [RecorderInterruption] = []
    private var _finished: [Bool] = []
    private var _errors: [CaptureError] = []

    var events: [CaptureEvent] { lock.withLock { _events } }
    var began: [RecorderInterruption] { lock.withLock { _began } }
    var ended: [RecorderInterruption] { lock.withLock { _ended } }
    var finished: [Bool] { lock.withLock { _finished } }
    var errors: [CaptureError] { lock.withLock { _errors } }

    func recorderDidFinishRecording(_ recorder: Recorder, successfully: Bool) { lock.withLock { _finished.append(successfully) } }
    func recorderEncodeErrorDidOccur(_ recorder: Recorder, error: CaptureError) { lock.withLock { _errors.append(error) } }
    func recorderBeginInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption) { lock.withLock { _began.append(interruption) } }
    func recorderEndInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption) { lock.withLock { _ended.append(interruption) } }
    func recorder(_ recorder: Recorder, didReceive event: CaptureEvent) { lock.withLock { _events.append(event) } }

    func waitForFinish(timeout: TimeInterval = 20) throws -> Bool {
        try JackTestCase.waitFor("the recorder to finish", timeout: timeout) { !finished.isEmpty }
        return finished[0]
    }

    /// Waits for `recorder`'s take to finish, and fails it unless it finished successfully or its
    /// report says where it did not: frames lost or placed uncertainly, as a loaded machine's
    /// xruns cause, at positions the report names. Any other outcome fails.
    func waitForFinish(of recorder: Recorder, file: StaticString = #filePath, line: UInt = #line) throws {
        if try waitForFinish() { return }
        let report = try XCTUnwrap(recorder.finalReport, "finished without a report", file: file, line: line)
        switch report.outcome {
        case .lostFrames:
            XCTAssertFalse(report.lostSpans.isEmpty, "frames lost, reported nowhere: \(report.events)", file: file, line: line)
        case .placementUncertain:
            XCTAssertFalse(report.uncertainSpans.isEmpty, "placement uncertain, reported nowhere: \(report.events)", file: file, line: line)
        default:
            XCTFail("the take ended \(report.outcome)", file: file, line: line)
        }
        print("note: the take ended \(report.outcome): lost \(report.lostSpans), uncertain \(report.uncertainSpans)")
    }

    func waitFor(_ what: String, timeout: TimeInterval = 10, _ match: @escaping (CaptureEvent) -> Bool) throws -> CaptureEvent {
        try JackTestCase.waitFor(what, timeout: timeout) { events.contains(where: match) }
        return events.first(where: match)!
    }
}

extension CaptureEvent {
    var isPaused: Bool { if case .paused = self { true } else { false } }
    var isResumed: Bool { if case .resumed = self { true } else { false } }
    var isStarted: Bool { if case .started = self { true } else { false } }
    var isStopped: Bool { if case .stopped = self { true } else { false } }
}

extension JackTestCase {
    /// A recorder on this class's server, client "rec", recording the given test-signal ports
    /// (default `sig:out_1`...), with a delegate that keeps everything it hears.
    func makeRecorder(_ name: String, channels: Int = 2, settings: RecordingSettings? = nil,
                      sources: [String]? = nil) throws -> (Recorder, RecordingDelegate) {
        var settings = settings ?? RecordingSettings()
        if settings.channelCount == nil { settings.channelCount = channels }
        let recorder = try Recorder(url: URL(fileURLWithPath: path(name)), settings: settings,
                                    connection: RecorderConnection(clientName: "rec", serverName: server.name))
        try recorder.setChannelAssignments(sources ?? (1...channels).map { "sig:out_\($0)" })
        let delegate = RecordingDelegate()
        recorder.delegate = delegate
        return (recorder, delegate)
    }
}
