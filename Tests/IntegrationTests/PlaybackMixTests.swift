import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// `jcap play SESSION --take N --mix`: every track of a take summed onto one stereo pair, each
/// at its pan, recorded with jcap from the start frame and checked sample by sample.
final class PlaybackMixTests: JackTestCase {
    func writeSession() throws -> String {
        let session = path("mixing.toml")
        try """
            [session]
            name = "mixing"
            format = "wav"
            bit_depth = "float"

            [[track]]
            name = "Kick"
            source = "sig:out_1"
            pan = -0.5

            [[track]]
            name = "Bass"
            source = "sig:out_2"

            [[track]]
            name = "OH L"
            source = "sig:out_3"
            group = "overheads"
            pan = 0.25

            [[track]]
            name = "OH R"
            source = "sig:out_4"
            group = "overheads"
            """.write(toFile: session, atomically: true, encoding: .utf8)
        return session
    }

    /// The mix as the player sums it: the files in order, each channel times its gain.
    static func expectedMix(_ files: [[[Float]]], pans: [Float], audible: Set<Int>? = nil, frames: Int) -> [[Float]] {
        var mix = PlaybackMix(pans: pans)
        if let audible { mix.soloed = audible }
        var outputs = [[Float]](repeating: [Float](repeating: 0, count: frames), count: 2)
        for (index, channels) in files.enumerated() {
            for output in 0..<2 {
                let gain = mix.gain(file: index, channels: channels.count, output: output, volume: 1)
                let source = channels.count == 1 ? channels[0] : channels[output]
                for frame in 0..<frames { outputs[output][frame] += source[frame] * gain }
            }
        }
        return outputs
    }

    func testATakeMixesToOneStereoPairAtEachTracksPan() throws {
        let session = try writeSession()
        let recording = try runJcap(["session", session, "--for", "24000f", "--meter", "none"])
        // The take the mix is made of: its status is the one its log entry calls for (an xrun in
        // it is reported there; the mix is compared with the files as they are).
        try assertStatusMatchesLog(recording, folder: path("mixing"))
        let files = try ["mixing/take-001-Kick.wav", "mixing/take-001-Bass.wav", "mixing/take-001-overheads.wav"].map(readChannels)
        XCTAssertEqual(files.map(\.count), [1, 1, 2])
        let expected = Self.expectedMix(files, pans: [-0.5, 0, 0.25], frames: 24_000)
        // The test signal differs from sample to sample, and the pans differ: a frame off, or a
        // track on the wrong side, shows.
        XCTAssertNotEqual(expected[0], expected[1])
        // Checked against what the recorder and the player reported (`firstUnexplainedSample`).
        let start = frameAhead(3)
        let player = try launchJcap(["play", session, "--take", "1", "--mix", "--name", "plm", "--no-connect", "--at", "@\(start)"])
        try Self.waitFor("the mix's ports") { ["plm:mix_L", "plm:mix_R"].allSatisfy(observer.audioOutputPorts().contains) }
        XCTAssertFalse(observer.audioOutputPorts().contains("plm:Kick"), "no port of its own for a mixed track")
        let recordingStart = FrameTime.advance(start, by: -500)
        let (mixed, account) = try recordMix(of: "plm", from: recordingStart, frames: 25_000, into: "mixed.wav")
        XCTAssertEqual(try player.wait(timeout: 30), playerStatus(reportedIn: player.errorOutput), player.errorOutput)
        let underruns = playerUnderruns(in: player.errorOutput, recordingFrom: recordingStart)
        for output in 0..<2 {
            // Silence before the start and after the end, the mix between.
            let wrong = firstUnexplainedSample(of: mixed[output], in: 0..<mixed[output].count, account: account, underruns: underruns) {
                position, lag in
                (0..<24_000).contains(position - 500 - lag) ? expected[output][position - 500 - lag] : 0
            }
            XCTAssertNil(wrong.map { "frame \($0.position): \(mixed[output][$0.position]), \($0.lag) frames behind" },
                         "\(output == 0 ? "left" : "right"): silence, the mix from frame 500, silence; \(account); \(player.errorOutput)")
        }
        let refused = try runJcap(["play", path("mixing/take-001-Kick.wav"), "--mix"])
        XCTAssertEqual(refused.status, 64, refused.errors)
        XCTAssertTrue(refused.errors.contains("--take N and a session file"), refused.errors)
    }

