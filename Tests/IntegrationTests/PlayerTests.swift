import Atomics
import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// The `Player` API in this process, its ports recorded by jcap and checked sample by sample.
final class PlayerTests: JackTestCase {
    final class Finish: PlayerDelegate, @unchecked Sendable {
        let lock = NSLock()
        var results: [Bool] = []
        func playerDidFinishPlaying(_ player: Player, successfully: Bool) { lock.withLock { results.append(successfully) } }
        var finished: [Bool] { lock.withLock { results } }
    }

    /// A mono float WAV of the test signal (channel 0 from frame time 100000), and its samples.
    func signalFile(_ name: String, frames: Int) throws -> [Float] {
        let file = path(name)
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: 1, sampleRate: server.sampleRate, overwrite: false)
        let samples = (0..<frames).map { TestSignal.sample(frameTime: FrameTime.advance(100_000, by: $0), channel: 0) }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.close()
        return samples
    }

    func makePlayer(_ name: String, client: String) throws -> Player {
        let player = try Player(contentsOf: URL(fileURLWithPath: path(name)))
        try player.prepareToPlay(clientName: client, server: server.name, outputs: .none)
        return player
    }

    func waitUntilFrame(_ frame: UInt32) {
        while FrameTime.distance(from: observer.estimatedFrameTime, to: frame) > 0 { usleep(5_000) }
    }

    /// Metering on playback measures what the ports play, after volume and pan, with the
    /// recorder's scale: a 1 kHz sine at -6.02 dBFS played at volume 0.5 reads -12.04 peak and
    /// -15.05 average; panned hard left, the right port reads -160 (silence).
    func testMeteringReadsWhatThePortsPlay() throws {
        let file = path("sine.wav")
        let frames = 4 * server.sampleRate
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: 2, sampleRate: server.sampleRate, overwrite: false)
        var samples = [Float](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let value = Float(0.5 * sin(2 * Double.pi * 1_000 * Double(frame) / Double(server.sampleRate)))
            samples[frame * 2] = value
            samples[frame * 2 + 1] = value
        }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.close()
        let player = try makePlayer("sine.wav", client: "pm")
        defer { player.close() }
        XCTAssertFalse(player.isMeteringEnabled, "off by default, as in AVAudioPlayer")
        player.isMeteringEnabled = true
        player.volume = 0.5
        player.pan = -1
        try player.play()
        // Read the way a console does, 20 times a second, for 2 s: ~7 averaging time constants.
        for _ in 0..<40 {
            usleep(50_000)
            player.updateMeters()
        }
        XCTAssertEqual(player.peakPower(forChannel: 0), -12.04, accuracy: 0.1, "-6.02 dBFS at volume 0.5")
        XCTAssertEqual(player.averagePower(forChannel: 0), -15.05, accuracy: 0.1, "a sine averages 3.01 dB below its peak")
        XCTAssertEqual(player.peakPower(forChannel: 1), -160, "hard left: the right port plays silence")
        XCTAssertEqual(player.averagePower(forChannel: 1), -160)
        XCTAssertEqual(player.averagePower(forChannel: 7), -160, "a port the player lacks reads the floor")
        player.stop()
    }

    /// play(atFrame:), pause, play(atFrame:) again: the frames before the pause, silence, then
    /// from exactly where it paused (nothing repeated or skipped); the delegate is told it
    /// finished, and the position is back at the start.
    func testPauseAndResumeOnAFrameContinueWhereItPaused() throws {
        let frames = 96_000
        // Checked against what the recorder and the player reported (`assertPlayed`), as every
        // recording of a player here.
        let source = try signalFile("resume.wav", frames: frames)
        let player = try makePlayer("resume.wav", client: "pr")
        defer { player.close() }
        let finish = Finish()
        player.delegate = finish
        XCTAssertEqual(player.numberOfChannels, 1)
        XCTAssertEqual(player.duration, 2, accuracy: 1e-9)
        XCTAssertEqual(player.url.lastPathComponent, "resume.wav")
        let start = frameAhead(3)
        let length = 4 * 48_000
        let recorder = try launchPlaybackRecorder(["pr:out_1"], at: "@\(start)", frames: length, name: "resume-take.wav")
        try player.play(atFrame: start)
        XCTAssertTrue(player.isPlaying)
        waitUntilFrame(FrameTime.advance(start, by: 30_000))
        player.pause()
        usleep(100_000)
        XCTAssertFalse(player.phase == .playing)
        let paused = Int(player.currentFrame)
        XCTAssertLessThan(paused, frames)
        let resume = FrameTime.advance(start, by: 60_000)
        try player.play(atFrame: resume)
        var recording = try finishPlaybackRecording(recorder, player: nil, name: "resume-take.wav", frames: length)
        try Self.waitFor("the finish") { !finish.finished.isEmpty }
        recording.underruns = underrunSpans(player, recordingFrom: start)
        XCTAssertEqual(finish.finished, [true])
        XCTAssertFalse(player.isPlaying)
        XCTAssertEqual(player.currentFrame, 0, "back to the start at the end")
        XCTAssertEqual(player.startedFrame, resume)
        // Paused after frame 30,000 of the clock: the file frame is that, less what JACK skipped
        // before (the player plays on from where it was).
        let skipped = recording.account.lostSpans.filter { $0.position < 30_000 }.reduce(0) { $0 + Int($1.frames) }
        XCTAssertGreaterThan(paused, 30_000 - skipped, "\(recording.account)")
        // The file up to the pause, then silence; from the resume (on the clock again) exactly
        // where it paused, then silence.
        assertPlayed(recording, channel: 0, "up to the resume", positions: 0..<60_000) { $0 < 0 ? nil : $0 < paused ? source[$0] : 0 }
        assertPlayed(recording, channel: 0, "from the resume", positions: 60_000..<length) { position in
            (60_000..<60_000 + frames - paused).contains(position) ? source[paused + position - 60_000] : 0
        }
    }

    /// A seek while stopped, then play(atFrame:): the frame asked for goes out on the start
    /// frame. A seek while playing: the frames before it, silence while the reader catches up,
    /// then exactly the frame asked for and on.
    func testSeeksLandOnTheExactFrame() throws {
        let frames = 96_000
        let source = try signalFile("seek.wav", frames: frames)
        let player = try makePlayer("seek.wav", client: "ps")
        defer { player.close() }
        player.currentFrame = 12_345
        XCTAssertEqual(player.currentFrame, 12_345)
        let start = frameAhead(3)
        let recorder = try launchPlaybackRecorder(["ps:out_1"], at: "@\(start)", frames: 60_000, name: "seek-take.wav")
        try player.play(atFrame: start)
        waitUntilFrame(FrameTime.advance(start, by: 20_000))
        player.currentFrame = 70_000
        var recording = try finishPlaybackRecording(recorder, player: nil, name: "seek-take.wav", frames: 60_000)
        recording.underruns = underrunSpans(player, recordingFrom: start)
        let take = recording.channels[0]
        // Up to the seek: from 12345 on. Where it departs from that is the seek.
        guard let (jump, _) = firstUnexplainedSample(of: take, in: 0..<take.count, account: recording.account,
                                                     underruns: recording.underruns, tolerance: 0, expected: { position, lag in
            (0..<frames - 12_345).contains(position - lag) ? source[12_345 + position - lag] : nil
        }) else { return XCTFail("the seek never happened") }
        XCTAssertGreaterThanOrEqual(jump, 20_000, "the seek came after it was asked for")
        // How soon the reader catches up is the machine's to say, not asserted here.
        guard let resumed = (jump..<take.count).first(where: { take[$0] != 0 }) else {
            return XCTFail("nothing after the seek")
        }
        let rest = frames - 70_000
        assertPlayed(recording, channel: 0, "after the seek", positions: resumed..<take.count) { position in
            position < resumed ? nil : position - resumed < rest ? source[70_000 + position - resumed] : 0
        }
        XCTAssertFalse(recording.underruns.contains { $0.position < Int64(resumed) && $0.position + $0.frames > Int64(jump) },
                       "the catch-up after a seek is not an underrun: \(recording.underruns), \(jump)..<\(resumed)")
    }

    /// Volume 1 to 0.5 while playing: up to the change the file as it is, then a ramp of equal
    /// steps (no jump larger than one step), then exactly half: -6.02 dB.
    func testVolumeChangesWhilePlayingRampThenMeasureMinus6dB() throws {
        let frames = 96_000
        let source = try signalFile("ramp.wav", frames: frames)
        let player = try makePlayer("ramp.wav", client: "pv")
        defer { player.close() }
        let start = frameAhead(3)
        let recorder = try launchPlaybackRecorder(["pv:out_1"], at: "@\(start)", frames: frames, name: "ramp-take.wav")
        try player.play(atFrame: start)
        waitUntilFrame(FrameTime.advance(start, by: 30_000))
        player.volume = 0.5
        var recording = try finishPlaybackRecording(recorder, player: nil, name: "ramp-take.wav", frames: frames)
        try Self.waitFor("the end", timeout: 30) { !player.isPlaying }
        recording.underruns = underrunSpans(player, recordingFrom: start)
        let take = recording.channels[0]
        func file(_ frame: Int) -> Float? { (0..<frames).contains(frame) ? source[frame] : 0 }
        // The file as it is up to the change; where it departs from that, the ramp begins.
        guard let (change, lag) = firstUnexplainedSample(of: take, in: 0..<take.count, account: recording.account,
                                                         underruns: recording.underruns, expected: { file($0 - $1) })
        else { return XCTFail("the volume never changed") }
        let ramp = Player.rampFrames(sampleRate: server.sampleRate)
        XCTAssertGreaterThan(change, 30_000)
        let reported = recording.account.lostSpans + recording.account.lateCopySpans + recording.account.uncertainSpans + recording.underruns
        let gains = (change - 1..<min(change + ramp, take.count)).map { index -> Float? in
            let played = file(index - lag) ?? 0
            return reported.contains { $0.position <= index && index < $0.position + $0.frames } || played == 0 ? nil : take[index] / played
        }
        for (step, pair) in zip(gains, gains.dropFirst()).enumerated() {
            guard let before = pair.0, let after = pair.1 else { continue }
            XCTAssertLessThanOrEqual(abs(after - before), 0.5 / Float(ramp) + 1e-4, "a jump at \(change + step)")
        }
        // Then exactly half.
        assertPlayed(recording, channel: 0, "half after the ramp", positions: (change + ramp - 1)..<take.count, startLags: lag...lag) { frame in
            file(frame).map { $0 * 0.5 }
        }
        if recording.account.reportsNoTrouble, recording.underruns.isEmpty {
            let after = change + ramp
            XCTAssertEqual(PlaybackTests.decibels(take[after...], relativeTo: source[after...]), -6.0206, accuracy: 0.001)
        }
    }

    /// A reader slowed by the test hook falls behind: the callback plays silence instead, and
    /// each silence is reported with the file frame that was due and the JACK frame it began on.
    /// Taking the silences out of the recording leaves the file frame for frame: nothing
    /// repeated, nothing skipped. Checked against what the recording jcap reported, not repeated
    /// on xruns: across a span it reported lost, late or uncertain the file may go on by at most
    /// the span's frames, and an underrun there is not seen whole; everywhere else it is exact.
    func testASlowReaderUnderrunsAreSilenceCountedAndReportedAtTheirPositions() throws {
        let frames = 48_000
        let source = try signalFile("slow.wav", frames: frames)
        let player = try Player(contentsOf: URL(fileURLWithPath: path("slow.wav")))
        try player.prepareToPlay(clientName: "pu", server: server.name, outputs: .none, bufferSeconds: 0.1)
        defer { player.close() }
        // A 4096-frame block (85 ms) every 150 ms: the reader runs at about half speed.
        player.readerDelayMicroseconds = 150_000
        let start = frameAhead(3)
        let length = 4 * 48_000
        let (take, account) = try recordPlaying(player, port: "pu:out_1", start: start, frames: length, name: "slow-take.wav")
        let reported = account.lostSpans + account.lateCopySpans + account.uncertainSpans
        func isReported(_ index: Int) -> Bool { reported.contains { $0.position <= index && index < $0.position + $0.frames } }
        var played = 0  // the file frame due next
        var silences: [PlaybackUnderrun] = []  // seen whole, between two played frames with nothing reported
        var excused: [ClosedRange<Int>] = []   // file frames due across a reported span
        var index = 0
        while index < take.count && played < frames {
            let begin = index
            var reportedFrames = 0
            while index < take.count && (take[index] == 0 || isReported(index)) {
                if isReported(index) { reportedFrames += 1 }
                index += 1
            }
            guard index < take.count else { break }
            guard let time = TestSignal.frameTime(decoding: take[index], channel: 0) else {
                return XCTFail("recorded frame \(index) is not the file's signal: \(take[index])")
            }
            let next = signalDistance(from: 100_000, to: time)
            if reportedFrames > 0 {
                guard next >= played && next - played <= reportedFrames else {
                    return XCTFail("recorded frame \(index) is file frame \(next) after \(played - 1) across \(reportedFrames) reported frames")
                }
                excused.append(played...next)
            } else {
                guard next == played else {
                    return XCTFail("recorded frame \(index) is file frame \(next), not \(played): a repeated or skipped frame")
                }
                if index > begin {
                    silences.append(PlaybackUnderrun(position: Int64(played), jackFrame: FrameTime.advance(start, by: begin),
                                                     frames: index - begin))
                }
            }
            guard next < frames, take[index] == source[next] else { return XCTFail("recorded frame \(index): \(take[index])") }
            played = next + 1
            index += 1
        }
        XCTAssertEqual(played, frames, "every file frame was played")
        XCTAssertGreaterThan(player.underruns.count, 1)
        assertUnderrunsAccountedFor(player.underruns, silences: silences, excused: excused, take: take, checkedUpTo: index,
                                    start: start, fileFrames: frames, filePerOutput: 1, account: account)
        XCTAssertEqual(player.underrunFrames, player.underruns.reduce(0) { $0 + $1.frames })
    }

    /// play(atTime:) on JACK's clock (`deviceCurrentTime`'s seconds) and a jcap recorder told
    /// the same moment as a wall-clock time decide its frame in the same cycle: the recording is
    /// the file from its first frame, frame for frame (a start one frame off fails).
    func testPlayAtTimeStartsOnTheMomentsFrame() throws {
        let frames = 24_000
        let source = try signalFile("attime.wav", frames: frames)
        let player = try makePlayer("attime.wav", client: "pt")
        defer { player.close() }
        let (target, _, at) = moment(secondsAhead: 2)
        let recorder = try launchPlaybackRecorder(["pt:out_1"], at: at, frames: frames + 1_000, name: "attime-take.wav")
        let deviceTime = Double(WallClockToJack.jackNanoseconds(atWallClockMicroseconds: target)) / 1e9
        XCTAssertEqual(deviceTime - player.deviceCurrentTime, 2, accuracy: 0.1, "deviceCurrentTime is JACK's clock")
        try player.play(atTime: deviceTime)
        XCTAssertTrue(player.isPlaying)
        // An xrun in the cycle the moment falls in can skip the player or the recorder there: it
        // then starts on the next cycle's first frame.
        let xrunsAround = serverXruns(aroundMoment: target)
        var recording = try finishPlaybackRecording(recorder, player: nil, name: "attime-take.wav", frames: frames + 1_000)
        try Self.waitFor("the end", timeout: 30) { !player.isPlaying }
        recording.underruns = underrunSpans(player, recordingFrom: recording.account.startFrame)
        XCTAssertNotNil(player.startedFrame)
        let lags = xrunsAround == 0 ? 0...0 : -server.period...server.period
        // The file from the moment, then silence.
        assertPlayed(recording, channel: 0, "from the moment (\(xrunsAround.map(String.init) ?? "unknown") xruns around it)", startLags: lags) { position in
            position < 0 ? 0 : position < frames ? source[position] : 0
        }
    }
}

