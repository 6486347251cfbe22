import JackCapture

extension Console {
    /// Says what the control core reports, each event on its own line(s) as jcap always has.
    func tell(_ event: ControlEvent, _ wording: EventWording) {
        switch event {
        case .waitingForPorts(let ports):
            line("jcap: waiting for \(ports.joined(separator: ", ")) to be connected")
        case .stoppedBeforePortsConnected:
            line("jcap: stopped before any port was connected; nothing recorded")
        case .awaitingTakes:
            if let text = wording.waitingLine { line(text) }
        case .takeStarted(let take):
            announceStart(take, verbose: wording.verbose)
        case .sessionTakeStarted(let sessionTake, let overdub):
            announce(sessionTake, verbose: wording.verbose)
            if let overdub { announce(overdub, sessionTake, verbose: wording.verbose) }
        case .cuedTakeStarted(let sessionTake, let frame, let preRoll):
            announce(sessionTake, verbose: wording.verbose)
            let ahead = wording.preRoll ?? preRoll.map { "\($0)" } ?? ""
            line("jcap: recording from \(ahead) before " + (wording.verbose ? "JACK frame \(frame)" : "the cue"))
        case .capture(let event):
            report(event, wording)
        case .segmentWritten(let segment, let take):
            wrote(segment, of: take, verbose: wording.verbose)
        case .stopping(let take?, let frame, _):
            line("jcap: stopping take \(take)" + (wording.verbose ? " before JACK frame \(frame)" : ""))
        case .stopping(nil, let frame, let origin):
            line("jcap: \(Console.interruption(origin).map { $0 + ", " } ?? "")stopping" + (wording.verbose ? " before JACK frame \(frame)" : ""))
        case .quitting(let origin):
            if let text = Console.interruption(origin) { line("jcap: \(text)") }
        case .takeFinished(let take, let report):
            if mode == .json { StandardStreams.writeOutput(TakeSummaryJSON(report, names: wording.channelNames).encoded() + "\n") }
            var detail = TakeSummaryDetail()
            detail.segmentsShown = take.splitInterval != nil
            detail.showsFrames = wording.verbose || take.scheduledStart != nil
            detail.startMicroseconds = report.startFrame.map { Take.wallClockMicroseconds(ofFrame: $0, on: take.jack) }
            detail.xruns = SessionTake.xruns(in: report.events, period: take.jack.bufferSize)
            summarize(report, names: wording.channelNames, detail: detail)
        case .transportAlreadyRolling(let session):
            line("jcap: the transport was already rolling when \(session ? "the take was" : "jcap got") ready; waiting for the next roll")
        case .sessionTakeFinished(let sessionTake, let entries):
            if mode == .json {
                for entry in entries {
                    StandardStreams.writeOutput(TakeSummaryJSON(entry, session: wording.sessionName ?? "", folder: sessionTake.folder).encoded() + "\n")
                }
            }
            summarize(sessionTake, entries: entries, verbose: wording.verbose)
        case .overdubPlayed(let overdub):
            summarizePlayback(overdub)
        case .playbackStarted(let from, let frame, let late):
            line("jcap: playing from file frame \(from), starting at JACK frame \(frame)" + (late > 0 ? " (\(late) frames late)" : ""))
        case .playbackPaused(let frame):
            line("jcap: paused at file frame \(frame)")
        case .playbackResumed(let frame):
            line("jcap: playing from file frame \(frame)")
        case .seeking(let frame):
            line("jcap: seeking to file frame \(frame)")
        case .playbackInterrupted(.outputDisconnected(let port)):
            line("jcap: \(port) lost its last connection: playing goes on, unheard there until patched again")
        case .playbackInterrupted(.bufferSizeChanged(let frames)):
            line("jcap: the server's period changed to \(frames) frames; playing goes on")
        case .playbackInterrupted(.sampleRateChanged(let rate)):
            line("jcap: error: the server's sample rate changed to \(rate) Hz: playing stopped (it would play at the wrong speed)")
        case .playbackInterrupted(.serverShutDown):
            break
        case .playbackFinished(let summary):
            summarize(summary)
        case .stopAsked(let take, let seconds):
            line("jcap: stop take \(take)? s again within \(Int(seconds)) s stops it; any other key keeps recording")
        case .quitAsked(let take, let seconds):
            line("jcap: take \(take) is recording: q again within \(Int(seconds)) s ends it and quits; any other key keeps recording")
        case .keptRecording(let take):
            line("jcap: take \(take) goes on recording")
        case .discardAsked(let take):
            line("jcap: discard take \(take) and remove its files? (y/n)")
        case .takeKept(let take):
            line("jcap: take \(take) kept")
        case .takeDiscarded(let take):
            line("jcap: take \(take) discarded: its files are removed, the log says so")
        case .noteSet(let take):
            line("jcap: take \(take): note set")
        case .markerDropped(let take, let marker):
            line("jcap: take \(take): marker at \(marker.time ?? "")" + (wording.verbose ? " (take frame \(marker.position))" : ""))
        case .trackArmed(let track, let armed):
            line("jcap: \(track) \(armed ? "armed" : "disarmed") from the next take on")
        case .takeMarked(let take, let mark):
            line("jcap: take \(take): " + (mark.map { "marked \(TakeListing.markText($0))" } ?? "mark cleared"))
        case .trackDead(let track, .unpatched?):
            line("jcap: warning: \(track) is dead: nothing is patched to its input")
        case .trackDead(let track, .silent?):
            line("jcap: warning: \(track) is dead: below \(Int(DeadTrack.level)) dBFS for \(Int(DeadTrack.seconds)) s while other tracks carry signal")
        case .trackDead(let track, nil):
            line("jcap: \(track) has signal again")
        case .refused(_, let refusal):
            line("jcap: \(refusal)")
        case .error(let error):
            line("jcap: error: \(CommandLineAdvice.message(for: error))")
        case .failed(let error):
            endDisplay()
            line("jcap: error: \(CommandLineAdvice.message(for: error))")
        case .serverShutDown:
            line("jcap: the JACK server shut down; waiting for it to come back (Ctrl-C quits)")
        case .serverBackWithoutSources(let error):
            line("jcap: the JACK server is back; waiting for the sources: \(CommandLineAdvice.message(for: error))")
        case .serverReturned(let ports, _):
            line("jcap: the JACK server is back: \(ports.count) port\(ports.count == 1 ? "" : "s") open again and connected")
        }
    }

    /// "interrupted" for SIGINT, "terminated" for SIGTERM.
    private static func interruption(_ origin: ControlOrigin) -> String? {
        switch origin {
        case .surface: nil
        case .interrupt: "interrupted"
        case .terminate: "terminated"
        }
    }

    /// How playback ended: its underruns, a file that stopped decoding, the server, the last frame.
    func summarize(_ summary: PlaybackSummary) {
        endDisplay()
        for underrun in summary.underruns {
            line("jcap: underrun: \(underrun.frames) frames of silence at file frame \(underrun.position) "
                 + "(JACK frame \(underrun.jackFrame))")
        }
        if let error = summary.decodeError {
            // Its ports played silence from there; the other files played on.
            line("jcap: error: \(error)")
            return
        }
        if summary.serverShutDown {
            line("jcap: error: the JACK server shut down; playing stopped at file frame \(summary.position)")
            return
        }
        let underruns = summary.underruns
        line("jcap: \(summary.stopped ? "stopped at" : "played to") file frame \(summary.position)"
             + (underruns.isEmpty ? "" : ", \(summary.underrunFrames) frames of silence in \(underruns.count) underruns"))
    }
}