    /// The library's solo: soloing the bass leaves it alone in the mix.
    func testSoloAndMuteInTheLibrarysMix() throws {
        let session = try writeSession()
        let recording = try runJcap(["session", session, "--for", "12000f", "--meter", "none"])
        // The take the mix is made of: its status is the one its log entry calls for (an xrun in
        // it is reported there; the mix is compared with the files as they are).
        try assertStatusMatchesLog(recording, folder: path("mixing"))
        let names = ["mixing/take-001-Kick.wav", "mixing/take-001-Bass.wav", "mixing/take-001-overheads.wav"]
        let files = try names.map(readChannels)
        let soloBass = Self.expectedMix(files, pans: [-0.5, 0, 0.25], audible: [1], frames: 12_000)
        let player = try Player(contentsOf: names.map { URL(fileURLWithPath: path($0)) })
        defer { player.close() }
        try player.prepareToPlay(clientName: "pls", server: server.name, outputs: .none,
                                 mix: PlaybackMix(pans: [-0.5, 0, 0.25]))
        player.setSoloed(true, file: 1)
        XCTAssertEqual(player.mix?.soloed, [1])
        let start = frameAhead(3)
        let (soloed, account) = try recordMix(of: "pls", from: start, frames: 12_000, into: "solo.wav") { try player.play(atFrame: start) }
        try Self.waitFor("the end", timeout: 30) { !player.isPlaying }
        let underruns = player.underruns.map { LostSpan(position: Int64(FrameTime.distance(from: start, to: $0.jackFrame)), frames: Int64($0.frames)) }
        for output in 0..<2 {
            let wrong = firstUnexplainedSample(of: soloed[output], in: 0..<soloed[output].count, account: account, underruns: underruns) {
                position, lag in
                (0..<12_000).contains(position - lag) ? soloBass[output][position - lag] : 0
            }
            XCTAssertNil(wrong.map { "frame \($0.position): \(soloed[output][$0.position]), \($0.lag) frames behind" },
                         "\(output == 0 ? "left" : "right"), bass soloed; \(account); underruns \(player.underruns)")
        }
    }

    /// The keys of a mix, piped as a person types them: `s 2` solos the bass, then `2` mutes it
    /// too. The recording is the whole mix before, the bass alone after the solo, and silence
    /// after the mute (each checked away from the 10 ms ramps).
    func testDigitKeysMuteAndSoloTracksOfTheMix() throws {
        let session = try writeSession()
        let rate = server.sampleRate
        let frames = 3 * rate
        let recording = try runJcap(["session", session, "--for", "\(frames)f", "--meter", "none"])
        // The take the mix is made of: its status is the one its log entry calls for (an xrun in
        // it is reported there; the mix is compared with the files as they are).
        try assertStatusMatchesLog(recording, folder: path("mixing"))
        let files = try ["mixing/take-001-Kick.wav", "mixing/take-001-Bass.wav", "mixing/take-001-overheads.wav"].map(readChannels)
        let whole = Self.expectedMix(files, pans: [-0.5, 0, 0.25], frames: frames)
        let bassAlone = Self.expectedMix(files, pans: [-0.5, 0, 0.25], audible: [1], frames: frames)
        let start = frameAhead(3)
        let keys = Pipe()
        let player = try Subprocess(try Executables.built("jcap"),
                                    ["play", session, "--take", "1", "--mix", "--name", "plk", "--no-connect", "--at", "@\(start)"],
                                    server: server.name, directory: directory, standardInput: keys.fileHandleForReading)
        try Self.waitFor("the mix's ports") { ["plk:mix_L", "plk:mix_R"].allSatisfy(observer.audioOutputPorts().contains) }
        let (keyed, account) = try recordMix(of: "plk", from: start, frames: frames, into: "keyed.wav") {
            func press(_ text: String, at seconds: Double) {
                while FrameTime.distance(from: observer.estimatedFrameTime,
                                         to: FrameTime.advance(start, by: Int(seconds * Double(rate)))) > 0 {
                    usleep(5_000)
                }
                keys.fileHandleForWriting.write(Data(text.utf8))
            }
            press("s", at: 0.9)
            press("2", at: 1.0)
            press("2", at: 2.0)
        }
        XCTAssertEqual(try player.wait(timeout: 30), playerStatus(reportedIn: player.errorOutput), player.errorOutput)
        let underruns = playerUnderruns(in: player.errorOutput, recordingFrom: start)
        // The keys act on the clock; what plays is the file where the player is, which lags the
        // clock past a loss.
        let stretches: [(what: String, positions: Range<Int>, mix: [[Float]]?)] = [
            ("the whole mix", 0..<(rate * 8 / 10), whole),
            ("the bass soloed", (rate * 13 / 10)..<(rate * 19 / 10), bassAlone),
            ("the soloed bass muted", (rate * 23 / 10)..<frames, nil),
        ]
        for (what, positions, mix) in stretches {
            for output in 0..<2 {
                let wrong = firstUnexplainedSample(of: keyed[output], in: positions, account: account, underruns: underruns) { position, lag in
                    guard let mix else { return 0 }
                    return (0..<frames).contains(position - lag) ? mix[output][position - lag] : nil
                }
                XCTAssertNil(wrong.map { "frame \($0.position): \(keyed[output][$0.position]), \($0.lag) frames behind" },
                             "\(output == 0 ? "left" : "right"), \(what); \(account); \(player.errorOutput)")
            }
        }
    }

    /// Records the mix ports `client:mix_L` and `client:mix_R` with jcap (float, `--meter json`)
    /// from JACK frame `start` for `frames` frames, running `during` meanwhile. Returns both
    /// channels and jcap's account of the take (its exit status, length and start checked).
    func recordMix(of client: String, from start: UInt32, frames: Int, into name: String, line: UInt = #line,
                   during: () throws -> Void = {}) throws -> (channels: [[Float]], account: TakeAccount) {
        let recorder = try launchPlaybackRecorder(["\(client):mix_L", "\(client):mix_R"], at: "@\(start)", frames: frames, name: name)
        try during()
        let recording = try finishPlaybackRecording(recorder, player: nil, name: name, frames: frames, line: line)
        XCTAssertEqual(recording.account.startFrame, start, line: line)
        return (recording.channels, recording.account)
    }
}
