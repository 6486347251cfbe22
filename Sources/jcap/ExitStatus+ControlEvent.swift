import JackCapture

extension ExitStatus {
    /// What an event of the control core means for the exit status: the run ends with the worst
    /// of them (`worst(_:)`).
    init(for event: ControlEvent) {
        switch event {
        case .stoppedBeforePortsConnected:
            self = .cancelled
        case .takeFinished(_, let report):
            self.init(for: report.outcome)
        case .sessionTakeFinished(let sessionTake, let entries):
            if entries.isEmpty {
                self = sessionTake.recording.report?.outcome == .missedStart ? .startInPast
                    : sessionTake.stopReason == .diskFull ? .diskFull : .cancelled
            } else {
                self = .worst(entries.map { ExitStatus(for: $0.status) })
            }
            // A line the log lacks is worse than how the take ended: the folder needs opening again.
            if sessionTake.logError != nil { self = .worst(self, .takeLogFailed) }
        case .overdubPlayed(let overdub):
            // Each underrun shifts the rest of the playback against the recording.
            self = overdub.playbackUnderruns.isEmpty ? .success : .lostFrames
        case .playbackFinished(let summary):
            if summary.decodeError != nil {
                self = .decodeFailed
            } else if summary.serverShutDown {
                self = .serverShutDown
            } else if summary.changedSampleRate != nil {
                self = .sampleRateChanged
            } else {
                self = summary.underruns.isEmpty ? .success : .lostFrames
            }
        case .failed(let error):
            self.init(for: error)
        case .serverShutDown:
            self = .serverShutDown
        default:
            self = .success
        }
    }

    init(for error: ControlError) {
        switch error {
        case .capture(let error): self.init(for: error)
        case .session(let error): self.init(for: error)
        case .player(let error): self.init(for: error)
        }
    }
}
