import ArgumentParser
import Foundation
import JackCapture

/// `--meter`: how jcap shows a take while it runs.
enum MeterDisplay: String, ExpressibleByArgument, CaseIterable {
    /// One bar per channel, folding into columns when they do not fit the terminal.
    case bars
    /// Columns of short bars, always.
    case compact
    /// Nothing while recording (and no metering: it then costs the process callback nothing).
    case none
    /// One JSON object per line on standard output, 10 a second.
    case json
}

/// What jcap tells the person at the terminal. The live meter goes to standard output when that is
/// a terminal (redrawn in place) or is asked for as JSON; otherwise standard output gets a plain
/// status line a second. Messages, errors and the final summary go to standard error.
final class Console {
    enum Mode: Equatable {
        case screen(MeterScreen.Layout)
        case json
        case statusLines
        case silent
    }

    let mode: Mode
    /// A line being typed (a take's note), shown under the meters.
    var prompt: String?
    private var drawnLines = 0
    private var cursorHidden = false
    /// When the last JSON or status line was written: they follow the clock, not the count of
    /// updates, so a loaded machine (fewer passes of the run loop) still gets them on time.
    private var lastLine: ContinuousClock.Instant?
    private var firstShown: ContinuousClock.Instant?

    init(display: MeterDisplay?) {
        let outputIsTerminal = isatty(STDOUT_FILENO) == 1
        switch display {
        case .none?: mode = .silent
        case .json?: mode = .json
        case .compact?: mode = outputIsTerminal ? .screen(.compact) : .statusLines
        case .bars?, nil: mode = outputIsTerminal ? .screen(.automatic) : .statusLines
        }
    }

    var wantsMeters: Bool { mode != .silent }

    // MARK: Messages

    /// One line of a message: names and notes from files inside it are escaped (`TerminalText`),
    /// so whatever they hold, it stays one line of plain text.
    func line(_ text: String) {
        eraseScreen()
        StandardStreams.writeError(TerminalText.escaped(text) + "\n")
    }

    /// Prints the error on one line and returns the exit code to throw.
    func fail(_ error: CaptureError) -> ExitCode {
        endDisplay()
        line("jcap: error: \(CommandLineAdvice.message(for: error))")
        return ExitCode(ExitStatus(for: error).rawValue)
    }

    /// As `fail(_:)` for a library error, for any error jcap reports (its own flags' too).
    func fail(_ error: any Error) -> ExitCode {
        endDisplay()
        line("jcap: error: \(CommandLineAdvice.message(for: error))")
        return ExitCode(ExitStatus(for: error).rawValue)
    }

    /// The client and its channels' sources in one compact block (`in_1..8 <- sig:out_1..8`);
    /// `verbose`: a line per channel with its port.
    func describe(_ client: CaptureClient, verbose: Bool = false) {
        line("jcap: client '\(client.jack.name)', \(client.sampleRate) Hz, \(client.jack.bufferSize)-frame periods, "
            + "\(client.portNames.count) channel\(client.portNames.count == 1 ? "" : "s")")
        if let slave = client.netJackSlave { line("jcap: " + slave.description) }
        if let timecode = client.configuration.masterClockPort, let port = client.engine.timecodePortName {
            line("jcap: following the master's clock: its timecode on \(timecode) -> \(port)")
        }
        if verbose {
            for (index, (port, source)) in zip(client.portNames, client.sources).enumerated() {
                let wiring = client.connectsPorts ? "<- \(source)" : "(patch by hand)"
                line("  channel \(index + 1): \(port) \(wiring)")
            }
        } else if client.connectsPorts {
            line("  " + SourceRanges.text(names: client.portNames, sources: client.sources))
        } else {
            line("  " + SourceRanges.text(names: client.portNames) + " (patch by hand)")
        }
    }

