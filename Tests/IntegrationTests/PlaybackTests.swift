import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// `jcap play` and `Player` against a private dummy server, checked sample by sample by recording
/// the player's ports with jcap.
final class PlaybackTests: JackTestCase {
    /// A float WAV of `frames` frames of the test signal (channel c, frame k: the signal of
    /// channel c at frame time `base + k`): every sample differs from its neighbours.
    func writeSignalFile(_ name: String, frames: Int, channels: Int = 2, base: UInt32 = 100_000) throws -> [[Float]] {
        let file = path(name)
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: channels, sampleRate: server.sampleRate, overwrite: false)
        var interleaved = [Float](repeating: 0, count: frames * channels)
        var perChannel = [[Float]](repeating: [Float](repeating: 0, count: frames), count: channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let sample = TestSignal.sample(frameTime: FrameTime.advance(base, by: frame), channel: channel)
                interleaved[frame * channels + channel] = sample
                perChannel[channel][frame] = sample
            }
        }
        try interleaved.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.close()
        return perChannel
    }

    func waitForPorts(_ names: [String]) throws {
        try Self.waitFor("ports \(names)") { names.allSatisfy { observer.audioOutputPorts().contains($0) } }
    }

    /// The key test: a test-signal file played with `--at @F` and recorded from the player's
    /// ports from 1000 frames before F is 1000 frames of silence, then the file frame for frame,
    /// then silence.
    func testPlayedFileIsRecordedFrameForFrameFromTheStartFrame() throws {
        let frames = 30_000
        // Checked against what the recorder and the player reported (`assertPlayed`), as every
        // recording of a player here.
        let expected = try writeSignalFile("source.wav", frames: frames)
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("source.wav"), "--name", "pl", "--no-connect", "--at", "@\(start)"])
        try waitForPorts(["pl:out_1", "pl:out_2"])
        let recorder = try launchPlaybackRecorder(["pl:out_1", "pl:out_2"], at: "@\(FrameTime.advance(start, by: -1_000))",
                                                  frames: frames + 2_000, name: "take.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "take.wav", frames: frames + 2_000)
        XCTAssertTrue(player.errorOutput.contains("starting at JACK frame \(start)"), player.errorOutput)
        XCTAssertEqual(recording.channels.count, 2)
        for channel in 0..<2 {
            // 1,000 frames of silence, the file, 1,000 of silence.
            assertPlayed(recording, channel: channel, "channel \(channel + 1)") { position in
                (1_000..<1_000 + frames).contains(position) ? expected[channel][position - 1_000] : 0
            }
        }
    }

    /// The keys: right arrow seeks 5 s forward (the file continues exactly from the frame jcap
    /// names), space pauses and resumes (continuing from the frame after the last one played:
    /// nothing repeated or skipped), q stops (exit 0).
    func testKeysSeekPauseResumeAndStop() throws {
        let frames = 20 * server.sampleRate
        let base: UInt32 = 100_000
        // Checked against what the recorder reported: an xrun costs the recording a period, padded
        // with silence, or leaves one late or uncertain, in the middle of a run the player played
        // without a break (measured under tools/steal: runs split at such periods in 3 of 3 takes).
        _ = try writeSignalFile("keys.wav", frames: frames, channels: 1, base: base)
        let start = frameAhead(3)
        let keys = Pipe()
        let player = try Subprocess(try Executables.built("jcap"),
                                    ["play", path("keys.wav"), "--name", "plk", "--no-connect", "--at", "@\(start)"],
                                    server: server.name, directory: directory, standardInput: keys.fileHandleForReading)
        try waitForPorts(["plk:out_1"])
        let recorder = try launchJcap(["--port", "plk:out_1", "--at", "@\(start)", "--for", "\(6 * server.sampleRate)f",
                                       "--format", "float", "-o", "keys-take.wav", "--meter", "json"])
        func press(_ bytes: [UInt8], at seconds: Double) {
            while FrameTime.distance(from: observer.estimatedFrameTime,
                                     to: FrameTime.advance(start, by: Int(seconds * Double(server.sampleRate)))) > 0 {
                usleep(5_000)
            }
            keys.fileHandleForWriting.write(Data(bytes))
        }
        press([0x1B, UInt8(ascii: "[")], at: 1.0)   // an arrow split across two reads
        press([UInt8(ascii: "C")], at: 1.05)
        press([UInt8(ascii: " ")], at: 2.5)
        press([UInt8(ascii: " ")], at: 3.2)
        press([UInt8(ascii: "q")], at: 4.0)
        XCTAssertEqual(try player.wait(timeout: 30), 0, player.errorOutput)
        let status = try recorder.wait(timeout: 30)
        let account = try summaryAccount(recorder.output)
        XCTAssertEqual(status, exitStatus(reporting: account), recorder.errorOutput)
        let target = try XCTUnwrap(number(after: "seeking to file frame ", in: player.errorOutput), player.errorOutput)
        XCTAssertTrue(player.errorOutput.contains("paused at file frame "), player.errorOutput)
        XCTAssertTrue(player.errorOutput.contains("stopped at file frame "), player.errorOutput)

        // The runs of consecutive file frames in the recording (silence between them). Frames
        // inside a span the recorder reported are passed over, and a run goes on across them by
        // at most their frames (what the recorder lost of what was played).
        let reported = (account.lostSpans + account.lateCopySpans + account.uncertainSpans)
            .map { Int($0.position)..<Int($0.position + $0.frames) }
        let recorded = try readChannels("keys-take.wav")[0]
        var runs: [(first: Int, last: Int, lastPosition: Int)] = []
        var afterSilence = true
        var passedOver = 0
        for (position, sample) in recorded.enumerated() {
            if reported.contains(where: { $0.contains(position) }) {
                passedOver += 1
                continue
            }
            defer { passedOver = 0 }
            let code = Int((Double(sample) * Double(1 << 23)).rounded())
            let frameTime = (code + TestSignal.timeModulus / 2) & (TestSignal.timeModulus - 1)
            let fileFrame = (frameTime - Int(base) + TestSignal.timeModulus) % TestSignal.timeModulus
            guard sample != 0, fileFrame < frames else {
                afterSilence = true
                continue
            }
            defer { afterSilence = false }
            if !afterSilence, let last = runs.last, (last.last + 1...last.last + 1 + passedOver).contains(fileFrame) {
                runs[runs.count - 1].last = fileFrame
                runs[runs.count - 1].lastPosition = position
            } else {
                runs.append((fileFrame, fileFrame, position))
            }
        }
        XCTAssertEqual(runs.count, 3, "played, sought, paused and resumed: \(runs); \(account)")
        guard runs.count == 3 else { return }
        XCTAssertEqual(runs[0].first, 0, "from the file's first frame")
        XCTAssertEqual(Int64(runs[1].first), target, "the seek lands on the frame jcap names")
        XCTAssertGreaterThan(runs[1].first, runs[0].last + 4 * server.sampleRate, "about 5 s forward")
        // Resumed on the frame after the last one played: the last one recorded, or one the
        // recorder reported lost between the two runs (it lost frames the player played).
        let resumed = try XCTUnwrap(player.errorOutput.components(separatedBy: "paused at file frame ").last
            .flatMap { number(after: "playing from file frame ", in: $0) }, player.errorOutput)
        XCTAssertEqual(Int64(runs[2].first), resumed, "the resume plays from the frame it names")
        let lastRecorded = Int64(runs[1].lastPosition)
        let lostBetween = account.lostSpans.filter { $0.position > lastRecorded && $0.position <= lastRecorded + Int64(server.period) }
            .reduce(0) { $0 + Int($1.frames) }
        XCTAssertTrue((runs[1].last + 1...runs[1].last + 1 + lostBetween).contains(runs[2].first),
                      "resumed on the frame after the last one played (\(lostBetween) frames reported lost after it)")
        if !account.reportsNoTrouble { print("note: \(name): runs \(runs), checked against \(account)") }
    }

    /// `jcap play SESSION --take N`: every file of a recorded take, each track on a port named
    /// after it, all starting on the `--at` frame: recorded again, each track is its take file.
    func testASessionTakePlaysEachTrackOnItsOwnPort() throws {
        let session = path("band.toml")
        try """
            [session]
            name = "band"
            format = "wav"
            bit_depth = "float"

            [[track]]
            name = "Kick In"
            source = "sig:out_1"

            [[track]]
            name = "OH L"
            source = "sig:out_2"
            group = "overheads"

            [[track]]
            name = "OH R"
            source = "sig:out_3"
            group = "overheads"
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let recording = try runJcap(["session", session, "--for", "24000f", "--meter", "none"])
        try assertStatusMatchesLog(recording, folder: path("band"))
        let kick = try readChannels("band/take-001-Kick In.wav")
        let overheads = try readChannels("band/take-001-overheads.wav")
        let start = frameAhead(3)
        let player = try launchJcap(["play", session, "--take", "1", "--name", "plt", "--no-connect", "--at", "@\(start)"])
        try waitForPorts(["plt:Kick In", "plt:OH L", "plt:OH R"])
        let recorder = try launchPlaybackRecorder(["plt:Kick In", "plt:OH L", "plt:OH R"], at: "@\(start)", frames: 24_000, name: "again.wav")
        let again = try finishPlaybackRecording(recorder, player: player, name: "again.wav", frames: 24_000)
        for (channel, (track, file)) in [("Kick In", kick[0]), ("OH L", overheads[0]), ("OH R", overheads[1])].enumerated() {
            assertPlayed(again, channel: channel, track) { file.indices.contains($0) ? file[$0] : nil }
        }
        let missing = try runJcap(["play", session, "--take", "7"])
        XCTAssertEqual(missing.status, ExitStatus.usage.rawValue, missing.errors)
        XCTAssertTrue(missing.errors.contains("a take of band (1)"), missing.errors)
    }

    /// Two files play in sync, each on its own ports, from `--from`.
    func testTwoFilesPlayInSyncFromAPosition() throws {
        let first = try writeSignalFile("a.wav", frames: 20_000, channels: 1, base: 1_000)
        let second = try writeSignalFile("b.wav", frames: 20_000, channels: 2, base: 500_000)
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("a.wav"), path("b.wav"), "--name", "pl2", "--no-connect",
                                     "--at", "@\(start)", "--from", "5000f"])
        try waitForPorts(["pl2:out_1", "pl2:out_2", "pl2:out_3"])
        let recorder = try launchPlaybackRecorder(["pl2:out_1", "pl2:out_2", "pl2:out_3"], at: "@\(start)", frames: 15_000, name: "sync.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "sync.wav", frames: 15_000)
        for (channel, (what, file)) in [("a.wav", first[0]), ("b.wav channel 1", second[0]), ("b.wav channel 2", second[1])].enumerated() {
            assertPlayed(recording, channel: channel, what) { (0..<15_000).contains($0) ? file[5_000 + $0] : nil }
        }
    }

    /// Bad input: one line, its own exit status, and the file left as it was.
    func testBadFilesAreRefusedWithTheirOwnExitStatus() throws {
        let missing = try runJcap(["play", path("missing.wav"), "--no-connect"])
        XCTAssertEqual(missing.status, 24, missing.errors)
        XCTAssertTrue(missing.errors.contains("cannot read '\(path("missing.wav"))': No such file or directory"), missing.errors)
        XCTAssertEqual(missing.errors.split(separator: "\n").count, 1, missing.errors)

        let text = path("notes.wav")
        try "not a sound file\n".write(toFile: text, atomically: true, encoding: .utf8)
        let garbage = try runJcap(["play", text, "--no-connect"])
        XCTAssertEqual(garbage.status, 16, garbage.errors)
        XCTAssertTrue(garbage.errors.contains("is not a sound file libsndfile can read"), garbage.errors)
        XCTAssertEqual(garbage.errors.split(separator: "\n").count, 1, garbage.errors)
        XCTAssertEqual(try String(contentsOfFile: text, encoding: .utf8), "not a sound file\n")

        let directory = try runJcap(["play", directory, "--no-connect"])
        XCTAssertEqual(directory.status, 24, directory.errors)

        _ = try writeSignalFile("ok.wav", frames: 100)
        let badTime = try runJcap(["play", path("ok.wav"), "--no-connect", "--at", "soon"])
        XCTAssertEqual(badTime.status, 12, badTime.errors)
        let past = try runJcap(["play", path("ok.wav"), "--no-connect", "--at", "@\(FrameTime.advance(observer.estimatedFrameTime, by: -48_000))"])
        XCTAssertEqual(past.status, 13, past.errors)
        let noPort = try runJcap(["play", path("ok.wav"), "--port", "nothing:here"])
        XCTAssertEqual(noPort.status, 11, noPort.errors)
    }

    /// `--channels` picks the physical playback ports (the dummy server has 2), in the order given.
    func testOutputsConnectToPlaybackPortsInOrder() throws {
        _ = try writeSignalFile("long.wav", frames: 48_000 * 3)
        let missing = try runJcap(["play", path("long.wav"), "--channels", "3"])
        XCTAssertEqual(missing.status, 11, missing.errors)
        let player = try launchJcap(["play", path("long.wav"), "--name", "pc", "--channels", "2,1"])
        defer { player.signal(SIGTERM); _ = try? player.wait(timeout: 10) }
        try waitForPorts(["pc:out_2"])
        try Self.waitFor("connections") {
            guard let out2 = try? observer.port(named: "pc:out_2") else { return false }
            return !observer.connections(of: out2).isEmpty
        }
        XCTAssertEqual(observer.connections(of: try observer.port(named: "pc:out_1")), ["system:playback_2"])
        XCTAssertEqual(observer.connections(of: try observer.port(named: "pc:out_2")), ["system:playback_1"])
    }

    /// `--loops 2`: exactly three copies back to back (the frame after the last is the first
    /// again), then silence.
    func testLoopsPlayExactlyThreeCopiesBackToBack() throws {
        let frames = 10_000
        let expected = try writeSignalFile("loop.wav", frames: frames, channels: 1)
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("loop.wav"), "--name", "pll", "--no-connect", "--at", "@\(start)",
                                     "--loops", "2"])
        try waitForPorts(["pll:out_1"])
        let recorder = try launchPlaybackRecorder(["pll:out_1"], at: "@\(start)", frames: 3 * frames + 1_000, name: "loops.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "loops.wav", frames: 3 * frames + 1_000)
        // Three copies back to back, then silence.
        assertPlayed(recording, channel: 0, "three copies") { position in
            position < 0 ? nil : position < 3 * frames ? expected[0][position % frames] : 0
        }
    }

    /// `--volume 0.5`: every sample is the file's times 0.5 exactly: -6.02 dB.
    func testVolumeHalfMeasuresMinus6dB() throws {
        let expected = try writeSignalFile("vol.wav", frames: 20_000, channels: 1)
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("vol.wav"), "--name", "plv", "--no-connect", "--at", "@\(start)",
                                     "--volume", "0.5"])
        try waitForPorts(["plv:out_1"])
        let recorder = try launchPlaybackRecorder(["plv:out_1"], at: "@\(start)", frames: 20_000, name: "vol-take.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "vol-take.wav", frames: 20_000)
        assertPlayed(recording, channel: 0, "half") { expected[0].indices.contains($0) ? expected[0][$0] * 0.5 : nil }
        // Exactly half, every sample: -6.02 dB (measured where nothing was reported).
        if recording.account.reportsNoTrouble, recording.underruns.isEmpty {
            XCTAssertEqual(Self.decibels(recording.channels[0][...], relativeTo: expected[0][...]), -6.0206, accuracy: 0.001)
        }
    }

    /// RMS level of `signal` relative to `reference`, in dB.
    static func decibels(_ signal: ArraySlice<Float>, relativeTo reference: ArraySlice<Float>) -> Double {
        let power = signal.reduce(0.0) { $0 + Double($1) * Double($1) }
        let referencePower = reference.reduce(0.0) { $0 + Double($1) * Double($1) }
        return 10 * log10(power / referencePower)
    }

    /// `--pan -1`: a stereo file's right channel is silent and its left as it is (balance); a
    /// mono file gets two ports, the right silent, the left the file (equal power at the end).
    func testPanHardLeftSilencesTheRight() throws {
        let stereo = try writeSignalFile("st.wav", frames: 20_000, channels: 2)
        let mono = try writeSignalFile("mo.wav", frames: 20_000, channels: 1, base: 300_000)
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("st.wav"), path("mo.wav"), "--name", "plp", "--no-connect",
                                     "--at", "@\(start)", "--pan", "-1"])
        try waitForPorts(["plp:out_1", "plp:out_2", "plp:out_3", "plp:out_4"])
        let recorder = try launchPlaybackRecorder(["plp:out_1", "plp:out_2", "plp:out_3", "plp:out_4"], at: "@\(start)",
                                                  frames: 20_000, name: "pan-take.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "pan-take.wav", frames: 20_000)
        for (channel, (what, file)) in [("stereo left", stereo[0]), ("stereo right", nil), ("mono left", mono[0]), ("mono right", nil)].enumerated() {
            assertPlayed(recording, channel: channel, what) { position in
                guard (0..<20_000).contains(position) else { return nil }
                return file?[position] ?? 0
            }
        }
        let bad = try runJcap(["play", path("st.wav"), "--no-connect", "--volume", "1.5"])
        XCTAssertEqual(bad.status, 64, bad.errors)
        XCTAssertTrue(bad.errors.contains("--volume"), bad.errors)
    }

    /// `--at` a wall-clock moment (a date in UTC, to the millisecond): jcap play and a jcap
    /// recorder told the same moment decide its frame in the same cycle (`ClockStart`), so the
    /// recording is the file from its first frame, frame for frame.
    func testAWallClockStartPlaysOnTheFrameARecorderStartsOn() throws {
        let expected = try writeSignalFile("clock.wav", frames: 20_000, channels: 1)
        let (target, _, at) = moment(secondsAhead: 2.5)
        let player = try launchJcap(["play", path("clock.wav"), "--name", "plc", "--no-connect", "--at", at])
        try waitForPorts(["plc:out_1"])
        let recorder = try launchPlaybackRecorder(["plc:out_1"], at: at, frames: 21_000, name: "clock-take.wav")
        // An xrun in the cycle the moment falls in can skip one of the two there: it then starts on
        // the next cycle's first frame, a period or less from the other.
        let xrunsAround = serverXruns(aroundMoment: target)
        let recording = try finishPlaybackRecording(recorder, player: player, name: "clock-take.wav", frames: 21_000)
        let lags = xrunsAround == 0 ? 0...0 : -server.period...server.period
        // The file from its first frame, then silence.
        assertPlayed(recording, channel: 0, "from the moment (\(xrunsAround.map(String.init) ?? "unknown") xruns around it)", startLags: lags) { position in
            position < 0 ? 0 : position < 20_000 ? expected[0][position] : 0
        }
    }

    /// Ctrl-C (SIGINT) stops playing where it is: exit status 0, the position on the last line;
    /// `--loops -1` plays until then.
    func testInterruptStopsPlayingWhereItIs() throws {
        _ = try writeSignalFile("forever.wav", frames: 10_000, channels: 1)
        let player = try launchJcap(["play", path("forever.wav"), "--name", "pli", "--no-connect", "--loops", "-1"])
        try Self.waitFor("playing") { player.errorOutput.contains("starting at JACK frame") }
        usleep(500_000)
        player.signal(SIGINT)
        XCTAssertEqual(try player.wait(timeout: 10), 0, player.errorOutput)
        let lines = player.errorOutput.split(separator: "\n")
        guard let last = lines.last, let frame = number(after: "stopped at file frame ", in: String(last)) else {
            return XCTFail("no stop line: \(player.errorOutput)")
        }
        XCTAssertTrue((0..<10_000).contains(frame), "a position in the file after looping: \(frame)")
    }
}
