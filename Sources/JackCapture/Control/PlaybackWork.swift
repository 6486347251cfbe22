import Foundation

/// A `Player` under a `ControlCore`: started as its plan says, paused, resumed, sought and stopped
/// by commands, until it plays to the end.
final class PlaybackWork: ControlledWork {
    private let player: Player
    private let plan: PlaybackPlan
    private let finishWaiter = PlaybackFinishWaiter()
    private var paused = false
    private var stopped = false
    private var announced = false
    private var interruptionsTold = 0
    /// The rate the server changed to, when that stopped the playback.
    private var changedSampleRate: Int?

    init(player: Player, plan: PlaybackPlan) {
        self.player = player
        self.plan = plan
        super.init()
        player.delegate = finishWaiter
    }

    override func start() {
        player.currentFrame = min(plan.fromFrame, player.durationFrames)
        do throws(PlayerError) {
            switch plan.start {
            case .now: try player.play()
            case .atFrame(let frame): try player.play(atFrame: frame)
            case .atWallClock(let microseconds):
                try player.play(atJackNanoseconds: WallClockToJack.jackNanoseconds(atWallClockMicroseconds: microseconds))
            }
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: PlayerError) {
        player.stop()
        emit(.failed(.player(error)))
        finish()
    }

    override func apply(_ command: ControlCommand, origin: ControlOrigin) -> ControlRefusal? {
        switch command {
        case .togglePause, .pause, .resume:
            let resuming = command == .resume || (command == .togglePause && paused)
            guard resuming == paused else { return paused ? .alreadyPaused : .notPaused }
            if resuming {
                do throws(PlayerError) { try player.play() } catch {
                    fail(error)
                    return nil
                }
                emit(.playbackResumed(atFrame: player.currentFrame))
            } else {
                player.pause()
                emit(.playbackPaused(atFrame: player.currentFrame))
            }
            paused.toggle()
            return nil
        case .seekTo(let frame):
            seek(to: frame)
            return nil
        case .seekBy(let frames):
            seek(to: player.currentFrame + frames)
            return nil
        case .stop, .quit, .requestStop, .requestQuit:
            player.stop()
            stopped = true
            end()
            return nil
        case .confirmStop, .confirmQuit:
            return .nothingToConfirm
        case .record:
            return .notWhilePlaying(command)
        case .toggleMute(let track), .toggleSolo(let track):
            // Only a mix has tracks to mute; a number past its tracks does nothing.
            var solo = false
            if case .toggleSolo = command { solo = true }
            return player.toggleInMix(track: track, solo: solo) ? nil : .needsMix(command)
        case .discardLastTake, .confirmDiscard, .arm, .disarm, .mark, .note, .clearClips, .dropMarker:
            return .needsSession(command)
        }
    }

    private func seek(to frame: Int64) {
        let target = min(max(0, frame), player.durationFrames)
        player.currentFrame = target
        emit(.seeking(toFrame: target))
    }

    override func update() {
        if case .atWallClock(let microseconds) = plan.start, player.startedFrame == nil {
            // Converted again each pass until the start's cycle decides it.
            player.updateClockStart(WallClockToJack.jackNanoseconds(atWallClockMicroseconds: microseconds))
        }
        if !announced, let frame = player.startedFrame {
            announced = true
            emit(.playbackStarted(fromFrame: plan.fromFrame, jackFrame: frame, late: player.lateStartFrames))
        }
        let interruptions = player.interruptions
        for interruption in interruptions.dropFirst(interruptionsTold) {
            // A shutdown ends the playback; its summary says so.
            if interruption == .serverShutDown { continue }
            emit(.playbackInterrupted(interruption))
            if case .sampleRateChanged(let rate) = interruption {
                // The rings hold frames made for the old rate: they would play at the wrong speed
                // and pitch. Stopped where it is, as a recording stops at a rate change.
                player.stop()
                changedSampleRate = rate
                interruptionsTold = interruptions.count
                return end()
            }
        }
        interruptionsTold = interruptions.count
        if finishWaiter.outcome != nil { end() }
    }

    /// Played to the end, stopped, or cut short: how it went.
    private func end() {
        emit(.playbackFinished(PlaybackSummary(
            stopped: stopped,
            position: stopped || changedSampleRate != nil || finishWaiter.outcome == false
                ? player.currentFrame : player.durationFrames,
            underruns: player.underruns, underrunFrames: player.underrunFrames,
            decodeError: player.decodeErrors.first, serverShutDown: finishWaiter.outcome == false,
            changedSampleRate: changedSampleRate)))
        finish()
    }

    override func state() -> ControlState {
        let position = player.currentFrame
        var state = ControlState(mode: .finished, sampleRate: player.fileSampleRate)
        switch player.phase {
        case .playing: state.mode = .playing
        case .waiting:
            state.mode = .waiting
            if case .atFrame(let frame) = plan.start {
                state.framesToStart = Int64(max(0, FrameTime.distance(from: player.estimatedFrameTime, to: frame)))
            } else {
                state.framesToStart = 0
            }
        case .idle:
            if paused {
                state.mode = .paused
            } else if player.isPlaying {
                state.mode = .waiting
                state.framesToStart = 0
            }
        }
        if isFinished { state.mode = .finished }
        state.position = position
        state.remainingFrames = max(0, player.durationFrames - position)
        state.bufferFill = player.bufferFill
        state.xruns = Int64(player.xruns)
        state.lostFrames = Int64(player.underrunFrames)
        let names = player.portNames
        state.armedTracks = names
        if player.isMeteringEnabled { player.updateMeters() }
        state.meters = names.indices.map {
            ControlState.TrackMeter(name: names[$0], reading: player.isMeteringEnabled ? player.meterReading(forChannel: $0) : .silent)
        }
        return state
    }

    override func wait(upTo seconds: TimeInterval) {
        // Short waits: a wall-clock start is converted again each pass, keys act at once.
        sleep(upTo: min(seconds, 0.01))
    }
}
