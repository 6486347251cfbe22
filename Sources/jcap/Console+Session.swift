import ArgumentParser
import Foundation
import JackCapture

/// What the console says of a studio session: its tracks, its takes as they start and end, an
/// overdub's playback.
extension Console {
    func fail(_ error: StudioSessionError) -> ExitCode {
        endDisplay()
        line("jcap: error: \(CommandLineAdvice.message(for: error))")
        return ExitCode(ExitStatus(for: error).rawValue)
    }

    /// The session and its tracks' sources in one compact block (`T1..T8 <- sig:out_1..8`);
    /// `verbose`: a line per track with its port.
    func describe(_ session: StudioSession, verbose: Bool = false) {
        let definition = session.definition
        let client = session.client
        line("jcap: session '\(definition.name)': client '\(client.jack.name)', \(client.sampleRate) Hz, "
            + "\(client.jack.bufferSize)-frame periods, \(definition.tracks.count) tracks "
            + "(\(session.armedTrackNames.count) armed), \(definition.format.displayName), takes in \(definition.folder)")
        let armed = Set(session.armedTrackNames)
        if verbose {
            for (index, track) in definition.tracks.enumerated() {
                line("  \(track.name): \(client.portNames[index]) <- \(client.sources[index])\(armed.contains(track.name) ? "" : " (disarmed)")")
            }
        } else {
            line("  " + SourceRanges.text(names: definition.tracks.map(\.name), sources: client.sources))
            let disarmed = definition.tracks.map(\.name).filter { !armed.contains($0) }
            if !disarmed.isEmpty { line("  disarmed: " + SourceRanges.text(names: disarmed)) }
        }
        warnAboutSkippedLines(session.skippedLogLines, in: session.log)
        for entry in session.recoveredTakes {
            line("jcap: take \(entry.take) was interrupted (its process ended mid-take); logged with the \(entry.frames) frames its files hold")
        }
    }

    /// The take log's lines that could not be read, once each, with their line numbers.
    func warnAboutSkippedLines(_ skipped: [TakeLogReading.SkippedLine], in log: TakeLog) {
        for line in skipped { self.line("jcap: warning: the take log \(log.path), \(line)") }
    }

    /// The take played and where its ports go, in one compact block (`dub-play:T1..8 ->
    /// system:playback_1..8`); `verbose`: a line per port and the frame numbers.
    func describe(_ overdub: SessionOverdub, verbose: Bool = false) {
        let played = overdub.playedTake
        let length = clockText(frames: played.frames, sampleRate: played.sampleRate) + (verbose ? ", \(played.frames) frames" : "")
        line("jcap: overdub of take \(played.take) (\(length)): client '\(overdub.player.clientName ?? "")', "
            + "playback latency " + Self.latencyText(overdub.playbackLatency, rate: played.sampleRate, verbose: verbose))
        let ports = Array(zip(overdub.player.portNames, overdub.player.connections))
        if verbose {
            for (port, connections) in ports {
                line("  \(port) \(connections.isEmpty ? "(patch by hand)" : "-> " + connections.joined(separator: ", "))")
            }
            return
        }
        let single = ports.filter { $0.1.count == 1 }
        if !single.isEmpty { line("  " + SourceRanges.text(names: single.map(\.0), sources: single.map { $0.1[0] }, arrow: " -> ")) }
        for (port, connections) in ports where connections.count > 1 { line("  \(port) -> " + connections.joined(separator: ", ")) }
        let unpatched = ports.filter { $0.1.isEmpty }.map(\.0)
        if !unpatched.isEmpty { line("  " + SourceRanges.text(names: unpatched) + " (patch by hand)") }
    }

    /// `6.3 ms`; `verbose`: `6.3 ms (300 frames)`.
    static func latencyText(_ frames: Int, rate: Int, verbose: Bool) -> String {
        let tenths = (Int64(frames) * 10_000 + Int64(max(1, rate)) / 2) / Int64(max(1, rate))
        return "\(tenths / 10).\(tenths % 10) ms" + (verbose ? " (\(frames) frames)" : "")
    }

