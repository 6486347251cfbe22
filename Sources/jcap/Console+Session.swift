import ArgumentParser
import JackCapture

/// What the console says of a studio session: its tracks, its takes as they start and end, an
/// overdub's playback.
extension Console {
    func fail(_ error: StudioSessionError) -> ExitCode {
        endDisplay()
        line("jcap: error: \(CommandLineAdvice.message(for: error))")
        return ExitCode(ExitStatus(for: error).rawValue)
    }

    func describe(_ session: StudioSession) {
        let definition = session.definition
        let client = session.client
        line("jcap: session '\(definition.name)': client '\(client.jack.name)', \(client.sampleRate) Hz, "
            + "\(client.jack.bufferSize)-frame periods, \(definition.tracks.count) tracks "
            + "(\(session.armedTrackNames.count) armed), \(definition.format.displayName), takes in \(definition.folder)")
        let armed = Set(session.armedTrackNames)
        for (index, track) in definition.tracks.enumerated() {
            line("  \(track.name): \(client.portNames[index]) <- \(client.sources[index])\(armed.contains(track.name) ? "" : " (disarmed)")")
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

    func describe(_ overdub: SessionOverdub) {
        let played = overdub.playedTake
        line("jcap: overdub of take \(played.take) (\(played.frames) frames): client '\(overdub.player.clientName ?? "")', "
            + "playback latency \(overdub.playbackLatency) frames")
        for (port, connections) in zip(overdub.player.portNames, overdub.player.connections) {
            line("  \(port) \(connections.isEmpty ? "(patch by hand)" : "-> " + connections.joined(separator: ", "))")
        }
    }

    func announce(_ overdub: SessionOverdub, _ sessionTake: SessionTake) {
        guard let alignment = sessionTake.overdubAlignment else { return }
        line("jcap: take \(alignment.take) plays from JACK frame \(alignment.playbackStartFrame); take \(sessionTake.numbers.lowerBound) "
            + "starts \(alignment.playbackLatency) frames later on the converters' clock, aligned to it")
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

    func announce(_ sessionTake: SessionTake) {
        let take = sessionTake.recording
        var text = sessionTake.numbers.count == 1 ? "jcap: recording take \(sessionTake.numbers.lowerBound)"
            : "jcap: recording takes \(sessionTake.numbers.lowerBound) to \(sessionTake.numbers.upperBound) back to back"
        text += " (\(take.files.count) file\(take.files.count == 1 ? "" : "s"))"
        if let start = take.scheduledStart { text += ", starting at frame \(start)" }
        if let start = take.scheduledWallClockStart {
            text += ", starting at \(WallClockTime.localDescription(microsecondsSinceEpoch: start))"
        }
        if let frames = take.durationFrames {
            text += take.splitInterval != nil ? ", \(frames) frames in all" : ", \(frames / Int64(sessionTake.numbers.count)) frames each"
        }
        if let split = take.splitInterval { text += splitAnnouncement(split, each: "take") }
        line(text)
        if let alignment = take.latencyAlignment { line(Console.alignmentText(alignment, ports: take.engine.portNames)) }
    }

    /// One line per take recorded, and its problems (`ExitStatus(for:)` gives the status).
    func summarize(_ sessionTake: SessionTake, entries: [TakeLogEntry]) {
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
        for entry in entries {
            var text = "jcap: take \(entry.take) \(entry.status.rawValue): \(entry.frames) frames "
                + "(\(clockText(frames: entry.frames, sampleRate: entry.sampleRate))), \(entry.files.count) file"
                + (entry.files.count == 1 ? "" : "s")
            if let start = entry.startFrame { text += ", from JACK frame \(start)" }
            if let time = entry.startTime { text += " (\(time))" }
            line(text)
            if !entry.lost.isEmpty {
                line("jcap: take \(entry.take): lost frames written as silence at take positions: "
                    + entry.lost.map { "\($0.frames) at \($0.position)" }.joined(separator: "; "))
            }
            if !entry.xruns.isEmpty { line("jcap: take \(entry.take): \(entry.xruns.count) xrun\(entry.xruns.count == 1 ? "" : "s")") }
            let clipped = entry.tracks.filter { ($0.clippedSamples ?? 0) > 0 }
            if !clipped.isEmpty {
                line("jcap: take \(entry.take): clipped: " + clipped.map { "\($0.name) (\($0.clippedSamples ?? 0))" }.joined(separator: ", "))
            }
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
    }
}