/// Records everything a player's delegate is told.
final class PlayerEvents: PlayerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var finishedResults: [Bool] = []
    private var decodeErrorList: [PlayerError] = []
    private var interruptionList: [PlayerInterruption] = []
    func playerDidFinishPlaying(_ player: Player, successfully: Bool) { lock.withLock { finishedResults.append(successfully) } }
    func playerDecodeErrorDidOccur(_ player: Player, error: PlayerError) { lock.withLock { decodeErrorList.append(error) } }
    func player(_ player: Player, wasInterrupted interruption: PlayerInterruption) { lock.withLock { interruptionList.append(interruption) } }
    var finished: [Bool] { lock.withLock { finishedResults } }
    var decodeErrors: [PlayerError] { lock.withLock { decodeErrorList } }
    var interruptions: [PlayerInterruption] { lock.withLock { interruptionList } }
}

/// What interrupts a player, and a file that stops decoding partway: each told to the delegate
/// once, with where and why.
final class PlayerInterruptionTests: JackTestCase {
    /// A 2-second FLAC of noise with 2000 bytes in its middle scrambled: libsndfile's FLAC
    /// decoder loses sync there (measured: 45,056 of 96,000 frames read, "flac decoder lost
    /// sync"). Returns its path.
    func damagedFLAC() throws -> String {
        let file = path("damaged.flac")
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(bitDepth: 16).resolveFormat(forPath: file),
                                          channels: 1, sampleRate: server.sampleRate, overwrite: false)
        var generator = SystemRandomNumberGenerator()
        let samples = (0..<96_000).map { index in Float(sin(Double(index) * 0.01) * 0.25) + Float.random(in: -0.1...0.1, using: &generator) }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: samples.count) }
        try writer.close()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        for index in (bytes.count / 2)..<(bytes.count / 2 + 2_000) { bytes[index] ^= 0xA5 }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    func testADecodeErrorIsToldWithItsFrameAndPlayingFinishesUnsuccessfully() throws {
        let file = try damagedFLAC()
        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        let events = PlayerEvents()
        player.delegate = events
        try player.prepareToPlay(clientName: "dmg", server: server.name, outputs: .none)
        defer { player.close() }
        try player.play()
        try Self.waitFor("playing to end") { !events.finished.isEmpty }
        XCTAssertEqual(events.finished, [false], "not successfully")
        XCTAssertEqual(events.decodeErrors.count, 1, "told once")
        guard case .decodeFailed(let failedPath, let frame, let reason)? = events.decodeErrors.first else {
            return XCTFail("a decode error: \(events.decodeErrors)")
        }
        XCTAssertEqual(failedPath, file)
        XCTAssertGreaterThan(frame, 0)
        XCTAssertLessThan(frame, 96_000, "partway")
        XCTAssertTrue(reason.contains("flac"), reason)
        XCTAssertEqual(player.decodeErrors, events.decodeErrors)
    }

    func testJcapPlayOfADamagedFileSaysWhereAndExits25() throws {
        let file = try damagedFLAC()
        let run = try runJcap(["play", file, "--no-connect"])
        XCTAssertEqual(run.status, 25, run.errors)
        let errors = run.errors.split(separator: "\n").filter { $0.hasPrefix("jcap: error") }
        XCTAssertEqual(errors.count, 1, run.errors)
        XCTAssertTrue(errors.first?.contains("cannot be decoded past file frame ") ?? false, run.errors)
        XCTAssertTrue(errors.first?.contains(file) ?? false, run.errors)
    }

    func testAnOutputLosingItsLastConnectionIsAnInterruptionAndPlayingGoesOn() throws {
        let file = try writeFloatFile("long.wav", channels: 2, frames: 48_000) { _, _ in 0.1 }
        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        let events = PlayerEvents()
        player.delegate = events
        player.numberOfLoops = -1
        try player.prepareToPlay(clientName: "unplug", server: server.name, outputs: .physical(channels: [1, 2]))
        defer { player.close() }
        XCTAssertEqual(player.connections, [["system:playback_1"], ["system:playback_2"]])
        try player.play()
        usleep(300_000)
        XCTAssertEqual(events.interruptions, [], "nothing while both are connected")
        try observer.disconnect("unplug:out_2", from: "system:playback_2")
        try Self.waitFor("the interruption") { !events.interruptions.isEmpty }
        usleep(300_000)
        XCTAssertEqual(events.interruptions, [.outputDisconnected("unplug:out_2")], "told once, for that port")
        XCTAssertTrue(player.isPlaying, "playing goes on")
        XCTAssertEqual(events.finished, [])
    }
}