    /// How the played take and the overdub line up; `verbose`: on which JACK frame.
    func announce(_ overdub: SessionOverdub, _ sessionTake: SessionTake, verbose: Bool = false) {
        guard let alignment = sessionTake.overdubAlignment else { return }
        let latency = Self.latencyText(alignment.playbackLatency, rate: overdub.playedTake.sampleRate, verbose: false)
        if verbose {
            line("jcap: take \(alignment.take) plays from JACK frame \(alignment.playbackStartFrame); take \(sessionTake.numbers.lowerBound) "
                + "starts \(alignment.playbackLatency) frames later on the converters' clock, aligned to it")
        } else {
            line("jcap: take \(alignment.take) plays from its start; take \(sessionTake.numbers.lowerBound) "
                + "starts \(latency) later on the converters' clock, aligned to it")
        }
    }

    /// The player's underruns after an overdub: each shifts the rest of the playback against
    /// the recording (the status says frames were lost).
    func summarizePlayback(_ overdub: SessionOverdub) {
        let underruns = overdub.playbackUnderruns
        for underrun in underruns {
            line("jcap: playback fell behind: \(underrun.frames) frames of silence at take \(overdub.playedTake.take)'s frame "
                + "\(underrun.position) (JACK frame \(underrun.jackFrame)); the overdub is out of line with it after that")
        }
    }

    /// `verbose`: the start and length in frames; else the length as a time.
    func announce(_ sessionTake: SessionTake, verbose: Bool = false) {
        let take = sessionTake.recording
        var text = sessionTake.numbers.count == 1 ? "jcap: recording take \(sessionTake.numbers.lowerBound)"
            : "jcap: recording takes \(sessionTake.numbers.lowerBound) to \(sessionTake.numbers.upperBound) back to back"
        text += " (\(take.files.count) file\(take.files.count == 1 ? "" : "s"))"
        if verbose, let start = take.scheduledStart { text += ", starting at frame \(start)" }
        if let start = take.scheduledWallClockStart {
            text += ", starting at \(WallClockTime.localDescription(microsecondsSinceEpoch: start))"
        }
        if let frames = take.durationFrames {
            let each = take.splitInterval != nil ? frames : frames / Int64(sessionTake.numbers.count)
            text += ", " + (verbose ? "\(each) frames" : clockText(frames: each, sampleRate: take.jack.sampleRate))
                + (take.splitInterval != nil ? " in all" : " each")
        }
        if let split = take.splitInterval { text += splitAnnouncement(split, each: "take") }
        line(text)
        if let alignment = take.latencyAlignment { line(Console.alignmentText(alignment, ports: take.engine.portNames)) }
        announcePageCacheFallbacks(of: take)
    }

