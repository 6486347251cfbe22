import JackCapture
import JackCaptureTestSignal
import XCTest
import jcap

extension JackTestCase {
    /// The first sample of a recording of what a player played that neither holds what it should
    /// nor is excused by what was reported, or nil.
    ///
    /// Both clients share the server, so frames JACK skips are skipped by both: the recorder pads
    /// them with silence and reports them lost, while the player plays on from where it was, behind
    /// the clock from then on. A period the recorder alone missed moves the player ahead of the
    /// recording instead. So samples inside a span the recorder reported (lost, late, uncertain)
    /// or an underrun the player reported are passed over, and past each loss the recording may
    /// hold the played audio at a new lag, within the losses' frames and a period of the last. The
    /// new lag is fixed where it holds for 64 frames that are not silence (silence matches any
    /// lag: a silent stretch of the played file would fix a wrong one); until then a sample must
    /// match at some lag in reach.
    ///
    /// - Parameters:
    ///   - expected: the sample recorded frame `position` should hold when the player lags the
    ///     clock by `lag` frames (nil where it can hold nothing: before or after the audio).
    ///   - positions: the recorded frames checked.
    ///   - underruns: silences the player reported (`jcap play`'s underrun lines, as recorded
    ///     frames): passed over too, and the player lags the clock by them after.
    ///   - startLags: lags the first position may take (a start decided a cycle apart: a period
    ///     either way).
    func firstUnexplainedSample(of recorded: [Float], in positions: Range<Int>, account: TakeAccount, underruns: [LostSpan] = [],
                                tolerance: Float = 1e-6, startLags: ClosedRange<Int> = 0...0,
                                expected: (_ position: Int, _ lag: Int) -> Float?) -> (position: Int, lag: Int)? {
        func matches(_ position: Int, lag: Int) -> Bool {
            expected(position, lag).map { abs(recorded[position] - $0) <= tolerance } ?? false
        }
        let window = 64
        /// Whether the recording sounds in most of the window from `position`: a match there fixes a lag.
        func sounds(_ position: Int) -> Bool {
            recorded[position..<min(position + window, positions.upperBound)].filter { $0 != 0 }.count >= window / 2
        }
        func holds(_ position: Int, lag: Int) -> Bool {
            (position..<min(position + window, positions.upperBound)).allSatisfy { matches($0, lag: lag) }
        }
        let excused = account.lostSpans + account.lateCopySpans + account.uncertainSpans + underruns
        var losses = (account.lostSpans + underruns).sorted { $0.position < $1.position }[...]
        var lag = startLags.lowerBound == startLags.upperBound ? startLags.lowerBound : 0
        // How far the lag may still move: from a loss (or the start) until a sounding stretch fixes it.
        var reach = startLags.lowerBound == startLags.upperBound ? 0 : max(-startLags.lowerBound, startLags.upperBound)
        for position in positions where !excused.contains(where: { $0.position <= position && position < $0.position + $0.frames }) {
            while let loss = losses.first, loss.position + loss.frames <= position {
                reach += Int(loss.frames) + server.period
                losses.removeFirst()
            }
            if reach > 0, sounds(position), let found = ([lag] + Array(lag - reach...lag + reach)).first(where: { holds(position, lag: $0) }) {
                lag = found
                reach = 0
            }
            if matches(position, lag: lag) { continue }
            if reach > 0, (lag - reach...lag + reach).contains(where: { matches(position, lag: $0) }) { continue }
            return (position, lag)
        }
        if !account.reportsNoTrouble || !underruns.isEmpty {
            print("note: \(name): a played recording checked against \(account); underruns \(underruns); \(lag) frames behind at the end")
        }
        return nil
    }

    /// The underruns `jcap play` reported on standard error ("jcap: underrun: N frames of silence
    /// at file frame P (JACK frame J)"), as frames of a recording that started on JACK frame `start`.
    func playerUnderruns(in errors: String, recordingFrom start: UInt32) -> [LostSpan] {
        errors.split(separator: "\n").filter { $0.hasPrefix("jcap: underrun: ") }.compactMap { line in
            guard let frames = number(after: "underrun: ", in: String(line)), let frame = number(after: "(JACK frame ", in: String(line))
            else { return nil }
            return LostSpan(position: Int64(FrameTime.distance(from: start, to: UInt32(truncatingIfNeeded: frame))), frames: frames)
        }
    }

