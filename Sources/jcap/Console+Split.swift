import JackCapture

extension Console {
    /// How the announcement of a split take ends: where a new file (or a session's take) begins.
    func splitAnnouncement(_ split: SplitInterval, each: String = "file") -> String {
        ", a new \(each) on every \(split) boundary of the clock"
    }

    /// One line for a file of a split take, as it closes: its frames and the JACK frames it spans.
    func wrote(_ piece: TakeSegment, of take: Take) {
        for file in piece.files {
            var text = "jcap: wrote \(file.path): \(piece.frames) frames (\(clockText(frames: piece.frames, sampleRate: take.jack.sampleRate)))"
            if let first = piece.firstFrameTime, let end = piece.endFrameTime { text += ", JACK frames \(first) to \(end)" }
            if !piece.lostSpans.isEmpty {
                text += ", \(piece.lostSpans.reduce(0) { $0 + $1.frames }) frames lost (silence)"
            }
            line(text)
        }
    }
}