    /// A take's problems first, then its summary as the last lines: length, files, start (local
    /// time), losses, xruns summed up with where they fell, clipped samples and dead tracks, and
    /// every track's peak in a compact table. `verbose`: frame numbers too.
    func summarize(_ sessionTake: SessionTake, entries: [TakeLogEntry], verbose: Bool = false) {
        endDisplay()
        let report = sessionTake.recording.report
        if entries.isEmpty {
            if report?.outcome == .missedStart {
                line("jcap: error: the start time passed before recording was ready; nothing recorded")
                return
            }
            if sessionTake.stopReason == .diskFull {
                let free = sessionTake.freeDiskBytes.map { ByteCountText.describe($0) + " free" } ?? "its free space unknown"
                line("jcap: error: the disk holding '\(sessionTake.folder)' is nearly full (\(free)): "
                    + "the take stopped before its start; nothing recorded")
                return
            }
            line("jcap: stopped before the start; nothing recorded")
            return
        }
        if sessionTake.stopReason == .diskFull {
            line("jcap: error: the disk is nearly full: the take stopped there, every file finalized")
        }
        if case .writeFailed(let error)? = report?.outcome {
            line("jcap: error: \(CommandLineAdvice.message(for: error)); everything written before it is in the files")
        }
        if let error = sessionTake.logError {
            line("jcap: error: the take log: \(error); the take is logged, its files repaired, when the session folder is next opened writable (jcap takes)")
        }
        for entry in entries {
            let rate = entry.sampleRate
            func time(_ frames: Int64) -> String { clockText(frames: frames, sampleRate: rate) }
            var text = "jcap: take \(entry.take) \(entry.status.rawValue): \(time(entry.frames)), \(entry.files.count) file"
                + (entry.files.count == 1 ? "" : "s")
            if let start = entry.startTime.flatMap(TakeLogTime.date(from:)) { text += ", started " + Self.localTime(start) }
            if verbose {
                text += " (\(entry.frames) frames"
                if let start = entry.startFrame { text += ", from JACK frame \(start)" }
                text += ")"
            }
            line(text)
            if !entry.lost.isEmpty {
                let frames = entry.lost.reduce(Int64(0)) { $0 + $1.frames }
                line("jcap: take \(entry.take): \(groupedDigits(frames)) frames lost, written as silence at "
                    + Self.positions(entry.lost.map { $0.position }, rate: rate, verbose: verbose))
            }
            if let master = entry.masterStartFrame { line("jcap: take \(entry.take): on the master's clock it starts at frame \(master)") }
            for jump in entry.masterJumps {
                line("jcap: take \(entry.take): master clock jump at " + Self.positions([jump.position], rate: rate, verbose: verbose)
                    + ": from there the files are \(groupedDigits(abs(jump.frames))) frames \(jump.frames < 0 ? "earlier" : "later") on the master's clock")
            }
            for step in entry.clockSteps {
                line("jcap: take \(entry.take): JACK's clock stepped \(step.frames > 0 ? "+" : "-")\(groupedDigits(abs(step.frames))) frames at the period change at "
                    + Self.positions([step.position], rate: rate, verbose: verbose)
                    + ", no frame missing: from there the files are \(groupedDigits(abs(step.frames))) frames \(step.frames < 0 ? "earlier" : "later") on JACK's clock")
            }
            if !entry.xruns.isEmpty {
                let count = entry.xruns.count
                line("jcap: take \(entry.take): \(count) xrun\(count == 1 ? "" : "s") at "
                    + Self.positions(entry.xruns.map { $0.position }, rate: rate, verbose: verbose))
            }
            for track in entry.tracks where (track.clippedSamples ?? 0) > 0 {
                let count = track.clippedSamples ?? 0
                line("jcap: take \(entry.take): \(track.name): \(groupedDigits(count)) clipped sample\(count == 1 ? "" : "s")")
            }
            let dead = TakeListing.deadTracks(entry)
            if !dead.isEmpty {
                line("jcap: take \(entry.take): " + (dead.count == 1 ? "dead track: " : "\(dead.count) dead tracks: ")
                    + dead.joined(separator: ", ") + " (below \(Int(DeadTrack.level)) dBFS: unpatched or silent)")
            }
            line(contentsOf: Self.peakTable(entry.tracks.map { ($0.name, Float($0.highestPeakDBFS ?? TakeLogTrack.peakFloor)) }))
        }
    }

    /// A local clock time, `14:03:07.123`.
    static func localTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter.string(from: date)
    }

    /// Take positions as times, the first five and a count of the rest.
    static func positions(_ frames: [Int64], rate: Int, verbose: Bool) -> String {
        var text = frames.prefix(5).map { clockText(frames: $0, sampleRate: rate) + (verbose ? " (take frame \($0))" : "") }
            .joined(separator: ", ")
        if frames.count > 5 { text += " and \(frames.count - 5) more" }
        return text
    }

    /// Cells joined two spaces apart into rows no wider than `width`.
    static func wrapped(_ cells: [String], width: Int) -> [String] {
        var rows: [String] = []
        var row = ""
        for cell in cells {
            if !row.isEmpty && row.count + 2 + cell.count > max(20, width) {
                rows.append(row)
                row = ""
            }
            row += (row.isEmpty ? "" : "  ") + cell
        }
        if !row.isEmpty { rows.append(row) }
        return rows
    }
}