    /// A `Player`'s underruns as frames of a recording from JACK frame `start`.
    func underrunSpans(_ player: Player, recordingFrom start: UInt32) -> [LostSpan] {
        player.underruns.map { LostSpan(position: Int64(FrameTime.distance(from: start, to: $0.jackFrame)), frames: Int64($0.frames)) }
    }

    /// The status `jcap play` exits with by what it reported: 3 after an underrun, 0 otherwise.
    func playerStatus(reportedIn errors: String) -> Int32 {
        errors.contains("jcap: underrun: ") ? ExitStatus.lostFrames.rawValue : 0
    }

    /// Every channel of a sound file in the test's directory, de-interleaved.
    func readChannels(_ name: String) throws -> [[Float]] {
        let sound = try SoundFile.open(readingFrom: path(name))
        var samples = [Float](repeating: 0, count: Int(sound.frames) * sound.channels)
        let read = samples.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: Int(sound.frames)) }
        XCTAssertEqual(read, Int(sound.frames))
        return (0..<sound.channels).map { channel in (0..<read).map { samples[$0 * sound.channels + channel] } }
    }

    /// A recording of what a player played, with what was reported of it.
    struct PlayedRecording {
        var channels: [[Float]]
        /// The recorder's account, for the spans it reported (its ports need not carry the test signal).
        var account: TakeAccount
        /// The player's underruns, as frames of the recording.
        var underruns: [LostSpan]
    }

    /// Starts jcap recording `ports` from `at` (`@FRAME` or a moment) for `frames` frames into
    /// `name`: a float WAV, with `--meter json` so that it reports every span.
    func launchPlaybackRecorder(_ ports: [String], at: String, frames: Int, name: String) throws -> Subprocess {
        try launchJcap(ports.flatMap { ["--port", $0] } + ["--at", at, "--for", "\(frames)f", "--format", "float", "-o", name,
                                                            "--meter", "json"])
    }

    /// Waits for a recorder from `launchPlaybackRecorder`, then for the `jcap play` it records
    /// (if any): each must exit as what it reported calls for (the recorder by its summary, the
    /// player 3 after an underrun). Returns the recording with what both reported.
    func finishPlaybackRecording(_ recorder: Subprocess, player: Subprocess?, name: String, frames: Int,
                                 file: StaticString = #filePath, line: UInt = #line) throws -> PlayedRecording {
        let status = try recorder.wait(timeout: 30)
        if try missedTheStart(recorder) { throw TestFailure("the recorder missed its start, not ready in the lead the test gave: \(recorder.errorOutput)") }
        let account = try summaryAccount(recorder.output, errors: recorder.errorOutput, signalChannel: { _ in 0 }, file: file, line: line)
        XCTAssertEqual(status, exitStatus(reporting: account), recorder.errorOutput, file: file, line: line)
        var underruns: [LostSpan] = []
        if let player {
            XCTAssertEqual(try player.wait(timeout: 30), playerStatus(reportedIn: player.errorOutput), player.errorOutput,
                           file: file, line: line)
            underruns = playerUnderruns(in: player.errorOutput, recordingFrom: account.startFrame)
        }
        let channels = try readChannels(name)
        XCTAssertEqual(channels.first?.count, frames, name, file: file, line: line)
        return PlayedRecording(channels: channels, account: account, underruns: underruns)
    }

    /// Fails unless channel `channel` of `recording` holds `expected(position)` (nil: nothing it
    /// could hold) at every position (of `positions`, or all), exactly, or as what was reported excuses
    /// (`firstUnexplainedSample`).
    func assertPlayed(_ recording: PlayedRecording, channel: Int, _ what: String, positions: Range<Int>? = nil,
                      startLags: ClosedRange<Int> = 0...0, file: StaticString = #filePath, line: UInt = #line,
                      expected: (_ position: Int) -> Float?) {
        let samples = recording.channels[channel]
        let wrong = firstUnexplainedSample(of: samples, in: positions ?? 0..<samples.count, account: recording.account, underruns: recording.underruns,
                                           tolerance: 0, startLags: startLags) { position, lag in expected(position - lag) }
        XCTAssertNil(wrong.map { "frame \($0.position): \(samples[$0.position]), \($0.lag) frames behind" },
                     "\(what); \(recording.account); underruns \(recording.underruns)", file: file, line: line)
    }
}
