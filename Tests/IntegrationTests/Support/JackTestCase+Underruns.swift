import JackCapture
import JackCaptureTestSignal
import XCTest

extension JackTestCase {
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
