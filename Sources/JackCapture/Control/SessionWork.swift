import Foundation

/// A `StudioSession`'s takes under a `ControlCore`: interactive, unattended, or on triggers, each
/// take possibly an overdub.
final class SessionWork: ControlledWork {
    private let session: StudioSession
    private let overdub: SessionOverdub?
    private let plan: SessionPlan
    /// The take recording (or, on triggers, waiting for its trigger).
    private var running: SessionTake?
    /// Interactive with a pre-roll: the next take, waiting armed for `record` so the ring keeps
    /// the pre-roll.
    private var cued: SessionTake?
    private var announced = false
    private var stopping = false
    private var quitting = false
    private var pendingDiscard: Int?
    private var nextNumber: Int

    init(session: StudioSession, overdub: SessionOverdub?, plan: SessionPlan) {
        self.session = session
        self.overdub = overdub
        self.plan = plan
        nextNumber = session.log.nextTakeNumber()
    }

    private var isInteractive: Bool {
        if case .interactive = plan { return true }
        return false
    }

    private var preRolls: Bool { isInteractive && session.definition.preRoll != nil }

    override func start() {
        switch plan {
        case .interactive:
            armCued()
        case .unattended(let start, let length, let takes, let split, let overdubStart):
            do throws(StudioSessionError) {
                if let overdub {
                    running = try overdub.record(playingAt: overdubStart, length: length)
                } else {
                    running = try session.record(at: start, length: length, takes: takes, split: split)
                }
            } catch {
                fail(error)
                return
            }
            announce()
        case .eachTrigger(let level, _):
            if level == nil { session.client.watchTransport() }
            emit(.awaitingTakes(level: level, preRoll: session.definition.preRoll))
            recordOnTrigger()
        }
    }

    private func fail(_ error: StudioSessionError) {
        emit(.failed(.session(error)))
        finish()
    }

    private func announce() {
        guard let running else { return }
        announced = true
        emit(.sessionTakeStarted(running, overdub: overdub))
        // Connections made while the session opened were told of with it; later ones are news.
        _ = running.recording.takeEvents()
    }

    private func recordOnTrigger() {
        guard case .eachTrigger(let level, let length) = plan else { return }
        stopping = false
        announced = false
        do {
            running = try session.record(length: length, onTransportRoll: level == nil, onLevel: level)
        } catch {
            fail(error)
            return
        }
        _ = running?.recording.takeEvents()
    }

    private func armCued() {
        guard preRolls, running == nil, cued == nil, pendingDiscard == nil, !quitting else { return }
        do {
            cued = try session.record(onCue: true)
        } catch {
            emit(.error(.session(error)))
        }
    }

    private func cancelCued() {
        guard let armed = cued else { return }
        armed.stop()
        _ = armed.finish()
        cued = nil
    }

    override func apply(_ command: ControlCommand, origin: ControlOrigin) -> ControlRefusal? {
        if let number = pendingDiscard {
            guard case .confirmDiscard(let yes) = command else {
                return command == .quit ? quit(origin) : .awaitingConfirmation(take: number)
            }
            pendingDiscard = nil
            guard yes else {
                emit(.takeKept(take: number))
                return nil
            }
            do {
                if let discarded = try session.discardLastTake() { emit(.takeDiscarded(take: discarded)) }
            } catch {
                emit(.error(.session(error)))
            }
            nextNumber = session.log.nextTakeNumber()
            return nil
        }
        switch command {
        case .record:
            guard isInteractive else { return .takesStartThemselves }
            guard running == nil else { return .takeRecording(command) }
            return recordNow()
        case .togglePause, .pause, .resume:
            return ControlledWork.pauseOrResume(running?.recording, command, stopping: stopping)
        case .stop:
            guard let take = running else { return .nothingRunning(command) }
            guard !stopping else { return .stopping }
            stop(take, origin: origin)
            if isInteractive { finishTake() }
            return nil
        case .quit:
            return quit(origin)
        case .discardLastTake:
            guard isInteractive else { return .takesStartThemselves }
            guard running == nil else { return .takeRecording(command) }
            cancelCued()
            guard let last = try? session.log.read().entries.last(where: { $0.status != .discarded && $0.status != .deleted }) else {
                return .noTakeToDiscard
            }
            pendingDiscard = last.take
            emit(.discardAsked(take: last.take))
            return nil
        case .confirmDiscard:
            return .nothingToConfirm
        case .arm(let track), .disarm(let track):
            guard running == nil else { return .takeRecording(command) }
            // A cued take has its tracks already; the next one is cued with the new ones.
            cancelCued()
            do {
                try session.setArmed(command == .arm(track: track), track: track)
            } catch {
                emit(.error(.session(error)))
                return nil
            }
            emit(.trackArmed(track: track, armed: command == .arm(track: track)))
            return nil
        case .mark(let take, let mark):
            do {
                try session.mark(take: take, as: mark)
            } catch {
                emit(.error(.session(error)))
                return nil
            }
            emit(.takeMarked(take: take, mark))
            return nil
        case .note(let take, let text):
            do {
                try session.setNote(take: take, text)
            } catch {
                emit(.error(.session(error)))
                return nil
            }
            emit(.noteSet(take: take))
            return nil
        case .seekTo, .seekBy:
            return .needsPlayback(command)
        case .toggleMute, .toggleSolo:
            return .needsPlayback(command)
        }
    }