/// `jcap play`'s console: the meters of what each port plays, as recording's console shows them.
final class PlayConsoleTests: JackTestCase {
    func testJSONMeterLinesShowTheFileFramePlayingAndEachPortsLevel() throws {
        // Left at 0.5 (-6.02 dBFS), right at 0.25 (-12.04 dBFS), one second.
        let file = try writeFloatFile("levels.wav", channels: 2, frames: 48_000) { _, channel in channel == 0 ? 0.5 : 0.25 }
        let jcap = try launchJcap(["play", file, "--no-connect", "--meter", "json"])
        let status = try jcap.wait(timeout: 30)
        let (output, errors) = (jcap.output, jcap.errorOutput)
        XCTAssertEqual(status, playerStatus(reportedIn: errors), errors)
        // The frames of silence it reported (a loaded host can make the reader fall behind).
        let underrunFrames = playerUnderruns(in: errors, recordingFrom: 0).reduce(0) { $0 + Int($1.frames) }
        let objects = try output.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        let playing = objects.filter { $0["state"] as? String == "playing" }
        XCTAssertGreaterThanOrEqual(playing.count, 5, "about 10 lines a second: \(output)")
        var lastFrame = -1, lastLost = 0
        for object in playing {
            let frame = try XCTUnwrap(object["elapsed_frames"] as? Int)
            XCTAssertGreaterThanOrEqual(frame, lastFrame, "the file frame never goes back")
            XCTAssertLessThanOrEqual(frame, 48_000)
            lastFrame = frame
            XCTAssertEqual((object["remaining_frames"] as? Int).map { $0 + frame }, 48_000)
            let lost = try XCTUnwrap(object["lost_frames"] as? Int)
            XCTAssertTrue((lastLost...underrunFrames).contains(lost), "\(lost) lost: never back, never past the \(underrunFrames) reported")
            lastLost = lost
            let channels = try XCTUnwrap(object["channels"] as? [[String: Any]])
            XCTAssertEqual(channels.map { $0["name"] as? String }, ["out_1", "out_2"])
        }
        // Once the meters have seen a whole update of sound: the ports' peaks.
        let settled = try XCTUnwrap(playing.dropFirst(2).first, output)
        let channels = try XCTUnwrap(settled["channels"] as? [[String: Any]])
        XCTAssertEqual(try XCTUnwrap(channels[0]["peak_db"] as? Double), -6.02, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(channels[1]["peak_db"] as? Double), -12.04, accuracy: 0.01)
        XCTAssertTrue(errors.contains("jcap: played to file frame 48000"), "the summary stays on standard error: \(errors)")
    }
}