    func announceStart(_ take: Take, verbose: Bool = false) {
        var text = "jcap: recording \(take.format.displayName) to \(take.path)"
        if let start = take.scheduledStart { text += ", starting at frame \(start)" }
        if let start = take.scheduledWallClockStart {
            text += ", starting at \(WallClockTime.localDescription(microsecondsSinceEpoch: start))"
        }
        if let frames = take.durationFrames {
            text += ", " + clockText(frames: frames, sampleRate: take.jack.sampleRate) + (verbose ? " (\(frames) frames)" : "")
        }
        if let split = take.splitInterval { text += splitAnnouncement(split) }
        line(text)
        if let offset = take.masterOffset {
            line("jcap: the master's clock is this server's + \(offset) frames"
                + (take.scheduledStart.map { ": the start is the master's frame \($0 &+ offset)" } ?? ""))
        }
        if let alignment = take.latencyAlignment { line(Console.alignmentText(alignment, ports: take.engine.portNames)) }
        announcePageCacheFallbacks(of: take)
    }

    /// `jcap: 2 files in /mnt/ram written through the page cache: the file system refuses O_DIRECT`
    func announcePageCacheFallbacks(of take: Take) {
        for fallback in take.pageCacheFallbacks {
            line("jcap: \(fallback.files) file\(fallback.files == 1 ? "" : "s") in \(fallback.folder) written through the page cache: \(fallback.reason)")
        }
    }

    /// `jcap: aligned to capture latency: 1024 frames on every channel`, or channel by channel.
    static func alignmentText(_ alignment: LatencyAlignment, ports: [String]) -> String {
        let latencies = alignment.latencies
        if let first = latencies.first, latencies.allSatisfy({ $0 == first }) {
            return "jcap: aligned to capture latency: \(first) frames on every channel"
        }
        return "jcap: aligned to capture latency: " + zip(ports, latencies).map { "\($0) \($1) frames" }.joined(separator: ", ")
    }

    /// Tells of a take's event on its own line: pauses and resumes with their exact frames, and
    /// what the server did to the take. Overruns and skipped frames are summed up at the end.
    func report(_ event: CaptureEvent, _ wording: EventWording = EventWording()) {
        switch event {
        case .started, .stopped, .overrun, .framesSkipped, .fileSplit: return
        case .xrun, .portConnected:
            // Counted on the status line and summed up after the take.
            if !wording.verbose { return }
            line("jcap: \(event)")
        case .sampleRateChanged, .serverShutDown: line("jcap: error: \(event)")
        default:
            if !wording.verbose, let rate = wording.sampleRate, let text = Console.eventText(event, sampleRate: rate) {
                line("jcap: " + text)
            } else {
                line("jcap: \(event)")
            }
        }
    }

    /// An event of a take said in the engineer's terms: where in the take it fell as a time,
    /// without JACK frame numbers (`-v` has them); nil for the events said as they are.
    static func eventText(_ event: CaptureEvent, sampleRate: Int) -> String? {
        func time(_ position: Int64) -> String { clockText(frames: position, sampleRate: sampleRate) }
        switch event {
        case .paused(_, let position): return "paused at \(time(position))"
        case .resumed(_, let position): return "resumed at \(time(position))"
        case .portConnected(let channel, let source, _, let position, let timing):
            return "channel \(channel + 1): \(source) connected \(timing.preposition) \(time(position))" + timing.uncertainty
        case .portDisconnected(let channel, let source, _, let position, let timing):
            return "channel \(channel + 1): \(source) disconnected \(timing.preposition) \(time(position)); recording silence"
        case .bufferSizeChanged(let frames, _, let position):
            return "JACK period changed to \(frames) frames at \(time(position)); recording goes on"
        case .triggered(_, let position): return "triggered, \(time(position)) into the take"
        case .transportRolled(_, _, let bbt): return "the transport rolled" + (bbt.map { " at bar \($0)" } ?? "")
        default: return nil
        }
    }

    // MARK: The live display

    /// Whether an update shown now would show anything: the screen is redrawn each time, JSON
    /// lines go 10 a second and status lines one a second. Asked before the snapshot is made,
    /// which for a 1024-track session costs more than the line it becomes.
    func isUpdateDue() -> Bool {
        switch mode {
        case .silent: false
        case .json: lineIsDue(every: .milliseconds(100))
        case .statusLines: lineIsDue(every: .seconds(1))
        case .screen: true
        }
    }

