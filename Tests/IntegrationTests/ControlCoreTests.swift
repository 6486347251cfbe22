import Foundation
import XCTest
@testable import JackCapture
@testable import jcap

/// The control core driven by a scripted surface through jcap's run loop, against the private
/// server: every command, the state it leads to (from the core's snapshots) or its refusal, and
/// the exit status the run ends with.
final class ControlCoreTests: JackTestCase {
    typealias Step = ScriptedSurface.Step

    static func step(_ command: ControlCommand, _ what: String, before: ((ControlState) -> Bool)? = nil,
                     _ check: @escaping (ControlState) -> Bool) -> Step {
        Step(command: command, expectation: .state(what, check), before: before)
    }

    static func refused(_ command: ControlCommand, _ refusal: ControlRefusal) -> Step {
        Step(command: command, expectation: .refused(refusal))
    }

    /// Runs the script through jcap's run loop (its console silent); the exit status.
    func run(_ core: ControlCore, _ script: ScriptedSurface) -> jcap.ExitStatus {
        let status = ControlRunLoop(console: Console(display: MeterDisplay.none)).run(core, surfaces: [script])
        script.settle(core)
        XCTAssertTrue(script.isDone, "the run ended before the script")
        XCTAssertEqual(script.failures, [])
        return status
    }

    /// Fails unless the session run's status is the one its takes call for by what the log
    /// reports of them (an xrun's lost frames make it 3, a discarded take's too: it ended so), and
    /// every kept take's files hold the signal in place or inside a span jcap reported.
    func assertStatusFollowsTheLog(_ status: jcap.ExitStatus, of session: StudioSession, line: UInt = #line) throws {
        let entries = try session.log.entries()
        let accounts = try takeLogAccounts(folder: session.log.folder, line: line)
        XCTAssertEqual(status.rawValue, exitStatus(reportingAll: accounts), "\(accounts)", line: line)
        for (entry, account) in zip(entries, accounts) where entry.status != .discarded {
            XCTAssertEqual(entry.status, takeStatus(reporting: account), "take \(entry.take)", line: line)
            assertAccountedFor(account, "take \(entry.take)", line: line)
        }
    }

    func testEverySessionCommandChangesTheStateOrIsRefused() throws {
        var text = "[session]\nname = \"ctl\"\nformat = \"wav\"\nbit_depth = \"float\"\n"
        text += "[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n[[track]]\nname = \"B\"\nsource = \"sig:out_2\"\n"
        try text.write(toFile: path("ctl.toml"), atomically: true, encoding: .utf8)
        let session = try StudioSession(definition: try SessionDefinition.load(path: path("ctl.toml")), serverName: server.name)
        defer { session.close() }
        let recording: (ControlState) -> Bool = { $0.mode == .recording && $0.position > 4_800 }
        let script = ScriptedSurface([
            Self.refused(.stop, .nothingRunning(.stop)),
            Self.refused(.togglePause, .nothingRunning(.togglePause)),
            Self.refused(.confirmDiscard(true), .nothingToConfirm),
            Self.refused(.seekBy(frames: 48_000), .needsPlayback(.seekBy(frames: 48_000))),
            Self.step(.disarm(track: "B"), "B disarmed") { $0.mode == .ready && $0.armedTracks == ["A"] && $0.nextTake == 1 },
            Self.step(.arm(track: "B"), "B armed again") { $0.armedTracks == ["A", "B"] },
            Self.step(.record, "take 1 recording") { $0.mode == .recording && $0.currentTake == 1 && $0.nextTake == nil },
            Self.refused(.record, .takeRecording(.record)),
            Self.refused(.arm(track: "A"), .takeRecording(.arm(track: "A"))),
            Self.refused(.discardLastTake, .takeRecording(.discardLastTake)),
            Self.step(.pause, "take 1 paused", before: recording) { $0.mode == .paused },
            Self.refused(.pause, .alreadyPaused),
            Self.step(.resume, "take 1 recording again") { $0.mode == .recording },
            Self.step(.togglePause, "take 1 paused by the toggle") { $0.mode == .paused },
            Self.step(.togglePause, "take 1 resumed by the toggle") { $0.mode == .recording },
            Self.step(.stop, "take 1 ended", before: recording) { $0.mode == .ready && $0.currentTake == nil && $0.nextTake == 2 },
            Self.step(.mark(take: 1, .circled), "take 1 circled") { $0.mode == .ready },
            Self.step(.note(take: 1, text: "keeper"), "take 1's note") { $0.mode == .ready },
            Self.step(.record, "take 2 recording") { $0.mode == .recording && $0.currentTake == 2 },
            Self.step(.stop, "take 2 ended", before: recording) { $0.mode == .ready && $0.nextTake == 3 },
            Self.step(.discardLastTake, "asked about take 2") { $0.pendingDiscard == 2 },
            Self.refused(.record, .awaitingConfirmation(take: 2)),
            Self.step(.confirmDiscard(false), "take 2 kept") { $0.pendingDiscard == nil },
            Self.step(.discardLastTake, "asked about take 2 again") { $0.pendingDiscard == 2 },
            Self.step(.confirmDiscard(true), "take 2 discarded") { $0.pendingDiscard == nil && $0.mode == .ready },
            Self.step(.quit, "the session ended") { $0.mode == .finished },
        ])
        let status = run(ControlCore(session: session, plan: .interactive), script)
        try assertStatusFollowsTheLog(status, of: session)
        let entries = try session.log.entries()
        XCTAssertEqual(entries.map(\.take), [1, 2])
        XCTAssertEqual(entries.first?.mark, .circled)
        XCTAssertEqual(entries.first?.note, "keeper")
        XCTAssertEqual(entries.first?.pauses.count, 2, "two pauses, each left out of the take")
        XCTAssertEqual(entries.last?.status, .discarded)
    }

