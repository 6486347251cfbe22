import JackCapture
import JackCaptureTestSignal
import XCTest

extension JackTestCase {
    /// Records `port` with jcap (float, `--meter json`) from JACK frame `start` for `frames`
    /// frames into `name` while `player` plays from that frame, and waits for both. Returns the
    /// recording's first channel and jcap's account of it (its exit status and start checked).
    func recordPlaying(_ player: Player, port: String, start: UInt32, frames: Int, name: String,
                       file: StaticString = #filePath, line: UInt = #line) throws -> (take: [Float], account: TakeAccount) {
        let recorder = try launchJcap(["--port", port, "--at", "@\(start)", "--for", "\(frames)f", "--format", "float",
                                       "-o", name, "--meter", "json"])
        try player.play(atFrame: start)
        let status = try recorder.wait(timeout: 30)
        if try missedTheStart(recorder) { throw TestFailure("the recorder missed its start, not ready in the lead the test gave: \(recorder.errorOutput)") }
        let account = try summaryAccount(recorder.output, errors: recorder.errorOutput, file: file, line: line)
        XCTAssertEqual(status, exitStatus(reporting: account), recorder.errorOutput, file: file, line: line)
        XCTAssertEqual(account.startFrame, start, file: file, line: line)
        try Self.waitFor("the end", timeout: 30) { !player.isPlaying }
        let sound = try SoundFile.open(readingFrom: path(name))
        var samples = [Float](repeating: 0, count: Int(sound.frames) * sound.channels)
        _ = samples.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: Int(sound.frames)) }
        return (stride(from: 0, to: samples.count, by: sound.channels).map { samples[$0] }, account)
    }

    /// A slow reader's underruns against a recording of the player's output (`take`, recorded
    /// from JACK frame `start`, read up to frame `checkedUpTo`): every silence seen whole between
    /// two played frames (`silences`) is an underrun the player reported, and every underrun it
    /// reported was seen whole, or fell across a span the recorder reported (`excused`, in output
    /// frames: `filePerOutput` file frames each, the rate), or came at the file's end
    /// (`fileFrames`: the reader yet to say it ended), where the recording must be silent.
    func assertUnderrunsAccountedFor(_ underruns: [PlaybackUnderrun], silences: [PlaybackUnderrun], excused: [ClosedRange<Int>],
                                     take: [Float], checkedUpTo: Int, start: UInt32, fileFrames: Int, filePerOutput: Int,
                                     account: TakeAccount, file: StaticString = #filePath, line: UInt = #line) {
        let atTheEnd = underruns.filter { $0.position >= Int64(fileFrames) }
        for underrun in atTheEnd {
            let from = Int(FrameTime.distance(from: start, to: underrun.jackFrame))
            XCTAssertTrue(from >= checkedUpTo && take[min(from, take.count)..<min(from + underrun.frames, take.count)].allSatisfy { $0 == 0 },
                          "\(underrun) at the end, after recorded frame \(checkedUpTo)", file: file, line: line)
        }
        let unexplained = underruns.filter { underrun in
            !silences.contains(underrun) && !atTheEnd.contains(underrun)
                && !excused.contains { $0.contains(Int(underrun.position) / filePerOutput) }
        }
        XCTAssertEqual(unexplained, [], "each silence reported at its file frame and JACK frame; seen whole: \(silences), "
                       + "across reported spans \(excused): \(account)", file: file, line: line)
        XCTAssertEqual(silences.filter { !underruns.contains($0) }, [], "a silence the player did not report", file: file, line: line)
        if !account.reportsNoTrouble { print("note: \(name): checked against \(account); excused \(excused)") }
    }
}
