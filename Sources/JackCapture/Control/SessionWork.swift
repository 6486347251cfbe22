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
    /// A stop or quit `requestStop` or `requestQuit` asked about, until its answer or `deadline`.
    private var question: (kind: Question, take: Int, deadline: Date)?
    private var nextNumber: Int
    private let watch = TrackWatch()
    /// Whether each track's port has a connection, as last read (`ConnectionLooks`: a thousand
    /// ports are not read 20 times a second).
    private var connected: [Bool] = []
    private var connectionLooks = ConnectionLooks(interval: 500_000_000)
    /// The last take in the log (not discarded or deleted), read again when the log changes.
    private var lastLogged: TakeLogEntry?

    private enum Question { case stop, quit }
    /// The server went away: waiting for it to come back (polled every `serverPollInterval`).
    private var awaitingServer = false
    private var lastServerPoll = Date.distantPast
    private var toldSourcesMissing = false
    /// Unattended: the takes still to record when the server comes back (those it cut short or
    /// that never began).
    private var takesAfterServerReturns = 0
    /// Unattended, when the server went before the first take began: a start on the wall clock
    /// still holds when it is back (a start on the old server's frames does not).
    private var startAfterServerReturns: StartTime?
    private static let serverPollInterval: TimeInterval = 0.5

    init(session: StudioSession, overdub: SessionOverdub?, plan: SessionPlan) {
        self.session = session
        self.overdub = overdub
        self.plan = plan
        nextNumber = session.log.nextTakeNumber()
        super.init()
        readLastTake()
    }

    private func readLastTake() {
        lastLogged = (try? session.log.read().entries)?.last { !$0.status.isRemoved }
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
                return command == .quit || command == .requestQuit ? quit(origin) : .awaitingConfirmation(take: number)
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
            readLastTake()
            return nil
        }
        switch command {
        case .requestStop, .requestQuit, .confirmStop, .confirmQuit:
            return askOrAnswer(command, origin: origin)
        case .record:
            guard isInteractive else { return .takesStartThemselves }
            if let take = running {
                // r on a paused take picks it up again, as the record button of a recorder does.
                guard take.recording.state == .paused, !stopping else { return .takeRecording(command) }
                return ControlledWork.pauseOrResume(take.recording, .resume, stopping: stopping)
            }
            guard !awaitingServer else { return .serverGone }
            return recordNow()
        case .togglePause, .pause, .resume:
            return ControlledWork.pauseOrResume(running?.recording, command, stopping: stopping)
        case .stop:
            guard let take = running else { return .nothingRunning(command) }
            guard !stopping else { return .stopping }
            question = nil
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
            readLastTake()
            emit(.takeMarked(take: take, mark))
            return nil
        case .note(let take, let text):
            do {
                try session.setNote(take: take, text)
            } catch {
                emit(.error(.session(error)))
                return nil
            }
            readLastTake()
            emit(.noteSet(take: take))
            return nil
        case .clearClips:
            watch.clearClips()
            return nil
        case .dropMarker:
            guard let take = running, take.recording.state == .recording || take.recording.state == .paused, !stopping else {
                return stopping ? .stopping : .nothingRunning(command)
            }
            do {
                let marker = try session.addMarker(take: take.currentNumber, at: take.recording.status.position)
                emit(.markerDropped(take: take.currentNumber, marker))
            } catch {
                emit(.error(.session(error)))
            }
            return nil
        case .seekTo, .seekBy:
            return .needsPlayback(command)
        case .toggleMute(let track), .toggleSolo(let track):
            // An overdub monitoring the played take as a mix (--mix) mutes and solos its tracks.
            guard let overdub else { return .needsMix(command) }
            var solo = false
            if case .toggleSolo = command { solo = true }
            return overdub.player.toggleInMix(track: track, solo: solo) ? nil : .needsMix(command)
        }
    }

    /// `requestStop` and `requestQuit` ask about the running take (the same request again
    /// confirms); `confirmStop` and `confirmQuit` answer. Between takes a quit needs no question.
    private func askOrAnswer(_ command: ControlCommand, origin: ControlOrigin) -> ControlRefusal? {
        let kind: Question = switch command {
        case .requestStop, .confirmStop: .stop
        default: .quit
        }
        switch command {
        case .confirmStop(let yes), .confirmQuit(let yes):
            guard question?.kind == kind else { return .nothingToConfirm }
            return answer(yes, origin: origin)
        default:
            if question?.kind == kind { return answer(true, origin: origin) }
            guard let take = running, !stopping else {
                if kind == .quit { return apply(.quit, origin: origin) }
                return running == nil ? .nothingRunning(command) : .stopping
            }
            let number = take.currentNumber
            question = (kind, number, Date().addingTimeInterval(ControlCore.confirmationSeconds))
            emit(kind == .stop ? .stopAsked(take: number, seconds: ControlCore.confirmationSeconds)
                : .quitAsked(take: number, seconds: ControlCore.confirmationSeconds))
            return nil
        }
    }

    private func answer(_ yes: Bool, origin: ControlOrigin) -> ControlRefusal? {
        guard let asked = question else { return .nothingToConfirm }
        question = nil
        guard yes else {
            emit(.keptRecording(take: asked.take))
            return nil
        }
        return apply(asked.kind == .stop ? .stop : .quit, origin: origin)
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
        question = nil
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
        if awaitingServer {
            if quitting { finish() } else { pollServer() }
            return
        }
        if let asked = question, Date() >= asked.deadline {
            question = nil
            emit(.keptRecording(take: asked.take))
        }
        if let running {
            if !announced, case .eachTrigger = plan, !running.recording.isWaitingForTrigger { announce() }
            for event in running.recording.takeEvents() where !isKnownAlready(event) { emit(.capture(event)) }
            if running.recording.isFinished || (quitting && isInteractive) { finishTake() }
        }
        if isInteractive {
            if quitting {
                cancelCued()
                finish()
                return
            }
            if running == nil && session.isServerGone {
                awaitServer()
                return
            }
            armCued()
        }
    }

    /// A take that starts on an input already unpatched reports the disconnection at its frame 0:
    /// the track was told dead when it happened (`trackDead`), so that is no news.
    private func isKnownAlready(_ event: CaptureEvent) -> Bool {
        guard case .portDisconnected(let channel, _, _, 0, _) = event, channel < watch.dead.count else { return false }
        return watch.dead[channel] == .unpatched
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
        question = nil
        nextNumber = session.log.nextTakeNumber()
        readLastTake()
        if case .eachTrigger = plan {
            switch take.recording.finish().outcome {
            case .cancelled:
                break  // Stopped while waiting for its trigger: nothing recorded, nothing to tell.
            case .missedStart:
                emit(.transportAlreadyRolling(session: true))
            default:
                emit(.sessionTakeFinished(take, entries: entries))
            }
            if quitting { finish() } else if canWaitForServer { awaitServer() } else { recordOnTrigger() }
            return
        }
        emit(.sessionTakeFinished(take, entries: entries))
        if let overdub { emit(.overdubPlayed(overdub)) }
        if case .unattended(_, _, let takes, _, _) = plan {
            if !quitting && canWaitForServer {
                // Takes the server cut short are recorded again, in full, with those never begun.
                takesAfterServerReturns = takes - entries.filter { $0.status != .serverShutdown }.count
                startAfterServerReturns = nil
                if entries.isEmpty, case .unattended(let start, _, _, _, _) = plan {
                    switch start {
                    case .wallClock?, .dateTime?: startAfterServerReturns = start
                    default: break
                    }
                }
                if takesAfterServerReturns > 0 {
                    awaitServer()
                    return
                }
            }
            finish()
        }
    }

    /// The server is gone and the session can wait for it: an overdub cannot (its player's
    /// client went with the server, and the take it dubs would be played from elsewhere).
    private var canWaitForServer: Bool { overdub == nil && session.isServerGone }

    /// Says once that the server is gone and that jcap waits for it; `update` polls.
    private func awaitServer() {
        cancelCued()
        awaitingServer = true
        toldSourcesMissing = false
        lastServerPoll = .distantPast
        emit(.serverShutDown)
    }

    /// Tries to reach the server again (at most every `serverPollInterval`); when the session is
    /// open on it again, takes go on as before: the next numbered after the last.
    private func pollServer() {
        guard Date().timeIntervalSince(lastServerPoll) >= Self.serverPollInterval else { return }
        lastServerPoll = Date()
        let found: SessionServerReturn
        do { found = try session.reopenOnReturnedServer() } catch {
            fail(error)
            return
        }
        switch found {
        case .notYet:
            return
        case .sourcesMissing(let error):
            if !toldSourcesMissing { emit(.serverBackWithoutSources(error)) }
            toldSourcesMissing = true
            return
        case .reopened:
            break
        }
        awaitingServer = false
        nextNumber = session.log.nextTakeNumber()
        emit(.serverReturned(ports: session.client.portNames, sources: session.sources))
        switch plan {
        case .interactive:
            armCued()
        case .eachTrigger(let level, _):
            if level == nil { session.client.watchTransport() }
            recordOnTrigger()
        case .unattended(_, let length, _, let split, _):
            do throws(StudioSessionError) {
                running = try session.record(at: startAfterServerReturns, length: length,
                                             takes: takesAfterServerReturns, split: split)
            } catch {
                fail(error)
                return
            }
            stopping = false
            announce()
        }
    }

    override func state() -> ControlState {
        var state = ControlledWork.captureState(client: session.client, take: running?.recording, names: session.trackNames)
        state.armedTracks = session.armedTrackNames
        let client = session.client
        if connectionLooks.isDue(connectionChanges: client.host.connectionChanges, now: DispatchTime.now().uptimeNanoseconds) {
            connected = client.engine.ports.map { client.jack.connectionCount(of: $0) > 0 }
        }
        let peaks = client.meters.recentPeaks()
        for change in watch.watch(&state.meters, connected: connected, recentPeaks: peaks,
                                  meteredFrames: client.meters.meteredFrames) {
            emit(.trackDead(track: state.meters[change.index].name, change.dead))
        }
        if running == nil { state.mode = .ready }
        if stopping && running != nil { state.mode = .stopping }
        if isFinished { state.mode = .finished }
        state.sessionName = session.definition.name
        state.currentTake = running?.currentNumber
        state.nextTake = running == nil ? nextNumber : nil
        if let running, !running.recording.isWaitingForTrigger {
            state.lastTake = running.currentNumber
            if lastLogged?.take == running.currentNumber {
                state.lastTakeMark = lastLogged?.mark
                state.lastTakeNote = lastLogged?.note
            }
        } else if let last = lastLogged {
            state.lastTake = last.take
            state.lastTakeMark = last.mark
            state.lastTakeNote = last.note
        }
        state.recordingSecondsLeft = session.recordingSecondsLeft
        state.pendingDiscard = pendingDiscard
        state.pendingStop = question?.kind == .stop ? question?.take : nil
        state.pendingQuit = question?.kind == .quit ? question?.take : nil
        return state
    }

    override func wait(upTo seconds: TimeInterval) {
        wait(on: running?.recording, upTo: seconds)
    }
}