    /// A person's stop and quit are asked first: the answer, a second request or the question's
    /// lapse after `confirmationSeconds` decides; between takes a quit needs no question; record
    /// on a paused take resumes it.
    func testAPersonsStopAndQuitAreAskedFirstAndLapse() throws {
        try "[session]\nname = \"ask\"\nformat = \"wav\"\n[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n"
            .write(toFile: path("ask.toml"), atomically: true, encoding: .utf8)
        let session = try StudioSession(definition: try SessionDefinition.load(path: path("ask.toml")), serverName: server.name)
        defer { session.close() }
        var asked: Date?
        var lapsedAfter: TimeInterval = 0
        let script = ScriptedSurface([
            Self.refused(.requestStop, .nothingRunning(.requestStop)),
            Self.refused(.confirmStop(true), .nothingToConfirm),
            Self.step(.record, "take 1 recording") { $0.mode == .recording && $0.currentTake == 1 },
            Self.step(.requestStop, "asked to stop take 1") { $0.pendingStop == 1 && $0.mode == .recording },
            Self.step(.confirmStop(false), "declined: still recording") { $0.pendingStop == nil && $0.mode == .recording },
            Self.step(.requestStop, "asked again") { state in
                if state.pendingStop == 1 && asked == nil { asked = Date() }
                return state.pendingStop == 1
            },
            Step(command: .confirmStop(true), expectation: .refused(.nothingToConfirm), before: { state in
                lapsedAfter = Date().timeIntervalSince(asked ?? Date())
                return state.pendingStop == nil
            }),
            Self.step(.pause, "paused") { $0.mode == .paused },
            Self.step(.record, "record resumes the paused take") { $0.mode == .recording && $0.currentTake == 1 },
            Self.step(.requestQuit, "asked to quit during take 1") { $0.pendingQuit == 1 && $0.mode == .recording },
            Self.step(.confirmQuit(false), "declined: still recording") { $0.pendingQuit == nil && $0.mode == .recording },
            Self.step(.requestStop, "asked to stop") { $0.pendingStop == 1 },
            Self.step(.requestStop, "a second request stops") { $0.mode == .ready && $0.nextTake == 2 && $0.pendingStop == nil },
            Self.refused(.confirmQuit(true), .nothingToConfirm),
            Self.step(.requestQuit, "between takes a quit is not asked") { $0.mode == .finished },
        ])
        let status = run(ControlCore(session: session, plan: .interactive), script)
        try assertStatusFollowsTheLog(status, of: session)
        XCTAssertGreaterThanOrEqual(lapsedAfter, ControlCore.confirmationSeconds - 0.1, "the question waited its time")
        // Seen lapsed when the script next looked: how late that is is the machine's to say.
        XCTAssertLessThan(lapsedAfter, ControlCore.confirmationSeconds + 10, "and lapsed, not left standing")
        let entries = try session.log.entries()
        XCTAssertEqual(entries.map(\.take), [1])
        XCTAssertEqual(entries.first?.pauses.count, 1)
    }

