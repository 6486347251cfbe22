import JackCapture

extension Console {
    /// How the announcement of a split take ends: where a new file (or a session's take) begins.
    func splitAnnouncement(_ split: SplitInterval, each: String = "file") -> String {
        ", a new \(each) on every \(split) boundary of the clock"
    }

    /// One line for a file of a split take, as it closes: its length, and with `verbose` its
    /// frames and the JACK frames it spans.
    func wrote(_ segment: TakeSegment, of take: Take, verbose: Bool = false) {
        for file in segment.files {
            var text = "jcap: wrote \(file.path): \(clockText(frames: segment.frames, sampleRate: take.jack.sampleRate))"
            if verbose {
                text += " (\(segment.frames) frames)"
                if let first = segment.firstFrameTime, let end = segment.endFrameTime { text += ", JACK frames \(first) to \(end)" }
            }
            if !segment.lostSpans.isEmpty {
                text += ", \(groupedDigits(segment.lostSpans.reduce(0) { $0 + $1.frames })) frames lost (silence)"
            }
            line(text)
        }
    }
}
