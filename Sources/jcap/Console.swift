import ArgumentParser
import JackCapture
#if canImport(Glibc)
import Glibc
#endif

/// What jcap tells the person at the terminal, on standard error (standard output stays free for
/// other programs).
struct Console {
    let isTerminal = isatty(STDERR_FILENO) == 1
    private var lastProgress = 0.0

    func line(_ text: String) {
        var text = text
        if isTerminal { text = "\r\u{1B}[K" + text }
        StandardStreams.writeError(text + "\n")
    }

    /// Prints the error on one line and returns the exit code to throw.
    func fail(_ error: CaptureError) -> ExitCode {
        line("jcap: error: \(error)")
        return ExitCode(ExitStatus(for: error).rawValue)
    }

    func describe(_ session: CaptureSession) {
        let rate = session.client.sampleRate
        line("jcap: client '\(session.client.name)', \(rate) Hz, \(session.client.bufferSize)-frame periods")
        for (index, (port, source)) in zip(session.engine.portNames, session.sources).enumerated() {
            let wiring = session.configuration.connectsPorts ? "<- \(source)" : "(patch by hand)"
            line("  channel \(index + 1): \(port) \(wiring)")
        }
    }

    func announceStart(_ session: CaptureSession) {
        var text = "jcap: recording \(session.format.displayName) to \(session.outputPath)"
        if let start = session.scheduledStart { text += ", starting at frame \(start)" }
        if let frames = session.durationFrames { text += ", \(frames) frames" }
        line(text)
    }

    mutating func progress(_ session: CaptureSession) {
        guard isTerminal else { return }
        let status = session.status
        let rate = Double(session.client.sampleRate)
        var text: String
        switch status.phase {
        case .waiting:
            let remaining = session.scheduledStart.map {
                Double(FrameTime.distance(from: session.client.estimatedFrameTime, to: $0)) / rate
            } ?? 0
            text = "waiting to start: \(Console.clock(max(0, remaining)))"
        default:
            text = "REC \(Console.clock(Double(status.position) / rate))  \(status.position) frames"
            if let total = session.durationFrames {
                text += "  left \(Console.clock(Double(max(0, total - status.position)) / rate))"
            }
            text += "  buffer \(Int(status.bufferFill * 100))%  xruns \(status.xruns)  lost \(status.lostFrames)"
        }
        StandardStreams.writeError("\r\u{1B}[K" + text)
    }

    func summarize(_ report: TakeReport) {
        switch report.outcome {
        case .cancelled:
            line("jcap: stopped before the start; nothing recorded, no file written")
            return
        case .missedStart:
            line("jcap: error: the start time passed before recording was ready; no file written")
            return
        default: break
        }
        var text = "jcap: wrote \(report.path): \(report.frames) frames (\(Console.clock(report.seconds))), "
        text += "\(report.channels) channels, \(report.format.displayName)"
        if let start = report.startFrame {
            text += ", JACK frames \(start) to \(FrameTime.advance(start, by: Int(report.frames)))"
        }
        line(text)
        line("jcap: xruns \(report.xruns), lost frames \(report.lostFrames)")
        if !report.lostSpans.isEmpty {
            line("jcap: lost \(report.lostFrames) frames, written as silence at file positions: "
                + report.lostSpans.map(\.description).joined(separator: "; "))
        }
        switch report.outcome {
        case .serverShutDown:
            line("jcap: error: the JACK server shut down mid-take; everything received is in the file")
        case .writeFailed(let error):
            line("jcap: error: \(error); everything written before it is in the file")
        default: break
        }
    }

    /// HH:MM:SS.mmm
    static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let h = milliseconds / 3_600_000, m = milliseconds / 60_000 % 60, s = milliseconds / 1000 % 60
        let ms = milliseconds % 1000
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let fraction = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(two(h)):\(two(m)):\(two(s)).\(fraction)"
    }
}