    /// Markers go on the recording take only; the state names the last take and its mark and note
    /// for the keys that mark it.
    func testMarkersGoOnTheRecordingTakeAndTheLastTakeIsKnown() throws {
        try "[session]\nname = \"mk\"\nformat = \"wav\"\n[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n"
            .write(toFile: path("mk.toml"), atomically: true, encoding: .utf8)
        let session = try StudioSession(definition: try SessionDefinition.load(path: path("mk.toml")), serverName: server.name)
        defer { session.close() }
        // The take's position when the marker is asked for, and once it has been dropped: it lies between.
        var askedAt: Int64 = 0, droppedBy: Int64 = 0
        let recording: (ControlState) -> Bool = { state in
            askedAt = state.position
            return state.mode == .recording && state.position > 4_800
        }
        let script = ScriptedSurface([
            Self.refused(.dropMarker, .nothingRunning(.dropMarker)),
            Self.step(.clearClips, "clips cleared between takes") { $0.mode == .ready && $0.lastTake == nil && $0.nextTake == 1 },
            Self.step(.record, "take 1 recording") { $0.currentTake == 1 && $0.lastTake == 1 },
            Self.step(.dropMarker, "a marker", before: recording) { state in
                droppedBy = state.position
                return state.mode == .recording
            },
            Self.step(.mark(take: 1, .circled), "circled while recording") { $0.lastTakeMark == .circled },
            Self.step(.note(take: 1, text: "warm"), "its note") { $0.lastTakeNote == "warm" },
            Self.step(.requestStop, "asked") { $0.pendingStop == 1 },
            Self.step(.confirmStop(true), "stopped") { $0.mode == .ready && $0.lastTake == 1 && $0.lastTakeMark == .circled },
            Self.refused(.dropMarker, .nothingRunning(.dropMarker)),
            Self.step(.quit, "ended") { $0.mode == .finished },
        ])
        try assertStatusFollowsTheLog(run(ControlCore(session: session, plan: .interactive), script), of: session)
        let take = try XCTUnwrap(try session.log.entries().first)
        XCTAssertEqual(take.markers.count, 1)
        // Lost frames are written as silence: the take's positions, and the marker's, run on through them.
        let marker = try XCTUnwrap(take.markers.first).position
        XCTAssertGreaterThan(marker, 4_800)
        XCTAssertGreaterThanOrEqual(marker, askedAt, "dropped where it was asked for, not before")
        XCTAssertLessThanOrEqual(marker, droppedBy, "nor after")
        XCTAssertLessThan(marker, take.frames ?? 0, "inside the take")
        XCTAssertEqual(take.mark, .circled)
        XCTAssertEqual(take.note, "warm")
    }

    func testOnTriggersAStopLetsTheWaitingTakeGoAndTheNextWaitsUntilQuit() throws {
        try "[session]\nname = \"rolls\"\nformat = \"wav\"\n[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n"
            .write(toFile: path("rolls.toml"), atomically: true, encoding: .utf8)
        let session = try StudioSession(definition: try SessionDefinition.load(path: path("rolls.toml")), serverName: server.name)
        defer { session.close() }
        // Nothing rolls the transport here: each take waits for it.
        let script = ScriptedSurface([
            Self.refused(.record, .takesStartThemselves),
            Self.refused(.discardLastTake, .takesStartThemselves),
            Self.refused(.arm(track: "A"), .takeRecording(.arm(track: "A"))),
            Self.step(.stop, "the next take waiting", before: { $0.mode == .waiting }) { $0.mode == .waiting && $0.nextTake == nil },
            Self.step(.quit, "the session ended") { $0.mode == .finished },
        ])
        let status = run(ControlCore(session: session, plan: .eachTrigger(level: nil, length: nil)), script)
        XCTAssertEqual(status, .success, "takes that never started, ended by quit: nothing went wrong")
        XCTAssertEqual(try session.log.entries().count, 0)
    }

