import JackCapture
import JackCaptureTestSignal
import XCTest
import jcap

extension JackTestCase {
    /// The first sample of a recording of what a player played that neither holds what it should
    /// nor is excused by what the recorder reported, or nil.
    ///
    /// Both clients share the server, so frames JACK skips are skipped by both: the recorder pads
    /// them with silence and reports them lost, while the player plays on from where it was, behind
    /// the clock from then on by up to the loss and a period. So samples inside a span the recorder
    /// reported (lost, late, uncertain) are passed over, and past each reported loss the recording
    /// may hold the played audio at a new lag, within the losses' frames and a period of the last,
    /// taken where it holds for 64 frames.
    ///
    /// - Parameters:
    ///   - expected: the sample recorded frame `position` should hold when the player lags the
    ///     clock by `lag` frames (nil where it can hold nothing: before or after the audio).
    ///   - positions: the recorded frames checked.
    ///   - underruns: silences the player reported (`jcap play`'s underrun lines, as recorded
    ///     frames): passed over too, and the player lags the clock by them after.
    func firstUnexplainedSample(of recorded: [Float], in positions: Range<Int>, account: TakeAccount, underruns: [LostSpan] = [],
                                tolerance: Float = 1e-6,
                                expected: (_ position: Int, _ lag: Int) -> Float?) -> (position: Int, lag: Int)? {
        func matches(_ position: Int, lag: Int) -> Bool {
            expected(position, lag).map { abs(recorded[position] - $0) <= tolerance } ?? false
        }
        func holds(_ position: Int, lag: Int) -> Bool {
            (position..<min(position + 64, positions.upperBound)).allSatisfy { matches($0, lag: lag) }
        }
        let excused = account.lostSpans + account.lateCopySpans + account.uncertainSpans + underruns
        var losses = (account.lostSpans + underruns).sorted { $0.position < $1.position }[...]
        var lag = 0
        for position in positions where !excused.contains(where: { $0.position <= position && position < $0.position + $0.frames }) {
            var reach = 0
            while let loss = losses.first, loss.position + loss.frames <= position {
                reach += Int(loss.frames) + server.period
                losses.removeFirst()
            }
            if reach > 0, !holds(position, lag: lag), let found = (lag - reach...lag + reach).first(where: { holds(position, lag: $0) }) {
                lag = found
            }
            if !matches(position, lag: lag) { return (position, lag) }
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

    /// The status `jcap play` exits with by what it reported: 3 after an underrun, 0 otherwise.
    func playerStatus(reportedIn errors: String) -> Int32 {
        errors.contains("jcap: underrun: ") ? ExitStatus.lostFrames.rawValue : 0
    }
}
