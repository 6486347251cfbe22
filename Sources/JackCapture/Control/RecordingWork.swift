import Foundation

/// A `CaptureClient`'s take, or take after take, under a `ControlCore`.
final class RecordingWork: ControlledWork {
    private let capture: CaptureClient
    private let plan: RecordingPlan
    private var take: Take?
    private var waitsForPorts = false
    private var stopping = false
    private var quitting = false

    init(capture: CaptureClient, plan: RecordingPlan) {
        self.capture = capture
        self.plan = plan
    }

    /// The channels as the meters name them: the sources, or the ports patched by hand.
    private var names: [String] { capture.configuration.connectsPorts ? capture.sources : capture.portNames }

    override func start() {
        if !capture.configuration.connectsPorts && !capture.isReady {
            waitsForPorts = true
            emit(.waitingForPorts(capture.portNames))
            return
        }
        beginTakes()
    }

    private func beginTakes() {
        waitsForPorts = false
        if plan.takeAfterTake {
            if capture.configuration.followsTransport { capture.watchTransport() }
            emit(.awaitingTakes(level: capture.configuration.triggerLevel, preRoll: capture.configuration.preRoll))
        }
        beginTake()
    }

    private func beginTake() {
        stopping = false
        do {
            let next = try capture.makeTake(path: plan.takeAfterTake ? numberedPath() : nil)
            try next.start()
            take = next
        } catch {
            emit(.failed(.capture(error)))
            finish()
            return
        }
        emit(.takeStarted(take!))
        // Connections made while setting up were told of with the client; later ones are news.
        _ = take?.takeEvents()
    }

    /// Take after take into a named file: the next number after it that no file has.
    private func numberedPath() -> String? {
        guard let output = capture.configuration.outputPath else { return nil }
        let directory = output.lastIndex(of: "/").map { String(output[...$0]) } ?? "."
        return TakeNaming.nextNumberedPath(after: output, existing: TakeNaming.fileNames(inDirectory: directory))
    }

    override func apply(_ command: ControlCommand, origin: ControlOrigin) -> ControlRefusal? {
        // One take: nothing to guard (the terminal's keys have always stopped it at once).
        let command: ControlCommand = switch command {
        case .requestStop: .stop
        case .requestQuit: .quit
        default: command
        }
        switch command {
        case .stop, .quit:
            if waitsForPorts {
                emit(.stoppedBeforePortsConnected)
                finish()
                return nil
            }
            if command == .quit || !plan.takeAfterTake { quitting = true }
            guard let take, !stopping else { return command == .quit ? nil : .stopping }
            let waiting = plan.takeAfterTake && take.isWaitingForTrigger
            let frame = take.stop()
            if !waiting { emit(.stopping(take: nil, frame: frame, origin: origin)) }
            stopping = true
            return nil
        case .togglePause, .pause, .resume:
            return ControlledWork.pauseOrResume(take, command, stopping: stopping)
        case .confirmStop, .confirmQuit:
            return .nothingToConfirm
        case .requestStop, .requestQuit:
            return nil  // made .stop and .quit above
        case .record:
            return .takesStartThemselves
        case .discardLastTake, .confirmDiscard, .arm, .disarm, .mark, .note, .clearClips, .dropMarker:
            return .needsSession(command)
        case .seekTo, .seekBy:
            return .needsPlayback(command)
        case .toggleMute, .toggleSolo:
            return .needsPlayback(command)
        }
    }

    override func update() {
        if waitsForPorts {
            if capture.isReady {
                capture.settleInputsPatchedByHand()
                beginTakes()
            }
            return
        }
        guard let take else { return }
        report(take)
        guard take.isFinished else { return }
        let result = take.finish()
        report(take)
        self.take = nil
        if plan.takeAfterTake && result.outcome == .cancelled {
            // Ended while waiting for a roll or for sound: nothing recorded, nothing to tell.
        } else if plan.takeAfterTake && result.outcome == .missedStart {
            emit(.transportAlreadyRolling(session: false))
        } else {
            emit(.takeFinished(take, result))
        }
        if plan.takeAfterTake && !quitting { beginTake() } else { finish() }
    }

    private func report(_ take: Take) {
        for event in take.takeEvents() { emit(.capture(event)) }
        for segment in take.takeFinishedSegments() { emit(.segmentWritten(segment, of: take)) }
    }

    override func state() -> ControlState {
        var state = ControlledWork.captureState(client: capture, take: take, names: names)
        state.waitsForPorts = waitsForPorts
        if isFinished { state.mode = .finished } else if stopping && state.mode != .finished { state.mode = .stopping }
        return state
    }

    override func wait(upTo seconds: TimeInterval) {
        wait(on: take, upTo: seconds)
    }
}