    func testOneTakeIsPausedResumedAndStoppedAndRefusesWhatIsNotARecordings() throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "ctl-rec"
        configuration.sources = .ports(["sig:out_1", "sig:out_2"])
        configuration.outputPath = path("one.wav")
        let capture = try CaptureClient(configuration: configuration)
        defer { capture.close() }
        let recording: (ControlState) -> Bool = { $0.mode == .recording && $0.position > 4_800 }
        let script = ScriptedSurface([
            Self.refused(.record, .takesStartThemselves),
            Self.refused(.discardLastTake, .needsSession(.discardLastTake)),
            Self.refused(.note(take: 1, text: "x"), .needsSession(.note(take: 1, text: "x"))),
            Self.refused(.seekTo(frame: 0), .needsPlayback(.seekTo(frame: 0))),
            Self.step(.togglePause, "paused", before: recording) { $0.mode == .paused },
            Self.step(.resume, "recording again") { $0.mode == .recording },
            Self.step(.stop, "the take ended", before: recording) { $0.mode == .finished },
        ])
        let status = run(ControlCore(recording: capture, plan: RecordingPlan(configuration: configuration)), script)
        // Its status the one its report calls for (an xrun's lost frames: 3), and the file held to that report.
        let account = try account(of: capture.take?.report)
        XCTAssertEqual(status.rawValue, exitStatus(reporting: account), "\(account)")
        assertAccountedFor(account)
        let file = try SoundFile.open(readingFrom: path("one.wav"))
        XCTAssertGreaterThan(file.frames, 4_800)
    }

    func testQuittingATakeBeforeItsStartEndsCancelled() throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "ctl-late"
        configuration.sources = .ports(["sig:out_1"])
        configuration.outputPath = path("late.wav")
        configuration.start = try StartTime(parsing: "+60s")
        let capture = try CaptureClient(configuration: configuration)
        defer { capture.close() }
        let script = ScriptedSurface([
            Self.refused(.resume, .notPaused),
            Self.step(.quit, "ended before the start", before: { $0.mode == .waiting && ($0.framesToStart ?? 0) > 48_000 }) {
                $0.mode == .finished
            },
        ])
        let status = run(ControlCore(recording: capture, plan: RecordingPlan(configuration: configuration)), script)
        XCTAssertEqual(status, .cancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("late.wav")))
    }

    func testPlaybackPausesSeeksResumesAndStops() throws {
        let file = path("tone.wav")
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: 1, sampleRate: server.sampleRate, overwrite: false)
        let samples = [Float](repeating: 0.25, count: server.sampleRate * 20)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: samples.count) }
        try writer.close()
        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        try player.prepareToPlay(clientName: "ctl-play", server: server.name, outputs: .none)
        defer { player.close() }
        let script = ScriptedSurface([
            Self.refused(.record, .notWhilePlaying(.record)),
            Self.refused(.mark(take: 1, .noGood), .needsSession(.mark(take: 1, .noGood))),
            Self.refused(.resume, .notPaused),
            Self.step(.pause, "paused", before: { $0.mode == .playing && $0.position > 4_800 }) { $0.mode == .paused },
            Self.step(.seekTo(frame: 96_000), "at frame 96000") { $0.mode == .paused && $0.position == 96_000 },
            Self.step(.seekBy(frames: -48_000), "back a second") { $0.position == 48_000 },
            Self.step(.resume, "playing from there") { $0.mode == .playing && $0.position > 48_000 },
            Self.step(.stop, "stopped") { $0.mode == .finished },
        ])
        let status = run(ControlCore(playing: player, plan: PlaybackPlan(start: .now, fromFrame: 0)), script)
        XCTAssertEqual(status, .success)
    }

    /// A change of the server's sample rate stops playback where it is (its frames were made for
    /// the old rate), says so, and ends with status 7, as a take stopped by one does.
    func testASampleRateChangeStopsPlaybackWithItsOwnStatus() throws {
        let file = try writeFloatFile("tone.wav", channels: 1, frames: 20 * server.sampleRate) { _, _ in 0.25 }
        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        try player.prepareToPlay(clientName: "ctl-rate", server: server.name, outputs: .none)
        defer { player.close() }
        let core = ControlCore(playing: player, plan: PlaybackPlan(start: .now, fromFrame: 0))
        core.start()
        try Self.waitFor("playing") { core.update(); return core.state.mode == .playing }
        // No JACK 2 backend here changes its rate while running: the host's handler, as JACK runs it.
        player.host?.simulateSampleRateNotification(44_100)
        // The run loop's own steps, keeping the events it would hand to the console.
        var told: [ControlEvent] = []
        let deadline = Date() + 10
        while !core.isFinished && Date() < deadline {
            core.update()
            told += core.takeEvents()
            core.wait(upTo: 0.01)
        }
        told += core.takeEvents()
        let status = jcap.ExitStatus.worst(told.map(jcap.ExitStatus.init(for:)))
        XCTAssertEqual(status, .sampleRateChanged)
        XCTAssertFalse(player.isPlaying, "stopped at the change")
        XCTAssertTrue(told.contains { if case .playbackInterrupted(.sampleRateChanged(44_100)) = $0 { true } else { false } },
                      "the change is an event: \(told)")
        guard case .playbackFinished(let summary)? = told.last(where: { if case .playbackFinished = $0 { true } else { false } })
        else { return XCTFail("no summary: \(told)") }
        XCTAssertEqual(summary.changedSampleRate, 44_100)
        XCTAssertLessThan(summary.position, player.durationFrames, "stopped where it was, not played to the end")
    }
}
