import JackCapture

extension MeterSnapshot {
    /// What the console shows of the control core's state. `shortensNames`: channels named after
    /// ports drop their client when the names stay distinct (`channelNames(sources:)`); a
    /// session's tracks keep their names. A session's title gives its name, the take recording
    /// and the disk time left.
    init(_ state: ControlState, shortensNames: Bool) {
        let snapshotState: State = switch state.mode {
        case .ready: .ready
        case .waiting: state.waitsForPorts ? .waitingForPorts : .countdown(frames: state.framesToStart ?? 0)
        case .recording: .recording
        // Stopping a take that is still waiting to start (Ctrl-C during a countdown): it never
        // recorded, so it is not shown as recording.
        case .stopping: state.position == 0 && state.framesToStart != nil ? .countdown(frames: state.framesToStart ?? 0) : .recording
        case .paused: .paused
        case .playing: .playing
        case .finished: .finished
        }
        // A set: 512 tracks looked up in a list, 20 times a second, were 3 % of a session's CPU.
        let armed = Set(state.armedTracks)
        let session = state.sessionName != nil
        let names = (shortensNames ? MeterSnapshot.channelNames(sources: state.meters.map(\.name)) : state.meters.map(\.name))
            .map(TerminalText.escaped)
        var title: String?
        if let session = state.sessionName {
            var text = "session \(TerminalText.escaped(session))"
            if let take = state.currentTake { text += ", take \(take)" } else if let next = state.nextTake { text += ", next take \(next)" }
            if let seconds = state.recordingSecondsLeft { text += ", " + recordingTimeText(seconds: seconds) + " of recording left" }
            title = text
        }
        self.init(state: snapshotState, sampleRate: state.sampleRate, elapsedFrames: state.position,
                  remainingFrames: state.remainingFrames, bufferFill: state.bufferFill, xruns: state.xruns,
                  lostFrames: state.lostFrames,
                  channels: zip(names, state.meters).enumerated().map { index, channel in
                      // A session's tracks have numbers (their arming keys) and may be disarmed.
                      Channel(name: channel.0, reading: channel.1.reading, label: session ? "\(index + 1)" : nil,
                              armed: !session || armed.contains(channel.1.name),
                              clipLatched: channel.1.clipped, dead: channel.1.dead)
                  }, title: title,
                  question: state.pendingStop.map { "STOP take \($0)? s again" } ?? state.pendingQuit.map { "QUIT during take \($0)? q again" }
                      ?? state.pendingDiscard.map { "DISCARD take \($0)? y" })
        sessionName = state.sessionName
        takeNumber = state.sessionName == nil ? nil : state.currentTake
        diskSecondsLeft = state.recordingSecondsLeft
    }
}