    /// Shows one update, when `isUpdateDue()` said so; about 20 times a second. `showsFrames`
    /// (`-v`): the status line for pipes gives the position in frames too.
    func show(_ snapshot: MeterSnapshot, showsFrames: Bool = false) {
        switch mode {
        case .silent:
            return
        case .json:
            StandardStreams.writeOutput(MeterJSONLine(snapshot).encoded() + "\n")
        case .statusLines:
            StandardStreams.writeOutput(Console.statusLine(snapshot, showsFrames: showsFrames) + "\n")
        case .screen(let layout):
            let size = Console.terminalSize()
            // Not the last column: a line filling it leaves the cursor there, and the erase
            // after it (ESC[K) would take its last character (CLIP read CLI).
            let promptLines = prompt.map { [String(TerminalText.escaped($0).suffix(max(1, size.columns - 1)))] } ?? []
            let screen = MeterScreen(width: size.columns - 1, height: size.rows - 1 - promptLines.count, layout: layout, colors: true)
            let lines = screen.render(snapshot) + promptLines
            var text = cursorHidden ? "" : "\u{1B}[?25l"
            cursorHidden = true
            if drawnLines > 0 { text += "\u{1B}[\(drawnLines)F" }
            text += lines.map { "\r" + $0 + "\u{1B}[K" }.joined(separator: "\n") + "\n\u{1B}[J"
            StandardStreams.writeOutput(text)
            drawnLines = lines.count
        }
    }

    /// True once `interval` has passed since the last line (or since the first update: the run
    /// loop's first pass comes before the take has settled): each line then is due an `interval`
    /// after the one before, as near as the updates come.
    private func lineIsDue(every interval: Duration) -> Bool {
        let now = ContinuousClock.now
        if firstShown == nil { firstShown = now }
        let due = (lastLine ?? firstShown ?? now) + interval
        guard now >= due else { return false }
        // On schedule unless a whole interval was missed: then from now.
        lastLine = now - due < interval ? due : now
        return true
    }

    /// Removes the live display and gives the cursor back.
    func endDisplay() {
        eraseScreen()
        if cursorHidden {
            StandardStreams.writeOutput("\u{1B}[?25h")
            cursorHidden = false
        }
    }

    private func eraseScreen() {
        guard drawnLines > 0 else { return }
        StandardStreams.writeOutput("\u{1B}[\(drawnLines)F\u{1B}[J")
        drawnLines = 0
    }

    /// A status line without escape codes, for logs and pipes: the position as a time, and in
    /// frames too with `showsFrames`.
    static func statusLine(_ snapshot: MeterSnapshot, showsFrames: Bool = false) -> String {
        let position = clockText(frames: snapshot.elapsedFrames, sampleRate: snapshot.sampleRate)
            + (showsFrames ? " \(snapshot.elapsedFrames) frames" : "")
        var text: String
        switch snapshot.state {
        case .ready: text = "ready"
        case .waitingForPorts: text = "waiting for the ports to be connected"
        case .countdown(let frames): text = "starts in \(clockText(frames: frames, sampleRate: snapshot.sampleRate))"
        case .paused:
            text = "PAUSED at \(position)"
        case .playing:
            text = "play \(position)"
        case .recording, .finished:
            text = "rec \(position)"
        }
        if let title = snapshot.title { text = title + ", " + text }
        text += ", buffer \(Int((snapshot.bufferFill * 100).rounded()))%, xruns \(snapshot.xruns), lost \(snapshot.lostFrames)"
        let screen = MeterScreen(width: 80, height: 24)
        text += "; peak dBFS: " + snapshot.channels.map {
            "\($0.name) " + screen.decibelText($0.reading.peakPower, width: 0) + ($0.isClipped ? " CLIP" : "") + ($0.dead != nil ? " DEAD" : "")
        }.joined(separator: ", ")
        return text
    }