    /// `record` in an interactive session: the cued take starts, or a new one now.
    private func recordNow() -> ControlRefusal? {
        if let armed = cued {
            let frame = armed.recording.cue()
            running = armed
            cued = nil
            announced = true
            emit(.cuedTakeStarted(armed, frame: frame, preRoll: session.definition.preRoll))
            _ = armed.recording.takeEvents()
            return nil
        }
        do throws(StudioSessionError) {
            if let overdub { running = try overdub.record() } else { running = try session.record() }
        } catch {
            emit(.error(.session(error)))
            return nil
        }
        stopping = false
        announce()
        return nil
    }

    /// Stops the running take (and an overdub's playback) and says so.
    private func stop(_ take: SessionTake, origin: ControlOrigin) {
        let waiting = take.recording.isWaitingForTrigger
        let frame = overdub?.stop(take) ?? take.stop()
        stopping = true
        switch plan {
        case .interactive: emit(.stopping(take: take.currentNumber, frame: frame, origin: origin))
        case .unattended: emit(.stopping(take: nil, frame: frame, origin: origin))
        case .eachTrigger: if !waiting { emit(.stopping(take: nil, frame: frame, origin: origin)) }
        }
    }

    private func quit(_ origin: ControlOrigin) -> ControlRefusal? {
        guard !quitting else { return nil }
        quitting = true
        switch plan {
        case .interactive:
            emit(.quitting(origin: origin))
            pendingDiscard = nil
            running?.stop()
        case .unattended, .eachTrigger:
            if let running, !stopping { stop(running, origin: origin) }
        }
        return nil
    }

    override func update() {
        if let running {
            if !announced, case .eachTrigger = plan, !running.recording.isWaitingForTrigger { announce() }
            for event in running.recording.takeEvents() { emit(.capture(event)) }
            if running.recording.isFinished || (quitting && isInteractive) { finishTake() }
        }
        if isInteractive {
            if quitting {
                cancelCued()
                finish()
                return
            }
            if running == nil && session.client.engine.status.serverGone {
                cancelCued()
                emit(.serverShutDown)
                finish()
                return
            }
            armCued()
        }
    }

    /// The running take has ended (or is to end now): its log entries, then what comes next.
    private func finishTake() {
        guard let take = running else { return }
        for event in take.recording.takeEvents() { emit(.capture(event)) }
        if isInteractive { overdub?.player.stop() }
        let entries = take.finish()
        for event in take.recording.takeEvents() { emit(.capture(event)) }
        running = nil
        stopping = false
        nextNumber = session.log.nextTakeNumber()
        if case .eachTrigger = plan {
            switch take.recording.finish().outcome {
            case .cancelled:
                break  // Stopped while waiting for its trigger: nothing recorded, nothing to tell.
            case .missedStart:
                emit(.transportAlreadyRolling(session: true))
            default:
                emit(.sessionTakeFinished(take, entries: entries))
            }
            if quitting { finish() } else { recordOnTrigger() }
            return
        }
        emit(.sessionTakeFinished(take, entries: entries))
        if let overdub { emit(.overdubPlayed(overdub)) }
        if case .unattended = plan { finish() }
    }

    override func state() -> ControlState {
        var state = ControlledWork.captureState(client: session.client, take: running?.recording, names: session.trackNames)
        state.armedTracks = session.armedTrackNames
        if running == nil { state.mode = .ready }
        if stopping && running != nil { state.mode = .stopping }
        if isFinished { state.mode = .finished }
        state.sessionName = session.definition.name
        state.currentTake = running?.currentNumber
        state.nextTake = running == nil ? nextNumber : nil
        state.recordingSecondsLeft = session.recordingSecondsLeft
        state.pendingDiscard = pendingDiscard
        return state
    }

    override func wait(upTo seconds: TimeInterval) {
        wait(on: running?.recording, upTo: seconds)
    }
}
