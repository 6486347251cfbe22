import CJack
import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// The `Recorder` API against a private dummy jackd and the test-signal client: each call, its
/// misuse, pause and resume checked sample by sample, and the interruptions JACK can cause.
final class RecorderTests: JackTestCase {
    func testPrepareCreatesTheFileAndConnectsThePorts() throws {
        let (recorder, _) = try makeRecorder("prepared.wav")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("prepared.wav")), "init creates nothing")
        try recorder.prepareToRecord()
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("prepared.wav")))
        XCTAssertEqual(recorder.portNames.count, 2)
        XCTAssertEqual(recorder.channelAssignments, ["sig:out_1", "sig:out_2"])
        XCTAssertFalse(recorder.isRecording)
        XCTAssertEqual(recorder.currentTime, 0)
        recorder.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("prepared.wav")),
                       "a recorder stopped before recording leaves no empty file")
    }

    func testRecordForDurationEverySampleAndTheDelegateHearsIt() throws {
        let (recorder, delegate) = try makeRecorder("timed.wav")
        try recorder.prepareToRecord()
        try recorder.record(forDuration: 0.75)
        XCTAssertTrue(recorder.isRecording)
        let successful = try delegate.waitForFinish()
        let account = try account(of: recorder.finalReport)
        XCTAssertEqual(recorder.finalReport?.outcome, outcome(reporting: account))
        XCTAssertEqual(successful, recorder.finalReport?.outcome == .complete, "a complete take finishes successfully")
        let report = try check("timed.wav")
        XCTAssertEqual(report.frames, 36_000, "0.75 s at 48 kHz")
        assertAccountedFor(account)
        XCTAssertFalse(recorder.isRecording)
        XCTAssertEqual(recorder.currentTime, 0, "0 once stopped")
        guard case .started(let start)? = delegate.events.first(where: \.isStarted) else { return XCTFail("\(delegate.events)") }
        XCTAssertEqual(account.startFrame, start, "the started event names the first frame")
        XCTAssertTrue(delegate.events.contains(.stopped(frameTime: FrameTime.advance(start, by: 36_000), position: 36_000)),
                      "\(delegate.events)")
    }

    func testRecordAtTimeStartsOnTheFrameItNames() throws {
        let (recorder, delegate) = try makeRecorder("attime.wav")
        try recorder.prepareToRecord()
        let now = recorder.deviceCurrentTime
        XCTAssertGreaterThan(now, 0)
        let time = now + 0.5
        try recorder.record(atTime: time, forDuration: 0.25)
        let successful = try delegate.waitForFinish()
        let start = UInt32(truncatingIfNeeded: Int64((time * 48_000).rounded()))
        let account = try account(of: recorder.finalReport)
        XCTAssertEqual(successful, outcome(reporting: account) == .complete)
        XCTAssertEqual(try check("attime.wav").frames, 12_000)
        XCTAssertEqual(account.startFrame, start)
        assertAccountedFor(account)
    }

    func testDeviceCurrentTimeRunsOnJacksClockWhenStopped() throws {
        let (recorder, _) = try makeRecorder("clock.wav")
        let first = recorder.deviceCurrentTime
        usleep(200_000)
        let second = recorder.deviceCurrentTime
        XCTAssertGreaterThan(first, 0)
        XCTAssertEqual(second - first, 0.2, accuracy: 0.08, "seconds of JACK frame time")
        XCTAssertThrowsError(try recorder.record(atTime: first)) { error in
            guard case .capture(.startInPast)? = error as? RecorderError else { return XCTFail("\(error)") }
        }
    }

    /// The file is the signal minus exactly the paused span: frame-exact pause and resume.
    func testFrameExactPauseAndResumeLeaveOutExactlyThePausedSpan() throws {
        let (recorder, delegate) = try makeRecorder("paused.wav", channels: 4)
        try recorder.prepareToRecord()
        let start = FrameTime.advance(observer.estimatedFrameTime, by: 12_000)
        try recorder.record(atFrame: start, forFrames: 30_000)
        recorder.pause(atFrame: FrameTime.advance(start, by: 10_001))
        _ = try delegate.waitFor("the pause") { $0.isPaused }
        recorder.resume(atFrame: FrameTime.advance(start, by: 30_017))
        let successful = try delegate.waitForFinish()
        XCTAssertEqual(delegate.events.filter { $0.isPaused || $0.isResumed }, [
            .paused(frameTime: FrameTime.advance(start, by: 10_001), position: 10_001),
            .resumed(frameTime: FrameTime.advance(start, by: 30_017), position: 10_001),
        ])
        let account = try account(of: recorder.finalReport)
        XCTAssertEqual(successful, outcome(reporting: account) == .complete)
        XCTAssertEqual(try check("paused.wav").frames, 30_000, "the length counts recorded frames, not paused ones")
        // From `start`, 10,001 frames, then from start + 30,017 the rest: every sample checked.
        XCTAssertEqual(account.startFrame, start)
        XCTAssertEqual(account.pauses, [.init(position: 10_001, skippedFrames: 20_016)])
        assertAccountedFor(account)
    }

    /// pause() and record() at "now": each lands on the frame its event names, and the file holds
    /// exactly the frames before the pause and after the resume.
    func testPauseAndRecordAgainAtNow() throws {
        let (recorder, delegate) = try makeRecorder("now.flac")
        try recorder.record()
        usleep(300_000)
        recorder.pause()
        XCTAssertFalse(recorder.isRecording)
        guard case .paused(let pauseFrame, let pausePosition) = try delegate.waitFor("the pause", { $0.isPaused }) else { throw TestFailure("no pause") }
        usleep(200_000)
        XCTAssertEqual(recorder.currentTime, Double(pausePosition) / 48_000, accuracy: 1e-9, "paused time stands still")
        try recorder.record()
        guard case .resumed(let resumeFrame, let resumePosition) = try delegate.waitFor("the resume", { $0.isResumed }) else { throw TestFailure("no resume") }
        XCTAssertEqual(resumePosition, pausePosition)
        usleep(300_000)
        recorder.stop()
        let successful = try delegate.waitForFinish()
        guard case .stopped(_, let stop)? = delegate.events.first(where: \.isStopped) else { throw TestFailure("no stop") }
        let account = try account(of: recorder.finalReport)
        XCTAssertEqual(successful, outcome(reporting: account) == .complete)
        XCTAssertEqual(try check("now.flac").frames, stop)
        // Two runs: up to the pause, then from the resume frame on; every sample checked.
        XCTAssertEqual(account.pauses, [.init(position: pausePosition, skippedFrames: Int64(FrameTime.distance(from: pauseFrame, to: resumeFrame)))])
        XCTAssertEqual(FrameTime.advance(account.startFrame, by: Int(pausePosition)), pauseFrame,
                       "the pause frame follows the last frame recorded")
        assertAccountedFor(account)
    }

    func testMisuseIsRefusedWithTypedErrors() throws {
        XCTAssertThrowsError(try Recorder(url: URL(string: "http://example.com/take.wav")!)) {
            XCTAssertEqual($0 as? RecorderError, .notAFileURL("http://example.com/take.wav"))
        }
        XCTAssertThrowsError(try Recorder(url: URL(fileURLWithPath: path("x.flac")),
                                          settings: RecordingSettings(format: .alac))) {
            guard case .capture? = $0 as? RecorderError else { return XCTFail("\($0)") }
        }
        let (recorder, delegate) = try makeRecorder("misuse.wav")
        XCTAssertThrowsError(try recorder.setChannelAssignments(["sig:out_1"])) {
            XCTAssertEqual($0 as? RecorderError, .channelAssignmentCount(expected: 2, assigned: 1))
        }
        XCTAssertThrowsError(try recorder.deleteRecording()) {
            XCTAssertEqual($0 as? RecorderError, .nothingToDelete(path("misuse.wav")))
        }
        let (fresh, _) = try makeRecorder("fresh.wav")
        try fresh.record()
        XCTAssertThrowsError(try fresh.deleteRecording()) { XCTAssertEqual($0 as? RecorderError, .stillRecording) }
        fresh.stop()

        try recorder.record()
        usleep(200_000)
        XCTAssertThrowsError(try recorder.deleteRecording()) { XCTAssertEqual($0 as? RecorderError, .stillRecording) }
        XCTAssertThrowsError(try recorder.setChannelAssignments(["sig:out_3", "sig:out_4"])) {
            XCTAssertEqual($0 as? RecorderError, .channelAssignmentsWhileRecording)
        }
        XCTAssertThrowsError(try recorder.record(atFrame: nil, forFrames: 100)) {
            XCTAssertEqual($0 as? RecorderError, .alreadyRecording)
        }
        try recorder.record()  // recording already: nothing happens
        recorder.pause()
        XCTAssertThrowsError(try recorder.deleteRecording()) { XCTAssertEqual($0 as? RecorderError, .stillRecording) }
        recorder.stop()
        XCTAssertNotNil(try? delegate.waitForFinish())
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("misuse.wav")))
        try recorder.deleteRecording()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("misuse.wav")))
        XCTAssertThrowsError(try recorder.record()) { XCTAssertEqual($0 as? RecorderError, .deleted) }
        XCTAssertThrowsError(try recorder.prepareToRecord()) { XCTAssertEqual($0 as? RecorderError, .deleted) }
        XCTAssertThrowsError(try recorder.deleteRecording()) { XCTAssertEqual($0 as? RecorderError, .deleted) }
    }

    /// As AVAudioRecorder does: record() after stop() records again into the same file,
    /// replacing it, on the same JACK ports; the delegate hears each take finish.
    func testRecordAfterStopRecordsANewTakeIntoTheSameFile() throws {
        let (recorder, delegate) = try makeRecorder("again.wav")
        try recorder.record(forDuration: 0.5)
        _ = try delegate.waitForFinish()
        let first = try XCTUnwrap(recorder.finalReport)
        let ports = recorder.portNames
        try recorder.record(forDuration: 0.25)
        XCTAssertTrue(recorder.isRecording)
        try JackTestCase.waitFor("the second take") { delegate.finished.count == 2 }
        XCTAssertEqual(recorder.portNames, ports, "the same ports")
        let second = try XCTUnwrap(recorder.finalReport)
        let firstOutcome = outcome(reporting: try account(of: first)), secondAccount = try account(of: second)
        XCTAssertEqual(delegate.finished, [firstOutcome == .complete, outcome(reporting: secondAccount) == .complete])
        XCTAssertEqual(first.outcome, firstOutcome)
        XCTAssertEqual(first.frames, 24_000)
        XCTAssertEqual(second.frames, 12_000)
        XCTAssertEqual(try check("again.wav").frames, 12_000, "the file holds the second take")
        // Checked from the second take's start frame on.
        assertAccountedFor(secondAccount)
        XCTAssertNotEqual(first.startFrame, second.startFrame)
    }

    func testAnExistingFileIsNeverReplacedUnlessTheSettingsSaySo() throws {
        let original = Data("not audio, and precious".utf8)
        FileManager.default.createFile(atPath: path("exists.wav"), contents: original)
        let (recorder, _) = try makeRecorder("exists.wav")
        XCTAssertThrowsError(try recorder.prepareToRecord()) {
            XCTAssertEqual($0 as? RecorderError, .capture(.outputExists(path("exists.wav"))))
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path("exists.wav")), original)
        var settings = RecordingSettings()
        settings.overwritesExistingFile = true
        let (replacing, delegate) = try makeRecorder("exists.wav", settings: settings)
        try replacing.record(forDuration: 0.1)
        XCTAssertNotNil(try? delegate.waitForFinish())
        XCTAssertEqual(try SoundFile.open(readingFrom: path("exists.wav")).frames, 4_800)
    }

    func testChannelAssignmentsGlobsAndReassignmentAfterPreparing() throws {
        let (recorder, delegate) = try makeRecorder("assigned.wav", channels: 3, sources: ["sig:out_1[0-2]"])
        XCTAssertEqual(recorder.channelAssignments, ["sig:out_1[0-2]"])
        try recorder.prepareToRecord()
        XCTAssertEqual(recorder.channelAssignments, ["sig:out_10", "sig:out_11", "sig:out_12"])
        try recorder.setChannelAssignments(["sig:out_5", "sig:out_6", "sig:out_7"])
        XCTAssertEqual(recorder.channelAssignments, ["sig:out_5", "sig:out_6", "sig:out_7"])
        XCTAssertThrowsError(try recorder.setChannelAssignments(["sig:out_5", "sig:out_6"])) {
            XCTAssertEqual($0 as? RecorderError, .channelAssignmentCount(expected: 3, assigned: 2))
        }
        try recorder.record(forDuration: 0.1)
        XCTAssertNotNil(try? delegate.waitForFinish())
        // Channel 0 of the file is sig:out_5, whose signal carries channel offset 4.
        let file = try SoundFile.open(readingFrom: path("assigned.wav"))
        var frame = [Float](repeating: 0, count: 3)
        _ = frame.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: 1) }
        XCTAssertNotNil(TestSignal.frameTime(decoding: frame[0], channel: 4), "channel 1 records sig:out_5")
    }

    func testMeteringThroughTheRecorder() throws {
        let (recorder, _) = try makeRecorder("metered.wav")
        XCTAssertEqual(recorder.peakPower(forChannel: 0), -160)
        recorder.isMeteringEnabled = true
        try recorder.record()
        usleep(300_000)
        recorder.updateMeters()
        XCTAssertGreaterThan(recorder.peakPower(forChannel: 0), -160, "the code signal is not silence")
        XCTAssertLessThanOrEqual(recorder.averagePower(forChannel: 1), 0)
        recorder.stop()
    }

    /// stop() called from inside a delegate callback runs on the recorder's event thread: it must
    /// return (not wait for the thread it is on), and the delegate still hears the finish once.
    func testStopFromTheDelegateReturnsAndTheTakeFinishesOnce() throws {
        let (recorder, recording) = try makeRecorder("stopped-by-delegate.wav")
        let stopReturned = DispatchSemaphore(value: 0)
        let hook = OnStartDelegate(forwardingTo: recording) { recorder in
            recorder.stop()
            stopReturned.signal()
        }
        recorder.delegate = hook  // held weakly: kept alive to the end of the test
        defer { withExtendedLifetime(hook) {} }
        try recorder.record()
        XCTAssertEqual(stopReturned.wait(timeout: .now() + 10), .success,
                       "stop() called on the event thread never returned")
        XCTAssertTrue(try recording.waitForFinish(), "the take stopped by the delegate is complete")
        usleep(300_000)
        XCTAssertEqual(recording.finished.count, 1, "recorderDidFinishRecording exactly once")
        XCTAssertFalse(recorder.isRecording)
        XCTAssertNotNil(recorder.finalReport)
        XCTAssertTrue(recording.events.contains(where: \.isStopped), "\(recording.events)")
        let start = Date()
        recorder.stop()  // already stopped: returns without waiting for a finish, no second finish
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "stop() waited for a finish that will not come")
        usleep(100_000)
        XCTAssertEqual(recording.finished.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("stopped-by-delegate.wav")))
    }

    /// stop() from another thread returns once the finish is delivered (it waits on a condition,
    /// not a polling loop), and the finish is delivered once.
    func testStopFromAnotherThreadReturnsAfterTheFinishIsDelivered() throws {
        let (recorder, delegate) = try makeRecorder("stopped.wav")
        try recorder.record()
        _ = try delegate.waitFor("the start") { $0.isStarted }
        recorder.stop()
        XCTAssertEqual(delegate.finished.count, 1, "delivered before stop() returned")
        usleep(100_000)
        XCTAssertEqual(delegate.finished.count, 1)
    }

    func testDeleteRightAfterPrepareDeletesThePreparedFile() throws {
        let (recorder, delegate) = try makeRecorder("prepared-then-deleted.wav")
        try recorder.prepareToRecord()
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("prepared-then-deleted.wav")))
        XCTAssertNoThrow(try recorder.deleteRecording())
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("prepared-then-deleted.wav")))
        XCTAssertThrowsError(try recorder.deleteRecording()) { XCTAssertEqual($0 as? RecorderError, .deleted) }
        XCTAssertThrowsError(try recorder.record()) { XCTAssertEqual($0 as? RecorderError, .deleted) }
        XCTAssertThrowsError(try recorder.prepareToRecord()) { XCTAssertEqual($0 as? RecorderError, .deleted) }
        XCTAssertTrue(delegate.finished.isEmpty, "nothing was recorded")
    }

    /// A ring this machine cannot hold is refused with a typed error naming the longest that fits,
    /// before any port is registered or the file created (it used to abort the process).
    func testABufferTooLongForThisMachineIsATypedErrorAndCreatesNothing() throws {
        let recorder = try Recorder(url: URL(fileURLWithPath: path("huge.wav")), settings: RecordingSettings(channelCount: 2),
                                    connection: RecorderConnection(clientName: "hugebuffer", serverName: server.name,
                                                                   bufferSeconds: 1e9))
        try recorder.setChannelAssignments(["sig:out_1", "sig:out_2"])
        XCTAssertThrowsError(try recorder.prepareToRecord()) { error in
            guard case .capture(.bufferTooLarge(let requested, let maximum, let channels, let rate))? = error as? RecorderError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(requested, 1e9)
            XCTAssertEqual(channels, 2)
            XCTAssertEqual(rate, 48_000)
            XCTAssertGreaterThan(maximum, 4, "this machine holds the default buffer")
            XCTAssertLessThan(maximum, 1e9)
            XCTAssertTrue("\(error)".hasPrefix("the buffer cannot hold 1000000000s: this machine can hold at most "), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("huge.wav")))
        XCTAssertEqual(recorder.portNames, [])
        XCTAssertFalse(observer.audioPorts(flags: JackPortIsInput).contains { $0.hasPrefix("hugebuffer") },
                       "no port registered")
        XCTAssertThrowsError(try recorder.record(forDuration: 1)) {
            guard case .capture(.bufferTooLarge)? = $0 as? RecorderError else { return XCTFail("\($0)") }
        }
    }

    func testTimesTooFarAheadAndChannelsOutOfRangeAreTypedErrorsNotTraps() throws {
        let (recorder, delegate) = try makeRecorder("far.wav")
        for time in [1e30, recorder.deviceCurrentTime + 44_740] {
            XCTAssertThrowsError(try recorder.record(atTime: time)) { error in
                guard case .capture(.badTime(_, let reason))? = error as? RecorderError else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("at most 12:25:39 ahead at 48000 Hz"), reason)
            }
        }
        XCTAssertThrowsError(try recorder.record(atTime: recorder.deviceCurrentTime + 1, forDuration: 1e30)) { error in
            guard case .capture(.badDuration(_, let reason))? = error as? RecorderError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("too long"), reason)
        }
        XCTAssertThrowsError(try recorder.record(forDuration: 1e-9)) {
            guard case .capture(.badDuration)? = $0 as? RecorderError else { return XCTFail("\($0)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("far.wav")), "nothing prepared by a refused start")
        recorder.isMeteringEnabled = true
        try recorder.record()
        usleep(300_000)
        recorder.updateMeters()
        XCTAssertGreaterThan(recorder.peakPower(forChannel: 1), -160, "in range: the signal")
        for channel in [-1, 2, 1_000, Int.min, Int.max] {
            XCTAssertEqual(recorder.averagePower(forChannel: channel), -160, "channel \(channel)")
            XCTAssertEqual(recorder.peakPower(forChannel: channel), -160, "channel \(channel)")
        }
        recorder.stop()
        try delegate.waitForFinish(of: recorder)
    }

    // MARK: Interruptions

    func testDisconnectingASourceRecordsSilenceAndReconnectingResumesIt() throws {
        let (recorder, delegate) = try makeRecorder("disconnect.wav")
        try recorder.record()
        usleep(300_000)
        let port = recorder.portNames[0]
        try observer.disconnect("sig:out_1", from: port)
        let disconnected = try delegate.waitFor("the disconnection") {
            if case .portDisconnected(0, "sig:out_1", _, _, _) = $0 { true } else { false }
        }
        usleep(300_000)
        try observer.connect("sig:out_1", to: port)
        let connected = try delegate.waitFor("the reconnection") {
            if case .portConnected(0, "sig:out_1", _, _, _) = $0 { true } else { false }
        }
        usleep(300_000)
        recorder.stop()
        // A disconnected source does not fail the take; frames an xrun cost are reported.
        try delegate.waitForFinish(of: recorder)
        let report = try XCTUnwrap(recorder.finalReport)
        XCTAssertEqual(delegate.began, [.sourceDisconnected(channel: 0, source: "sig:out_1")])
        XCTAssertEqual(delegate.ended, [.sourceDisconnected(channel: 0, source: "sig:out_1")])
        guard case .portDisconnected(_, _, _, let silenceFrom, let disconnection) = disconnected,
              case .portConnected(_, _, _, let signalFrom, let connection) = connected else { return XCTFail() }
        // A client's output is written in the cycle it is read: nothing uncertain about it.
        XCTAssertEqual(disconnection, .exact(uncertainFrames: 0), "\(disconnected)")
        XCTAssertEqual(connection, .exact(uncertainFrames: 0), "\(connected)")

        // Channel 1 is silent for one run, exactly from the reported frame to the reported one;
        // channel 2 never is. Frames in a span the take reported lost, late or uncertain (an
        // xrun's, on a loaded host) are left out of both.
        let file = try SoundFile.open(readingFrom: path("disconnect.wav"))
        var samples = [Float](repeating: 0, count: Int(file.frames) * 2)
        _ = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Int(file.frames)) }
        let reported = (report.lostSpans + report.lateCopySpans + report.uncertainSpans).map { Int($0.position)..<Int($0.position + $0.frames) }
        let checked = (0..<Int(file.frames)).filter { frame in !reported.contains { $0.contains(frame) } }
        let silentFrames = checked.filter { samples[$0 * 2] == 0 }
        let silentRun = (Int(silenceFrom)..<Int(signalFrom)).filter { frame in !reported.contains { $0.contains(frame) } }
        XCTAssertGreaterThan(signalFrom - silenceFrom, 9_600, "about 300 ms of silence")
        XCTAssertTrue(silentFrames == silentRun, "silent exactly from the frame the disconnection says to the frame the connection says: "
                      + "silent \(silentFrames.count) frames, \(silentFrames.first ?? -1) to \(silentFrames.last ?? -1); the events say "
                      + "\(silenceFrom)..<\(signalFrom); reported: \(reported)")
        XCTAssertLessThan(signalFrom, file.frames - 9_600, "the signal comes back")
        XCTAssertFalse(checked.contains { samples[$0 * 2 + 1] == 0 }, "the other channel is untouched; reported: \(reported)")
    }

    /// Two or more sources on one port: JACK mixes them into the port's own buffer, whose address
    /// stays when a third is added or one of three taken away. Their count changes in the cycle
    /// the server applies it: each change is said at its frame, and the file holds the mix of
    /// exactly the sources the report says, sample for sample (the signal's samples are whole
    /// multiples of 2^-23, so their sums are exact in any order).
    func testASourceAddedToOrTakenFromAMixIsPlacedOnItsFrame() throws {
        let (recorder, delegate) = try makeRecorder("mix.wav")
        try recorder.record()
        usleep(200_000)
        let port = recorder.portNames[0]
        func connect(_ source: String) throws -> CaptureEvent {
            try observer.connect(source, to: port)
            return try delegate.waitFor("\(source) connected") {
                if case .portConnected(0, source, _, _, _) = $0 { true } else { false }
            }
        }
        let third = try connect("sig:out_3")    // 1 source to 2: the port's own buffer
        usleep(200_000)
        let fourth = try connect("sig:out_4")   // 2 to 3: the same buffer
        usleep(200_000)
        try observer.disconnect("sig:out_3", from: port)  // 3 to 2
        let gone = try delegate.waitFor("sig:out_3 disconnected") {
            if case .portDisconnected(0, "sig:out_3", _, _, _) = $0 { true } else { false }
        }
        usleep(200_000)
        recorder.stop()
        try delegate.waitForFinish(of: recorder)
        guard case .portConnected(_, _, _, let thirdFrom, let thirdTiming) = third,
              case .portConnected(_, _, _, let fourthFrom, let fourthTiming) = fourth,
              case .portDisconnected(_, _, _, let thirdUntil, let goneTiming) = gone,
              let report = recorder.finalReport else { return XCTFail("\(delegate.events)") }
        XCTAssertEqual(thirdTiming, .exact(uncertainFrames: 0), "\(third)")
        XCTAssertEqual(fourthTiming, .exact(uncertainFrames: 0), "\(fourth)")
        XCTAssertEqual(goneTiming, .exact(uncertainFrames: 0), "\(gone)")
        XCTAssertLessThan(thirdFrom, fourthFrom)
        XCTAssertLessThan(fourthFrom, thirdUntil)

        // Channel 2 (sig:out_2 alone) tells each frame's time; channel 1 is the mix. Frames the
        // report says were lost, copied late or placed uncertainly are left out.
        let file = try SoundFile.open(readingFrom: path("mix.wav"))
        let frames = Int(file.frames)
        var samples = [Float](repeating: 0, count: frames * 2)
        _ = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: frames) }
        let reported = report.lostSpans + report.lateCopySpans + report.uncertainSpans
        var wrong: [Int] = []
        for position in 0..<frames where !reported.contains(where: { $0.position <= position && position < $0.position + $0.frames }) {
            guard let time = TestSignal.frameTime(decoding: samples[position * 2 + 1], channel: 1) else {
                wrong.append(position)
                continue
            }
            var sources = [0]
            if Int64(position) >= thirdFrom && Int64(position) < thirdUntil { sources.append(2) }
            if Int64(position) >= fourthFrom { sources.append(3) }
            let mix = sources.reduce(Float(0)) { $0 + TestSignal.sample(frameTime: UInt32(time), channel: $1) }
            if samples[position * 2] != mix { wrong.append(position) }
        }
        XCTAssertEqual(wrong.count, 0, "frames not the mix the report says, first \(wrong.prefix(3)); sig:out_3 from \(thirdFrom) "
                       + "to \(thirdUntil), sig:out_4 from \(fourthFrom)")
    }

    /// Announcements past the notification ring's room are lost; the take's report counts them,
    /// so a report that may leave out a connection says so. Every one of a flood of real
    /// connections, made and broken on the server and announced by JACK's own notification
    /// thread, is either in the report or counted lost. The event thread is held in the
    /// delegate's `.started` callback while the flood is made, so nothing drains the ring (64 KiB,
    /// 1,598 announcements of `sig:out_3`) and it overflows for certain.
    func testEventsLostToAFullRingAreCountedInTheReport() throws {
        let (recorder, delegate) = try makeRecorder("flood.wav")
        let held = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        let hook = OnStartDelegate(forwardingTo: delegate) { _ in
            held.signal()
            released.wait()
        }
        recorder.delegate = hook  // held weakly: kept alive to the end of the test
        defer { withExtendedLifetime(hook) {} }
        try recorder.record()
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success, "the take did not start")
        let pairs = 2_000
        for _ in 0..<pairs {
            try observer.connect("sig:out_3", to: "rec:in_1")
            try observer.disconnect("sig:out_3", from: "rec:in_1")
        }
        // JACK's notifications of the last ones may still be on their way.
        usleep(500_000)
        released.signal()
        func isFlood(_ event: CaptureEvent) -> Bool {
            switch event {
            case .portConnected(0, "sig:out_3", _, _, _), .portDisconnected(0, "sig:out_3", _, _, _): true
            default: false
            }
        }
        usleep(300_000)
        recorder.stop()
        try delegate.waitForFinish(of: recorder)
        let report = try XCTUnwrap(recorder.finalReport)
        let told = report.events.filter(isFlood).count
        // An xrun's announcement meets the ring as full as the flood left it: lost and counted too.
        let xrunsTold = report.events.filter { if case .xrun = $0 { true } else { false } }.count
        let xrunsUntold = max(0, Int(report.xruns) - xrunsTold)
        XCTAssertGreaterThan(report.lostEvents, 0, "the flood did not fill the ring (\(told) told)")
        XCTAssertEqual(told + report.lostEvents, 2 * pairs + xrunsUntold,
                       "each one told or counted lost (\(told) told, \(report.lostEvents) lost, \(xrunsUntold) xruns untold)")
        print("note: \(2 * pairs) connections made and broken: \(told) told, \(report.lostEvents) counted lost, "
            + "\(report.xruns) xruns (\(xrunsTold) told)")
    }

    func testASourceClientQuittingIsReportedAndRecordingGoesOn() throws {
        let solo = try Subprocess(try Executables.built("jcap-testsignal"), ["play", "--channels", "1", "--name", "solo"],
                                  server: server.name, directory: directory)
        try Self.waitFor("solo's port") { observer.audioOutputPorts().contains("solo:out_1") }
        let (recorder, delegate) = try makeRecorder("quit.wav", sources: ["solo:out_1", "sig:out_2"])
        try recorder.record()
        usleep(300_000)
        solo.signal(SIGTERM)
        _ = try solo.wait(timeout: 10)
        _ = try delegate.waitFor("the source's departure") {
            if case .portDisconnected(0, "solo:out_1", _, _, _) = $0 { true } else { false }
        }
        usleep(200_000)
        XCTAssertTrue(recorder.isRecording)
        recorder.stop()
        try delegate.waitForFinish(of: recorder)
        XCTAssertEqual(delegate.began, [.sourceDisconnected(channel: 0, source: "solo:out_1")])
    }

    func testASampleRateChangeStopsTheTakeCleanlyWithAnError() throws {
        let (recorder, delegate) = try makeRecorder("rate.wav")
        try recorder.record()
        usleep(300_000)
        recorder.simulateSampleRateChange(to: 44_100)
        XCTAssertFalse(try delegate.waitForFinish(), "the take did not finish as asked")
        XCTAssertEqual(recorder.finalReport?.outcome, .sampleRateChanged(from: 48_000, to: 44_100))
        XCTAssertEqual(delegate.began, [.sampleRateChanged(from: 48_000, to: 44_100)])
        XCTAssertEqual(ExitStatus(for: recorder.finalReport!.outcome), .sampleRateChanged)
        let report = try check("rate.wav")
        XCTAssertGreaterThan(report.frames, 9_600)
        XCTAssertTrue(report.isIntact, "valid up to the change: \(report)")
        guard case .started(let start)? = delegate.events.first(where: \.isStarted),
              case .stopped(let end, let length)? = delegate.events.first(where: \.isStopped) else {
            return XCTFail("\(delegate.events)")
        }
        XCTAssertEqual(Int64(FrameTime.distance(from: start, to: end)), length, "no frame after the end, none lost before it")
        XCTAssertEqual(length, report.frames)
        XCTAssertEqual(length % Int64(server.period), 0, "the take ends where a cycle begins: the first cycle at the new rate is not in it")
    }

    func testJcapPausesOnSIGUSR1AndLeavesThePauseOut() throws {
        let jcap = try launchJcap(signalPorts(2) + ["-o", "usr1.wav", "--meter", "json", "-v"])
        try Self.waitFor("recording") { jcap.errorOutput.contains("jcap: recording") }
        usleep(400_000)
        jcap.signal(SIGUSR1)
        try Self.waitFor("the pause") { jcap.errorOutput.contains("paused at JACK frame") }
        usleep(300_000)
        jcap.signal(SIGUSR1)
        try Self.waitFor("the resume") { jcap.errorOutput.contains("resumed at JACK frame") }
        usleep(300_000)
        jcap.signal(SIGINT)
        let run = (try jcap.wait(timeout: 20), jcap.errorOutput)
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(run.0, exitStatus(reporting: account), run.1)
        let pausedAt = try XCTUnwrap(number(after: "paused at JACK frame ", in: run.1))
        let resumedAt = try XCTUnwrap(number(after: "resumed at JACK frame ", in: run.1))
        let pauseLine = try XCTUnwrap(run.1.split(separator: "\n").first { $0.contains("paused at JACK frame") })
        let position = try XCTUnwrap(number(after: "(take frame ", in: String(pauseLine)))
        XCTAssertFalse(run.1.contains("period changed"), "activation is not a period change: \(run.1)")
        // Two runs, up to the pause frame and from the resume frame; every sample checked.
        XCTAssertEqual(account.pauses, [.init(position: position, skippedFrames: Int64(FrameTime.distance(from: UInt32(pausedAt), to: UInt32(resumedAt))))])
        XCTAssertEqual(FrameTime.advance(account.startFrame, by: Int(position)), UInt32(pausedAt))
        assertAccountedFor(account)
        XCTAssertTrue(run.1.contains("paused 1 time"), run.1)
    }
}

/// Runs `onStart` inside the recorder's own delegate callback, on its event thread, on the
/// `.started` event (stopping the take there, or holding the thread so nothing drains the event
/// rings); forwards everything to a `RecordingDelegate`.
final class OnStartDelegate: RecorderDelegate, Sendable {
    let forward: RecordingDelegate
    private let onStart: @Sendable (Recorder) -> Void

    init(forwardingTo forward: RecordingDelegate, onStart: @escaping @Sendable (Recorder) -> Void) {
        self.forward = forward
        self.onStart = onStart
    }

    func recorder(_ recorder: Recorder, didReceive event: CaptureEvent) {
        forward.recorder(recorder, didReceive: event)
        if event.isStarted { onStart(recorder) }
    }

    func recorderDidFinishRecording(_ recorder: Recorder, successfully: Bool) {
        forward.recorderDidFinishRecording(recorder, successfully: successfully)
    }
}