    /// The terminal's size (TIOCGWINSZ), or 80 × 24.
    static func terminalSize() -> (columns: Int, rows: Int) {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            return (Int(size.ws_col), Int(size.ws_row))
        }
        return (80, 24)
    }

    // MARK: Summary

    /// What a take's summary says beyond its report: where the take started on the wall clock,
    /// the server's xruns in it, and how much frame detail the user asked for.
    struct TakeSummaryDetail {
        /// The take was split and each file was told of as it closed (`wrote(_:of:)`): the summary
        /// then gives the whole take instead of one file.
        var segmentsShown = false
        /// `-v`, or a start given in frames (`--at @F`): JACK and file frame numbers are said.
        var showsFrames = false
        /// When the take's first frame was captured, in microseconds since the epoch.
        var startMicroseconds: Int64?
        /// The server's xruns in the take, each with the frames JACK skipped because of it.
        var xruns: [(position: Int64, frames: Int64)] = []
    }

    /// A take's problems first (pauses, losses, uncertain placement, xruns, clips), then its
    /// summary as the last lines: the file, its length and start in local time, and every
    /// channel's peak in a compact table. Frame numbers only when `detail.showsFrames`.
    func summarize(_ report: TakeReport, names: [String], detail: TakeSummaryDetail = TakeSummaryDetail()) {
        endDisplay()
        switch report.outcome {
        case .cancelled:
            line("jcap: stopped before the start; nothing recorded, no file written")
            return
        case .missedStart:
            line("jcap: error: the start time passed before recording was ready; no file written")
            return
        case .serverShutDown where report.startFrame == nil && report.frames == 0:
            line("jcap: error: the JACK server shut down before the start; nothing recorded, no file written")
            return
        default: break
        }
        let rate = report.sampleRate
        let frames = detail.showsFrames
        func at(_ positions: [Int64]) -> String { Self.positions(positions, rate: rate, verbose: frames) }
        let pauses = report.pauses
        if !pauses.isEmpty {
            line("jcap: paused \(pauses.count) time\(pauses.count == 1 ? "" : "s"), left out of the file, at " + pauses.prefix(5).map {
                clockText(frames: $0.position, sampleRate: rate)
                    + (frames ? " (file frame \($0.position), JACK frames \($0.fromFrame) to \($0.toFrame.map(String.init) ?? "the end"))" : "")
            }.joined(separator: ", ") + (pauses.count > 5 ? " and \(pauses.count - 5) more" : ""))
        }
        if !report.lostSpans.isEmpty {
            line("jcap: lost \(groupedDigits(report.lostFrames)) frames (\(clockText(frames: report.lostFrames, sampleRate: rate))), "
                + "written as silence at " + Self.spans(report.lostSpans, rate: rate, frames: frames))
        }
        for dropout in report.linkDropouts {
            line("jcap: NetJACK2 link dropout near \(at([dropout.position])): about \(groupedDigits(dropout.frames)) frames "
                + "(\(clockText(frames: dropout.frames, sampleRate: rate))) the master sent never reached this server; "
                + "from there the take is that much earlier against the master's clock")
        }
        for jump in report.masterClockJumps {
            let size = "\(groupedDigits(abs(jump.frames))) frames (\(clockText(frames: abs(jump.frames), sampleRate: rate)))"
            line("jcap: master clock jump at \(at([jump.position])): from there the take's frames are \(size) "
                + (jump.frames < 0 ? "earlier on the master's clock (repeated)" : "later on the master's clock (the master's frames between are not in the file)"))
        }
        for step in report.clockSteps {
            line("jcap: JACK's clock stepped \(step.frames > 0 ? "+" : "-")\(groupedDigits(abs(step.frames))) frames at the period change at "
                + "\(at([step.position])), no frame missing: the take goes on without a break, its frames from there "
                + "\(groupedDigits(abs(step.frames))) frames \(step.frames < 0 ? "earlier" : "later") on JACK's clock")
        }
        let uncertain = report.uncertainSpans
        if !uncertain.isEmpty {
            let why = report.masterStartFrame == nil
                ? "callbacks ran late around an xrun; these frames may belong up to a few periods earlier"
                : "callbacks ran late around an xrun, or the master's timecode did not decode: these frames' place on the master's clock is unknown"
            line("jcap: placement uncertain (\(why)) at " + Self.spans(uncertain, rate: rate, frames: frames))
        }
        if let master = report.masterStartFrame {
            line("jcap: on the master's clock the take starts at frame \(master)")
        }
        if !detail.xruns.isEmpty {
            let skipped = detail.xruns.reduce(Int64(0)) { $0 + $1.frames }
            line("jcap: \(Self.count(detail.xruns.count, "xrun")), \(groupedDigits(skipped)) frames skipped by JACK, at "
                + at(detail.xruns.map(\.position)))
        }
        if let levels = report.channelLevels {
            for (name, level) in zip(names, levels) where level.clipCount > 0 {
                line("jcap: \(name): \(Self.count(level.clipCount, "clipped sample"))")
            }
        }
        switch report.outcome {
        case .serverShutDown:
            line("jcap: error: the JACK server shut down mid-take; everything received is in the file")
        case .writeFailed(let error):
            line("jcap: error: \(CommandLineAdvice.message(for: error)); everything written before it is in the file")
        case .sampleRateChanged(let from, let to):
            line("jcap: error: the JACK server's sample rate changed from \(from) to \(to) Hz; the take stopped there and the file is complete up to it")
        default: break
        }
        let files = report.segments.count
        var text = detail.segmentsShown ? "jcap: recorded \(Self.count(files, "file")): " : "jcap: wrote \(report.path): "
        text += clockText(frames: report.frames, sampleRate: rate) + (frames ? " (\(report.frames) frames)" : "")
        text += ", \(report.channels) channel\(report.channels == 1 ? "" : "s"), \(report.format.displayName)"
        if report.fileSampleRate != report.sampleRate {
            text += ", resampled from \(report.sampleRate) to \(report.fileSampleRate) Hz"
                + (frames ? " (\(report.fileFrames) frames in the file)" : "")
        }
        if let start = detail.startMicroseconds {
            text += ", started " + Self.localTime(Date(timeIntervalSince1970: Double(start) / 1_000_000))
        }
        if frames, let start = report.startFrame, let end = report.endFrame {
            text += ", JACK frames \(start) to \(end)"
        }
        line(text)
        line("jcap: " + (report.xruns == 0 && report.lostFrames == 0 ? "no xruns, nothing lost"
            : "\(Self.count(Int(report.xruns), "xrun")), \(groupedDigits(report.lostFrames)) frames lost"))
        if report.lostEvents > 0 {
            line("jcap: warning: \(Self.count(report.lostEvents, "event")) lost (a ring was full): connections, xruns or spans "
                + "may be missing from this report")
        }
        if let levels = report.channelLevels {
            line(contentsOf: Self.peakTable(zip(names, levels).map { ($0, $1.highestPeak) }))
        }
    }

    /// `1 xrun`, `3 xruns`, `255,354 clipped samples`.
    static func count<Number: BinaryInteger>(_ number: Number, _ noun: String) -> String {
        "\(groupedDigits(Int64(number))) \(noun)\(number == 1 ? "" : "s")"
    }

    /// Spans of a take as times with their lengths, the first five and a count of the rest;
    /// `frames`: each span's file position and length in frames too.
    static func spans(_ spans: [LostSpan], rate: Int, frames: Bool) -> String {
        var text = spans.prefix(5).map {
            clockText(frames: $0.position, sampleRate: rate) + (frames ? " (\($0))" : " for \(clockText(frames: $0.frames, sampleRate: rate))")
        }.joined(separator: ", ")
        if spans.count > 5 { text += " and \(spans.count - 5) more" }
        return text
    }

    /// Every channel's peak, signed dBFS with silence as `-inf`, in rows under `peak dBFS:`.
    static func peakTable(_ peaks: [(name: String, decibels: Float)]) -> [String] {
        let screen = MeterScreen(width: 80, height: 24)
        let cells = peaks.map { "\($0.name) " + screen.decibelText($0.decibels, width: 0) }
        guard !cells.isEmpty else { return [] }
        return Self.wrapped(cells, width: min(120, Console.terminalSize().columns - 1) - 13).enumerated().map { index, row in
            (index == 0 ? "  peak dBFS: " : "             ") + row
        }
    }

    func line(contentsOf lines: [String]) {
        for text in lines { line(text) }
    }
}
