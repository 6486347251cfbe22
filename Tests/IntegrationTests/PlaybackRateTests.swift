import Foundation
import XCTest
@testable import JackCapture
import jcap

/// Varispeed (`jcap play --rate`, `Player.enableRate` and `rate`) and files at another sample
/// rate than the server's, against a private dummy server: the player's ports are recorded by
/// jcap and compared sample by sample with libsamplerate run offline on the same file, through
/// the same wrapper (`SampleRateConverter`) at the same quality.
final class PlaybackRateTests: JackTestCase {
    /// The sine's frequency in the file: 100 Hz (at the file's own rate).
    static let sineHertz = 100.0

    /// A float WAV of a 100 Hz sine around 0.5 (0.25 to 0.75: never zero, so the played span is
    /// where the recording is not silent), each channel a different phase; returns it interleaved.
    @discardableResult
    /// `swelling`: the sine's amplitude grows from half to whole over the file, so no stretch of
    /// the file (or of its conversion) repeats another, as a steady sine's periods do.
    func writeSineFile(_ name: String, frames: Int, channels: Int = 1, sampleRate: Int? = nil, swelling: Bool = false) throws -> [Float] {
        let rate = sampleRate ?? server.sampleRate
        let file = path(name)
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: channels, sampleRate: rate, overwrite: true)
        var samples = [Float](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let amplitude = swelling ? 0.125 + 0.125 * Double(frame) / Double(frames) : 0.25
                samples[frame * channels + channel] = Float(0.5 + amplitude * sin(2 * Double.pi * Self.sineHertz * Double(frame) / Double(rate)
                                                                                  + Double(channel)))
            }
        }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.close()
        return samples
    }

    /// libsamplerate offline over the whole of `interleaved`, de-interleaved: what the player
    /// should play for it.
    func offline(_ interleaved: [Float], channels: Int, inputRate: Int, outputRate: Int,
                 quality: SampleRateConverterQuality = .best) throws -> [[Float]] {
        let converter = try SampleRateConverter(channels: channels, inputRate: inputRate, outputRate: outputRate, quality: quality)
        var output: [Float] = []
        try interleaved.withUnsafeBufferPointer { buffer throws(CaptureError) in
            try converter.convert(buffer.baseAddress!, frames: interleaved.count / channels) {
                output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1 * channels))
            }
        }
        try converter.finish { output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1 * channels)) }
        return (0..<channels).map { channel in stride(from: channel, to: output.count, by: channels).map { output[$0] } }
    }

    /// Rising crossings of 0.5 per second of `samples` at `sampleRate`: the sine's frequency.
    func sineFrequency(_ samples: ArraySlice<Float>, sampleRate: Int) -> Double {
        let centred = samples.map { $0 - 0.5 }
        var crossings: [Double] = []
        for index in 1..<centred.count where centred[index - 1] < 0 && centred[index] >= 0 {
            crossings.append(Double(index - 1) + Double(centred[index - 1] / (centred[index - 1] - centred[index])))
        }
        guard crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * Double(sampleRate)
    }

    func waitForPorts(_ names: [String]) throws {
        try Self.waitFor("ports \(names)") { names.allSatisfy { observer.audioOutputPorts().contains($0) } }
    }

    /// Whether nothing was reported of a recording: its sine's frequency is measured only then
    /// (a lost period moves the crossings).
    func isUndisturbed(_ recording: PlayedRecording) -> Bool { recording.account.reportsNoTrouble && recording.underruns.isEmpty }

    /// `expected` from recorded frame `offset` on, silence around it: what a recording that
    /// began `offset` frames before the player should hold at `position`.
    func played(_ expected: [Float], from offset: Int, at position: Int) -> Float? {
        position < 0 ? nil : position < offset ? 0 : position - offset < expected.count ? expected[position - offset] : 0
    }

    /// `jcap play --rate 2` with two files (mono and stereo, F = 30001 frames): each port plays
    /// round(F / 2) = 15001 frames from the start frame on, libsamplerate's offline output sample
    /// for sample, all three in sync; the 100 Hz sine comes out at 200 Hz (pitch follows).
    func testRateTwoPlaysHalfTheFramesAnOctaveUpInSync() throws {
        let frames = 30_001
        let played = 15_001
        // Checked against what the recorder and the player reported (`assertPlayed`), as every
        // recording of a player here; the sines swell, so that no stretch repeats another.
        let mono = try writeSineFile("fast-a.wav", frames: frames, swelling: true)
        let stereo = try writeSineFile("fast-b.wav", frames: frames, channels: 2, swelling: true)
        let expectedMono = try offline(mono, channels: 1, inputRate: 2, outputRate: 1)
        let expectedStereo = try offline(stereo, channels: 2, inputRate: 2, outputRate: 1)
        XCTAssertEqual(expectedMono[0].count, played)
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("fast-a.wav"), path("fast-b.wav"), "--name", "plr", "--no-connect",
                                     "--at", "@\(start)", "--rate", "2"])
        let ports = ["plr:out_1", "plr:out_2", "plr:out_3"]
        try waitForPorts(ports)
        let recorder = try launchPlaybackRecorder(ports, at: "@\(FrameTime.advance(start, by: -1_000))", frames: played + 2_000, name: "fast.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "fast.wav", frames: played + 2_000)
        XCTAssertTrue(player.errorOutput.contains("played to file frame \(frames)"), player.errorOutput)
        XCTAssertEqual(recording.channels.count, 3)
        guard recording.channels.count == 3 else { return }
        // round(F / 2) frames from the start frame, libsamplerate's output sample for sample, silence around them.
        for (channel, expected) in [expectedMono[0], expectedStereo[0], expectedStereo[1]].enumerated() {
            assertPlayed(recording, channel: channel, "channel \(channel + 1)") { self.played(expected, from: 1_000, at: $0) }
        }
        if isUndisturbed(recording) {
            XCTAssertEqual(sineFrequency(recording.channels[0][2_000..<14_000], sampleRate: server.sampleRate), 2 * Self.sineHertz,
                           accuracy: 0.5, "an octave up")
        }
    }

    /// `--src-quality fastest`: the reader converts with that converter: the recording is
    /// libsamplerate's fastest sinc run offline, sample for sample, and not its best.
    func testTheConverterQualityIsTheOneAsked() throws {
        let frames = 20_000
        let samples = try writeSineFile("quality.wav", frames: frames, swelling: true)
        let fastest = try offline(samples, channels: 1, inputRate: 2, outputRate: 1, quality: .fastest)[0]
        let best = try offline(samples, channels: 1, inputRate: 2, outputRate: 1)[0]
        XCTAssertNotEqual(fastest, best, "the two converters differ on this file")
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("quality.wav"), "--name", "plq", "--no-connect", "--at", "@\(start)",
                                     "--rate", "2", "--src-quality", "fastest"])
        try waitForPorts(["plq:out_1"])
        let recorder = try launchPlaybackRecorder(["plq:out_1"], at: "@\(start)", frames: fastest.count, name: "quality-take.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "quality-take.wav", frames: fastest.count)
        assertPlayed(recording, channel: 0, "libsamplerate's fastest") { self.played(fastest, from: 0, at: $0) }
        let bad = try runJcap(["play", path("quality.wav"), "--src-quality", "finest"])
        XCTAssertEqual(bad.status, 64, bad.errors)
        XCTAssertTrue(bad.errors.contains("--src-quality"), bad.errors)
    }

    /// `--loops 1 --rate 1.5`: the two copies are one converter stream (no flush at the wrap):
    /// sample for sample libsamplerate's offline output of the file twice over, round(2F / 1.5)
    /// frames, and jcap ends at the file's last frame.
    func testLoopsAtARateAreSeamless() throws {
        let frames = 12_345
        let ratio = try XCTUnwrap(PlaybackRate(1.5).converterRates(fileRate: server.sampleRate, serverRate: server.sampleRate))
        let played = Int(SampleRateConverter.outputLength(forInputFrames: Int64(2 * frames), inputRate: ratio.input,
                                                          outputRate: ratio.output))
        XCTAssertEqual(played, 16_460)
        let samples = try writeSineFile("loop.wav", frames: frames, swelling: true)
        let expected = try offline(samples + samples, channels: 1, inputRate: ratio.input, outputRate: ratio.output)[0]
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("loop.wav"), "--name", "prl", "--no-connect", "--at", "@\(start)",
                                     "--loops", "1", "--rate", "1.5"])
        try waitForPorts(["prl:out_1"])
        let recorder = try launchPlaybackRecorder(["prl:out_1"], at: "@\(FrameTime.advance(start, by: -1_000))", frames: played + 2_000,
                                                  name: "loop-take.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "loop-take.wav", frames: played + 2_000)
        XCTAssertTrue(player.errorOutput.contains("played to file frame \(frames)"), player.errorOutput)
        assertPlayed(recording, channel: 0, "two copies as one stream, round(2F / 1.5) frames") { self.played(expected, from: 1_000, at: $0) }
    }

    /// A file at 44.1 kHz on the 48 kHz server plays at its own speed: F frames become
    /// round(F × 48000 / 44100), libsamplerate's offline output sample for sample, the sine
    /// still 100 Hz; positions are the file's frames.
    func testAFileAtAnotherSampleRateIsResampledToTheServers() throws {
        let frames = 44_100 + 7
        let played = Int(SampleRateConverter.outputLength(forInputFrames: Int64(frames), inputRate: 44_100, outputRate: 48_000))
        XCTAssertEqual(played, 48_008)
        let samples = try writeSineFile("cd.wav", frames: frames, sampleRate: 44_100, swelling: true)
        let expected = try offline(samples, channels: 1, inputRate: 44_100, outputRate: 48_000)[0]
        let start = frameAhead(3)
        let player = try launchJcap(["play", path("cd.wav"), "--name", "plcd", "--no-connect", "--at", "@\(start)"])
        try waitForPorts(["plcd:out_1"])
        let recorder = try launchPlaybackRecorder(["plcd:out_1"], at: "@\(FrameTime.advance(start, by: -1_000))", frames: played + 2_000,
                                                  name: "cd-take.wav")
        let recording = try finishPlaybackRecording(recorder, player: player, name: "cd-take.wav", frames: played + 2_000)
        XCTAssertTrue(player.errorOutput.contains("44100 Hz, \(frames) frames, resampled to 48000 Hz"), player.errorOutput)
        XCTAssertTrue(player.errorOutput.contains("played to file frame \(frames)"), player.errorOutput)
        assertPlayed(recording, channel: 0, "resampled, round(F × 48000 / 44100) frames") { self.played(expected, from: 1_000, at: $0) }
        if isUndisturbed(recording) {
            XCTAssertEqual(sineFrequency(recording.channels[0][2_000..<40_000], sampleRate: server.sampleRate), Self.sineHertz, accuracy: 0.5)
        }
    }

    /// A rate out of range: one line naming the value and the range, exit status 64 (as
    /// `--volume 1.5`), and no JACK client made (the server named does not exist: asking it would
    /// be status 10).
    func testARateOutOfRangeIsRefusedBeforeAnythingPlays() throws {
        writeSineFileQuietly("ok.wav")
        for (value, shown) in [("3", "3.0"), ("0.2", "0.2")] {
            let refused = try runJcap(["play", path("ok.wav"), "--server", "no-such-server", "--rate", value])
            XCTAssertEqual(refused.status, ExitStatus.usage.rawValue, refused.errors)
            XCTAssertEqual(refused.errors.split(separator: "\n"), ["jcap: error: bad --rate '\(shown)': use a rate from 0.5 to 2.0"])
        }
        let inRange = try runJcap(["play", path("ok.wav"), "--server", "no-such-server", "--rate", "2"])
        XCTAssertEqual(inRange.status, ExitStatus.noServer.rawValue, "a rate in range goes on to JACK: \(inRange.errors)")
    }

    /// Files played together must share a sample rate (their frames are one position): two at
    /// different rates are refused with one line, status 16, before JACK is asked.
    func testFilesAtDifferentRatesTogetherAreRefused() throws {
        try writeSineFile("at48.wav", frames: 100)
        try writeSineFile("at44.wav", frames: 100, sampleRate: 44_100)
        let refused = try runJcap(["play", path("at48.wav"), path("at44.wav"), "--server", "no-such-server"])
        XCTAssertEqual(refused.status, ExitStatus.unsupportedFormat.rawValue, refused.errors)
        XCTAssertEqual(refused.errors.split(separator: "\n"),
                       ["jcap: error: '\(path("at44.wav"))' is at 44100 Hz and '\(path("at48.wav"))' at 48000 Hz: "
                        + "files played together must share a sample rate"])
    }

    private func writeSineFileQuietly(_ name: String) {
        XCTAssertNoThrow(try writeSineFile(name, frames: 100))
    }

    // MARK: The Player API

    final class Finish: PlayerDelegate, @unchecked Sendable {
        let lock = NSLock()
        var results: [Bool] = []
        func playerDidFinishPlaying(_ player: Player, successfully: Bool) { lock.withLock { results.append(successfully) } }
        var finished: [Bool] { lock.withLock { results } }
    }

    func makePlayer(_ name: String, client: String, rate: Float) throws -> Player {
        let player = try Player(contentsOf: URL(fileURLWithPath: path(name)))
        player.enableRate = true
        player.rate = rate
        try player.prepareToPlay(clientName: client, server: server.name, outputs: .none)
        return player
    }

    /// Rate 0.5 doubles the length (F = 20001 frames play 40002), libsamplerate's offline output
    /// sample for sample, the sine at 50 Hz; `duration` and the end position stay the file's.
    func testRateHalfDoublesTheLength() throws {
        let frames = 20_001
        let samples = try writeSineFile("slow.wav", frames: frames, swelling: true)
        let expected = try offline(samples, channels: 1, inputRate: 1, outputRate: 2)[0]
        XCTAssertEqual(expected.count, 2 * frames)
        let player = try makePlayer("slow.wav", client: "prs", rate: 0.5)
        defer { player.close() }
        let finish = Finish()
        player.delegate = finish
        XCTAssertEqual(player.rate, 0.5)
        XCTAssertEqual(player.duration, Double(frames) / Double(server.sampleRate), "the file's seconds")
        let start = frameAhead(3)
        let recordingStart = FrameTime.advance(start, by: -1_000)
        let recorder = try launchPlaybackRecorder(["prs:out_1"], at: "@\(recordingStart)", frames: 2 * frames + 2_000, name: "slow-take.wav")
        try player.play(atFrame: start)
        var recording = try finishPlaybackRecording(recorder, player: nil, name: "slow-take.wav", frames: 2 * frames + 2_000)
        try Self.waitFor("the end") { finish.finished == [true] }
        recording.underruns = underrunSpans(player, recordingFrom: recordingStart)
        assertPlayed(recording, channel: 0, "rate 0.5, round(F / 0.5) frames") { self.played(expected, from: 1_000, at: $0) }
        if isUndisturbed(recording) {
            XCTAssertEqual(sineFrequency(recording.channels[0][2_000..<40_000], sampleRate: server.sampleRate), Self.sineHertz / 2, accuracy: 0.5)
        }
        XCTAssertEqual(player.currentFrame, 0, "back to the start at the end")
    }

    /// Seeks at rate 2 land on the file frame asked for: while stopped, currentFrame reads it
    /// back and what plays from the start frame is the file from there (libsamplerate's offline
    /// output of the file from that frame); while playing, after the catch-up silence, what
    /// plays is again the file from the frame asked for, and currentFrame counts on from it in
    /// file frames, twice as fast as JACK's frames.
    func testSeeksAtARateLandOnTheFileFrameAsked() throws {
        let frames = 96_000
        let samples = try writeSineFile("seek.wav", frames: frames, swelling: true)
        let player = try makePlayer("seek.wav", client: "prk", rate: 2)
        defer { player.close() }
        player.currentFrame = 12_345
        XCTAssertEqual(player.currentFrame, 12_345)
        let fromStop = try offline(Array(samples[12_345...]), channels: 1, inputRate: 2, outputRate: 1)[0]
        let fromSeek = try offline(Array(samples[60_000...]), channels: 1, inputRate: 2, outputRate: 1)[0]
        let start = frameAhead(3)
        let recorder = try launchPlaybackRecorder(["prk:out_1"], at: "@\(start)", frames: 40_000, name: "seek-take.wav")
        try player.play(atFrame: start)
        waitUntil(FrameTime.advance(start, by: 10_000))
        // JACK's clock read on both sides of currentFrame: the test's thread may wait between.
        let readFrom = FrameTime.distance(from: start, to: observer.estimatedFrameTime)
        let playing = player.currentFrame
        let readUntil = FrameTime.distance(from: start, to: observer.estimatedFrameTime)
        XCTAssertTrue((12_345 + 2 * (Int(readFrom) - 4_096)...12_345 + 2 * (Int(readUntil) + 4_096)).contains(Int(playing)),
                      "file frames advance twice as fast as JACK's: \(playing) read between JACK frames \(readFrom) and \(readUntil)")
        player.currentFrame = 60_000
        XCTAssertEqual(player.currentFrame, 60_000, "read back at once")
        var recording = try finishPlaybackRecording(recorder, player: nil, name: "seek-take.wav", frames: 40_000)
        recording.underruns = underrunSpans(player, recordingFrom: start)
        let take = recording.channels[0]
        // The file from 12345 until the seek: where the recording departs from it.
        guard let (jump, _) = firstUnexplainedSample(of: take, in: 0..<take.count, account: recording.account,
                                                     underruns: recording.underruns, tolerance: 0, expected: { position, lag in
            self.played(fromStop, from: 0, at: position - lag)
        }) else { return XCTFail("the seek never happened") }
        XCTAssertGreaterThanOrEqual(jump, 10_000, "the file from 12345 until the seek")
        // How soon the reader catches up is the machine's to say, not asserted here.
        guard let resumed = (jump..<take.count).first(where: { take[$0] != 0 }) else { return XCTFail("nothing after the seek") }
        assertPlayed(recording, channel: 0, "from file frame 60000 on", positions: resumed..<take.count) { position in
            position < resumed ? nil : self.played(fromSeek, from: resumed, at: position)
        }
        XCTAssertFalse(recording.underruns.contains { $0.position < Int64(resumed) && $0.position + $0.frames > Int64(jump) },
                       "the catch-up after a seek is not an underrun: \(recording.underruns), \(jump)..<\(resumed)")
    }

    /// `rate` changed while playing: a seek to the frame due when the callback takes it, at the
    /// new rate. The recording is rate 2 up to the change (output frame k is file frame 2k), a
    /// short silence, then the rest of the file at rate 1, bit for bit the file, from exactly the
    /// file frame after the last one played at rate 2: nothing played twice, nothing skipped.
    func testChangingTheRateWhilePlayingContinuesFromTheFramePlaying() throws {
        let frames = 96_000
        let samples = try writeSineFile("change.wav", frames: frames, swelling: true)
        let player = try makePlayer("change.wav", client: "prc", rate: 2)
        defer { player.close() }
        let start = frameAhead(3)
        let recorder = try launchPlaybackRecorder(["prc:out_1"], at: "@\(start)", frames: 60_000, name: "change-take.wav")
        try player.play(atFrame: start)
        waitUntil(FrameTime.advance(start, by: 10_000))
        let changeFrom = observer.estimatedFrameTime
        player.rate = 1
        let changedAt = player.currentFrame
        // JACK frames between the change and its reading: the test's thread may wait between.
        let readLate = Int(FrameTime.distance(from: changeFrom, to: observer.estimatedFrameTime))
        XCTAssertEqual(player.rate, 1)
        var recording = try finishPlaybackRecording(recorder, player: nil, name: "change-take.wav", frames: 60_000)
        recording.underruns = underrunSpans(player, recordingFrom: start)
        let take = recording.channels[0]
        let fast = try offline(samples, channels: 1, inputRate: 2, outputRate: 1)[0]
        // Rate 2 until the change: where the recording departs from it, `lag` output frames behind the clock.
        let (gapStart, lag) = firstUnexplainedSample(of: take, in: 0..<take.count, account: recording.account,
                                                     underruns: recording.underruns, tolerance: 0, expected: { position, lag in
            self.played(fast, from: 0, at: position - lag)
        }) ?? (take.count, 0)
        XCTAssertGreaterThan(gapStart, 9_000, "rate 2 until the change")
        guard let resumed = (gapStart..<take.count).first(where: { take[$0] != 0 }) else {
            return XCTFail("nothing after the change (rate 2 until output frame \(gapStart))")
        }
        // How soon the reader catches up is the machine's to say, not asserted here.
        // The frame due: the file frame after the last one played at rate 2.
        let due = 2 * (gapStart - lag)
        guard resumed + 20_000 <= take.count, due + 20_000 <= samples.count else { return XCTFail("resumed too late, at \(resumed)") }
        assertPlayed(recording, channel: 0, "the file as it is from frame \(due), the frame after the last played at rate 2",
                     positions: resumed..<(resumed + 20_000)) { position in position < resumed ? nil : samples[due + position - resumed] }
        // Read just after the change: the frame the callback was at then (two cycles' leeway), and
        // at rate 1 one file frame on for each JACK frame the reading came late.
        XCTAssertTrue((due - 2 * 1_024...due + readLate + 2 * 1_024).contains(Int(changedAt)),
                      "currentFrame is the file frame playing: \(changedAt), due \(due), read \(readLate) frames after the change")
    }

    /// A reader slowed by the test hook at rate 2: the callback plays silence instead, each
    /// silence reported at the file frame that was due (twice the output frames played before
    /// it: file frames, not output frames); with the silences taken out the recording is
    /// libsamplerate's offline output, nothing repeated or skipped. Checked against what the
    /// recording jcap reported, not repeated on xruns: across a span it reported lost, late or
    /// uncertain the output may go on by at most the span's frames, and an underrun there is not
    /// seen whole; everywhere else it is exact.
    func testUnderrunsAtARateAreReportedAtFileFrames() throws {
        let frames = 4 * 48_000
        // Swelling: the output's 16 samples after a reported span name one output frame only.
        let samples = try writeSineFile("under.wav", frames: frames, swelling: true)
        let expected = try offline(samples, channels: 1, inputRate: 2, outputRate: 1)[0]
        let player = try Player(contentsOf: URL(fileURLWithPath: path("under.wav")))
        player.enableRate = true
        player.rate = 2
        try player.prepareToPlay(clientName: "pru", server: server.name, outputs: .none, bufferSeconds: 0.1)
        defer { player.close() }
        // Each step (a chunk converted, or a block written) then 60 ms: a 4096-frame block
        // (85 ms) about every 120 ms, so the reader runs at about 0.7 times real time.
        player.readerDelayMicroseconds = 60_000
        let start = frameAhead(3)
        let (take, account) = try recordPlaying(player, port: "pru:out_1", start: start, frames: 4 * 48_000, name: "under-take.wav")
        let reported = account.lostSpans + account.lateCopySpans + account.uncertainSpans
        func isReported(_ index: Int) -> Bool { reported.contains { $0.position <= index && index < $0.position + $0.frames } }
        var played = 0  // the output frame due next
        var silences: [PlaybackUnderrun] = []  // seen whole, between two played frames with nothing reported
        var excused: [ClosedRange<Int>] = []   // output frames due across a reported span
        var index = 0
        while index < take.count && played < expected.count {
            let begin = index
            var reportedFrames = 0
            // The sine is never 0: a 0 is silence, unless the converter's padded last frame.
            while index < take.count && ((take[index] == 0 && expected[played] != 0) || isReported(index)) {
                if isReported(index) { reportedFrames += 1 }
                index += 1
            }
            guard index < take.count else { break }
            var next = played
            if reportedFrames > 0 {
                // The output frame the recording goes on with: the one whose next 16 samples it holds.
                let run = min(16, take.count - index)
                guard let found = (played...min(played + reportedFrames, expected.count - 1)).first(where: { candidate in
                    (0..<run).allSatisfy { candidate + $0 < expected.count && take[index + $0] == expected[candidate + $0] }
                }) else {
                    return XCTFail("recorded frame \(index) is no output frame from \(played) on across \(reportedFrames) reported frames")
                }
                excused.append(played...found)
                next = found
            } else if index > begin {
                silences.append(PlaybackUnderrun(position: Int64(2 * played), jackFrame: FrameTime.advance(start, by: begin),
                                                 frames: index - begin))
            }
            guard take[index] == expected[next] else {
                let near = (max(0, next - 4_096)..<min(expected.count, next + 4_096)).filter { expected[$0] == take[index] }
                return XCTFail("recorded frame \(index) is not output frame \(next) (it is output frame \(near)): a repeated or skipped frame; "
                               + "underruns \(player.underruns); \(account)")
            }
            played = next + 1
            index += 1
        }
        XCTAssertEqual(played, expected.count, "every output frame was played")
        XCTAssertGreaterThan(player.underruns.count, 1)
        assertUnderrunsAccountedFor(player.underruns, silences: silences, excused: excused, take: take, checkedUpTo: index,
                                    start: start, fileFrames: frames, filePerOutput: 2, account: account)
    }

    func waitUntil(_ frame: UInt32) {
        while FrameTime.distance(from: observer.estimatedFrameTime, to: frame) > 0 { usleep(5_000) }
    }
}
