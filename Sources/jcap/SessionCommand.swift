import ArgumentParser
import JackCapture

/// `jcap session FILE`: opens a studio session (sessions/README.md) and records take after take,
/// or, with `--at`, `--for` or `--takes`, records unattended and exits with jcap's statuses.
struct SessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Open a studio session: named tracks, one file per track, numbered takes, a take log.",
        discussion: """
            Keys: r records a new take now, space pauses and resumes, s or Enter stops the take
            (the session stays open), d discards the last take (asks first), q quits (finishing
            any take). Ctrl-C and SIGTERM finish the take and quit. Keys may also come from a pipe.

            With --at, --for, --takes or --split it records unattended: one take (or N
            back to back, or a new take on each clock boundary with --split) and exits.

            With --overdub N, take N plays (its tracks on ports <session>-play:<track>, connected
            to the physical playback ports or --playback-channels/--playback-port) while the
            armed tracks record the next take, as long as take N unless --for says otherwise. The
            new take lines up with take N to the sample: it starts the playback latency of the
            ports take N plays to after take N's first frame goes out, and each track is aligned
            to its capture latency (as --align-latency). The log's "overdub" says how.

            Exit status as jcap's, and: 8 a take stopped because the disk was nearly full;
            20 bad session file (file:line: key: why); 21 the server runs another sample rate;
            22 the take log failed or another jcap has the session open; 23 --overdub names a
            take the log lacks, one discarded, or one at another sample rate than the server's;
            24 and 16 a take's file unreadable.
            """)

    @Argument(help: ArgumentHelp("The session file (TOML; see sessions/README.md).", valueName: "file"))
    var file: String

    @Option(name: .long, help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER or the default server).", valueName: "name"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("Record unattended, starting at: +3s, @FRAME, 14:30:00[.250] today, or a date: 2026-11-22T14:30:00Z.", valueName: "time"))
    var at: String?

    @Flag(name: .long, help: "Align each take to its sources' capture latency (as [session] align_latency = true).")
    var alignLatency = false

    @OptionGroup var waiting: WaitingTakeOptions

    @Option(name: .customLong("for"), help: ArgumentHelp("Record unattended, this long: 60s, 48000f, 1:30.", valueName: "duration"))
    var duration: String?

    @Option(name: .long, help: ArgumentHelp("Record this many takes of --for each, back to back (each starts on the frame after the last ended).", valueName: "n"))
    var takes: Int?

    @Option(name: .long, help: ArgumentHelp("Record unattended, a new take (files of its own) on each wall-clock boundary: 15m at :00, :15, :30, :45, on the exact frame; names get the start time. Whole seconds, 1s to 24h.", valueName: "duration"))
    var split: String?

    @Option(name: .long, help: ArgumentHelp("Overdub: play take N (each track on a port named after it) while recording the next take, aligned to it sample for sample (playback and capture latency compensated). Unattended with --at/--for; else r starts each pass.", valueName: "n"))
    var overdub: Int?

    @Option(name: .long, help: ArgumentHelp("With --overdub: physical playback channels to play the take on, in order: 1,2 (default: all, in order).", valueName: "list"))
    var playbackChannels: String?

    @Option(name: .long, help: ArgumentHelp("With --overdub: input ports (names or globs) to play the take on, in order; repeatable.", valueName: "pattern"))
    var playbackPort: [String] = []

    @Option(name: .long, help: ArgumentHelp("Live meter: bars, compact, none, or json.", valueName: "style"))
    var meter: MeterDisplay?

    func run() throws {
        let signals = ControlSignals()
        Glibc.signal(SIGXFSZ, SIG_IGN)
        let console = Console(display: meter)
        defer { console.endDisplay() }

        // Everything on the command line and in the file is checked before the server is touched.
        var start: StartTime?
        var length: CaptureDuration?
        var transport = false
        var triggerLevel: Double?
        var quietStop: CaptureDuration?
        var preRollLength: CaptureDuration?
        var splitInterval: SplitInterval?
        do {
            if let split {
                do { splitInterval = try SplitInterval(parsing: split) } catch {
                    throw CommandLineError.refusedValue(flag: "--split", value: split, error)
                }
            }
            if let at { start = try StartTime(parsing: at) }
            if let duration {
                let parsed = try CaptureDuration(parsing: duration)
                guard !parsed.isZero else { throw CaptureError.badDuration(duration, reason: "a take must be longer than zero") }
                length = parsed
            }
            if let takes, takes < 1 { throw CommandLineError.badOption(flag: "--takes", value: "\(takes)", expected: "1 or more") }
            let interactive = at == nil && duration == nil && takes == nil && split == nil
            let waits = try waiting.resolve(at: at, alignLatency: alignLatency, split: split, takes: takes,
                                            keyStartsTakes: interactive)
            transport = waits.followsTransport
            triggerLevel = waits.triggerLevel
            quietStop = waits.triggerStop
            preRollLength = waits.preRoll
            if let takes, takes > 1, splitInterval != nil {
                throw CommandLineError.badOption(flag: "--takes", value: "\(takes)", expected: "1 with --split (each piece of a split is a take)")
            }
        } catch {
            throw console.fail(error)
        }
        if takes ?? 1 > 1 && length == nil { throw console.fail(StudioSessionError.takesNeedLength) }
        let playbackOutputs: PlayerOutputs
        do {
            playbackOutputs = try overdubOutputs(start: start, transport: transport, trigger: triggerLevel,
                                                 preRoll: preRollLength, split: splitInterval)
        } catch {
            throw console.fail(error)
        }
        var definition: SessionDefinition
        do {
            definition = try SessionDefinition.load(path: file)
            // An overdub is aligned to capture latency as well as playback latency.
            if alignLatency || overdub != nil { definition.alignsToCaptureLatency = true }
            definition.preRoll = preRollLength
            definition.triggerStop = quietStop
        } catch {
            throw console.fail(StudioSessionError.sessionFile(error))
        }
        let session: StudioSession
        do {
            session = try StudioSession(definition: definition, serverName: server)
        } catch {
            throw console.fail(error)
        }
        defer { session.close() }
        console.describe(session)
        var overdubbing: SessionOverdub?
        if let overdub {
            do {
                overdubbing = try SessionOverdub(session: session, take: overdub, outputs: playbackOutputs, serverName: server)
            } catch {
                throw console.fail(error)
            }
            if let overdubbing { console.describe(overdubbing) }
        }
        defer { overdubbing?.player.close() }

        if transport || triggerLevel != nil {
            let status = try followTriggers(session, level: triggerLevel, length: length, console: console, signals: signals)
            if status != .success { throw ExitCode(status.rawValue) }
            return
        }
        let unattended = at != nil || duration != nil || takes != nil || splitInterval != nil
        let status = unattended
            ? try recordUnattended(session, start: start, length: length, takes: takes ?? 1, split: splitInterval,
                                   overdub: overdubbing, console: console, signals: signals)
            : try runInteractively(session, overdub: overdubbing, console: console, signals: signals,
                                   preRolled: preRollLength != nil)
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// One take (or N back to back), then the exit status of the worst of them.
    private func recordUnattended(_ session: StudioSession, start: StartTime?, length: CaptureDuration?, takes: Int,
                                  split: SplitInterval?, overdub: SessionOverdub?, console: Console,
                                  signals: ControlSignals) throws -> ExitStatus {
        let studioTake: StudioTake
        do {
            if let overdub {
                studioTake = try overdub.record(playingAt: try overdubStartFrame(start, overdub: overdub), length: length)
            } else {
                studioTake = try session.record(at: start, length: length, takes: takes, split: split)
            }
        } catch let error as StudioSessionError {
            throw console.fail(error)
        } catch let error as CaptureError {
            throw console.fail(error)
        }
        console.announce(studioTake, session: session)
        if let overdub { console.announce(overdub, studioTake) }
        // Connections made while the session opened are already listed above; later ones are news.
        _ = studioTake.take.takeEvents()
        var stopping = false
        while studioTake.take.waitUntilFinished(timeout: 0.05) == nil {
            if !stopping, let signal = signals.stopSignal {
                let frame = overdub?.stop(studioTake) ?? studioTake.stop()
                console.line("jcap: \(signal == SIGINT ? "interrupted" : "terminated"), stopping before JACK frame \(frame)")
                stopping = true
            }
            for event in studioTake.take.takeEvents() { console.report(event) }
            show(session, studioTake, console)
        }
        let status = console.summarize(studioTake, entries: studioTake.finish(), session: session)
        guard let overdub else { return status }
        return console.summarizePlayback(overdub, status: status)
    }

    /// The playback outputs of an overdub, once the options are checked against the rest: an
    /// overdub starts on a frame, so it cannot wait for the transport, sound or a wall-clock
    /// time, and is one take.
    private func overdubOutputs(start: StartTime?, transport: Bool, trigger: Double?, preRoll: CaptureDuration?,
                                split: SplitInterval?) throws -> PlayerOutputs {
        guard let overdub else {
            if playbackChannels != nil || !playbackPort.isEmpty {
                throw CommandLineError.badOption(flag: playbackChannels != nil ? "--playback-channels" : "--playback-port",
                                                 value: playbackChannels ?? playbackPort[0], expected: "--overdub too")
            }
            return .default
        }
        let value = "\(overdub)"
        guard overdub >= 1 else { throw CommandLineError.badOption(flag: "--overdub", value: value, expected: "a take number, 1 or more") }
        if transport || trigger != nil {
            throw CommandLineError.badOption(flag: "--overdub", value: value, expected: "no --transport or --trigger with it (an overdub starts on a frame)")
        }
        if preRoll != nil { throw CommandLineError.badOption(flag: "--overdub", value: value, expected: "no --pre-roll with it") }
        if split != nil { throw CommandLineError.badOption(flag: "--overdub", value: value, expected: "no --split with it") }
        if let takes, takes != 1 { throw CommandLineError.badOption(flag: "--takes", value: "\(takes)", expected: "1 with --overdub") }
        switch start {
        case .wallClock?, .dateTime?:
            throw CommandLineError.badOption(flag: "--at", value: at ?? "", expected: "+DELAY or @FRAME with --overdub (the frame take \(overdub) starts playing on)")
        default: break
        }
        if playbackChannels != nil && !playbackPort.isEmpty {
            throw CommandLineError.badOption(flag: "--playback-channels", value: playbackChannels ?? "", expected: "--playback-channels or --playback-port, not both")
        }
        if !playbackPort.isEmpty { return .ports(playbackPort) }
        if let playbackChannels { return .physical(channels: try SourceSelection.parseChannelList(playbackChannels)) }
        return .default
    }

    /// The JACK frame an unattended overdub plays take N's first frame on: `@FRAME` as given,
    /// `+DELAY` from now, or nil (the overdub's lead from now).
    private func overdubStartFrame(_ start: StartTime?, overdub: SessionOverdub) throws(CaptureError) -> UInt32? {
        switch start {
        case .frame(let frame)?: return frame
        case .afterReady(let delay)?:
            let frames = try delay.frames(atSampleRate: overdub.session.client.sampleRate)
            return FrameTime.advance(overdub.session.client.jack.estimatedFrameTime, by: Int(clamping: max(frames, 1)))
        default: return nil
        }
    }

    /// Each roll of the JACK transport is the session's next take, until a stop signal; returns
    /// the worst status of the takes.
    private func followTriggers(_ session: StudioSession, level: Double?, length: CaptureDuration?, console: Console,
                                signals: ControlSignals) throws -> ExitStatus {
        if level == nil { session.client.watchTransport() }
        console.line(waiting.waitingLine(followsTransport: level == nil, preRoll: session.definition.preRoll,
                                         eachTake: "the session's next take"))
        var worst = ExitStatus.success
        while signals.stopSignal == nil {
            let studioTake: StudioTake
            do {
                studioTake = try session.record(length: length, onTransportRoll: level == nil, onLevel: level)
            } catch {
                throw console.fail(error)
            }
            _ = studioTake.take.takeEvents()
            var stopping = false
            var announced = false
            while studioTake.take.waitUntilFinished(timeout: 0.05) == nil {
                if !announced && !studioTake.take.isWaitingForTrigger {
                    console.announce(studioTake, session: session)
                    announced = true
                }
                if !stopping, let signal = signals.stopSignal {
                    let waiting = studioTake.take.isWaitingForTrigger
                    let frame = studioTake.stop()
                    if !waiting {
                        console.line("jcap: \(signal == SIGINT ? "interrupted" : "terminated"), stopping before JACK frame \(frame)")
                    }
                    stopping = true
                }
                for event in studioTake.take.takeEvents() { console.report(event) }
                show(session, studioTake, console)
            }
            let entries = studioTake.finish()
            for event in studioTake.take.takeEvents() { console.report(event) }
            let report = studioTake.take.finish()
            if report.outcome == .cancelled { break }
            if report.outcome == .missedStart {
                console.line("jcap: the transport was already rolling when the take was ready; waiting for the next roll")
                continue
            }
            let status = console.summarize(studioTake, entries: entries, session: session)
            if status.rawValue > worst.rawValue { worst = status }
        }
        return worst
    }

    /// Keys drive the session until `q` or a stop signal; returns the worst status of its takes.
    private func runInteractively(_ session: StudioSession, overdub: SessionOverdub?, console: Console,
                                  signals: ControlSignals, preRolled: Bool) throws -> ExitStatus {
        let keys = TerminalKeys(readingPipes: true)
        defer { keys.restore() }
        console.line("jcap: r records a take, space pauses, s or Enter stops it, d discards the last take, q quits")
        if preRolled { console.line("jcap: each take starts \(waiting.preRoll ?? "") before the r key (the pre-roll)") }
        if let overdub {
            console.line("jcap: r plays take \(overdub.playedTake.take) from its start and records the next take along with it")
        }
        var studioTake: StudioTake?
        // With a pre-roll, the next take waits armed for the r key, so the ring keeps the pre-roll.
        var cued: StudioTake?
        func armCued() {
            guard preRolled, studioTake == nil, cued == nil else { return }
            do {
                cued = try session.record(onCue: true)
            } catch {
                console.line("jcap: error: \(CommandLineAdvice.message(for: error))")
            }
        }
        func cancelCued() {
            guard let armed = cued else { return }
            armed.stop()
            _ = armed.finish()
            cued = nil
        }
        var worst = ExitStatus.success
        var askingToDiscard: Int?
        var quitting = false

        func finishTake() {
            guard let running = studioTake else { return }
            for event in running.take.takeEvents() { console.report(event) }
            overdub?.player.stop()
            var status = console.summarize(running, entries: running.finish(), session: session)
            if let overdub { status = console.summarizePlayback(overdub, status: status) }
            if status != .success && worst == .success { worst = status }
            studioTake = nil
        }

        while true {
            if askingToDiscard == nil { armCued() }
            for key in keys.keys() {
                if let number = askingToDiscard {
                    askingToDiscard = nil
                    guard key == UInt8(ascii: "y") || key == UInt8(ascii: "Y") else {
                        console.line("jcap: take \(number) kept")
                        continue
                    }
                    do {
                        if let discarded = try session.discardLastTake() {
                            console.line("jcap: take \(discarded) discarded: its files are removed, the log says so")
                        }
                    } catch {
                        console.line("jcap: error: \(error)")
                    }
                    continue
                }
                switch key {
                case UInt8(ascii: "r"), UInt8(ascii: "R"):
                    guard studioTake == nil else { console.line("jcap: a take is recording; s stops it"); continue }
                    if let armed = cued {
                        let frame = armed.take.cue()
                        studioTake = armed
                        cued = nil
                        console.announce(armed, session: session)
                        console.line("jcap: recording from \(waiting.preRoll ?? "") before JACK frame \(frame)")
                        _ = armed.take.takeEvents()
                        continue
                    }
                    do {
                        let take: StudioTake
                        if let overdub { take = try overdub.record() } else { take = try session.record() }
                        studioTake = take
                        console.announce(take, session: session)
                        if let overdub { console.announce(overdub, take) }
                        _ = take.take.takeEvents()
                    } catch {
                        console.line("jcap: error: \(CommandLineAdvice.message(for: error))")
                    }
                case UInt8(ascii: " "):
                    guard let take = studioTake?.take else { continue }
                    if take.state == .paused { take.resume() } else { take.pause() }
                case UInt8(ascii: "s"), UInt8(ascii: "S"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                    guard let running = studioTake else { continue }
                    console.line("jcap: stopping take \(running.currentNumber) before JACK frame \(overdub?.stop(running) ?? running.stop())")
                    finishTake()
                case UInt8(ascii: "d"), UInt8(ascii: "D"):
                    guard studioTake == nil else { console.line("jcap: a take is recording; stop it before discarding"); continue }
                    cancelCued()
                    guard let last = try? session.log.entries().last(where: { $0.status != .discarded && $0.status != .deleted })
                    else { console.line("jcap: no take to discard"); continue }
                    askingToDiscard = last.take
                    console.line("jcap: discard take \(last.take) and remove its files? (y/n)")
                case UInt8(ascii: "q"), UInt8(ascii: "Q"):
                    quitting = true
                default:
                    break
                }
            }
            if let signal = signals.stopSignal, !quitting {
                console.line("jcap: \(signal == SIGINT ? "interrupted" : "terminated")")
                quitting = true
            }
            if let running = studioTake {
                if quitting { running.stop() }
                for event in running.take.takeEvents() { console.report(event) }
                if running.take.isFinished || quitting { finishTake() }
            }
            if quitting {
                cancelCued()
                break
            }
            if session.client.engine.status.serverGone {
                console.line("jcap: error: the JACK server shut down")
                return .serverShutDown
            }
            show(session, studioTake, console)
            usleep(50_000)
        }
        return worst
    }

    private func show(_ session: StudioSession, _ studioTake: StudioTake?, _ console: Console) {
        session.client.meters.update()
        var title = "session \(session.definition.name)"
        if let studioTake { title += ", take \(studioTake.currentNumber)" }
        if let seconds = session.recordingSecondsLeft {
            title += ", disk \(clockText(frames: Int64(min(seconds, 1e9)), sampleRate: 1).dropLast(4)) left"
        }
        console.show(MeterSnapshot(client: session.client, take: studioTake?.take,
                                   names: session.definition.armedTracks.map(\.name), title: title))
    }
}

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
            + "\(client.jack.bufferSize)-frame periods, \(definition.armedTracks.count) tracks, "
            + "\(definition.format.displayName), takes in \(definition.folder)")
        for (index, track) in definition.armedTracks.enumerated() {
            line("  \(track.name): \(client.portNames[index]) <- \(client.sources[index])")
        }
        for entry in session.recoveredTakes {
            line("jcap: take \(entry.take) was interrupted (its process ended mid-take); logged with the \(entry.frames) frames its files hold")
        }
    }

    func describe(_ overdub: SessionOverdub) {
        let played = overdub.playedTake
        line("jcap: overdub of take \(played.take) (\(played.frames) frames): client '\(overdub.player.clientName ?? "")', "
            + "playback latency \(overdub.playbackLatency) frames")
        for (port, connections) in zip(overdub.player.portNames, overdub.player.connections) {
            line("  \(port) \(connections.isEmpty ? "(patch by hand)" : "-> " + connections.joined(separator: ", "))")
        }
    }

    func announce(_ overdub: SessionOverdub, _ studioTake: StudioTake) {
        guard let alignment = studioTake.overdubAlignment else { return }
        line("jcap: take \(alignment.take) plays from JACK frame \(alignment.playbackStartFrame); take \(studioTake.numbers.lowerBound) "
            + "starts \(alignment.playbackLatency) frames later on the converters' clock, aligned to it")
    }

    /// The player's underruns after an overdub: each shifts the rest of the playback against
    /// the recording, so the status says frames were lost.
    func summarizePlayback(_ overdub: SessionOverdub, status: ExitStatus) -> ExitStatus {
        let underruns = overdub.playbackUnderruns
        guard !underruns.isEmpty else { return status }
        for underrun in underruns {
            line("jcap: playback fell behind: \(underrun.frames) frames of silence at take \(overdub.playedTake.take)'s frame "
                + "\(underrun.position) (JACK frame \(underrun.jackFrame)); the overdub is out of line with it after that")
        }
        return status == .success ? .lostFrames : status
    }

    func announce(_ studioTake: StudioTake, session: StudioSession) {
        let take = studioTake.take
        var text = studioTake.numbers.count == 1 ? "jcap: recording take \(studioTake.numbers.lowerBound)"
            : "jcap: recording takes \(studioTake.numbers.lowerBound) to \(studioTake.numbers.upperBound) back to back"
        text += " (\(take.files.count) file\(take.files.count == 1 ? "" : "s"))"
        if let start = take.scheduledStart { text += ", starting at frame \(start)" }
        if let start = take.scheduledWallClockStart {
            text += ", starting at \(WallClockTime.localDescription(microsecondsSinceEpoch: start))"
        }
        if let frames = take.durationFrames {
            text += take.splitInterval != nil ? ", \(frames) frames in all" : ", \(frames / Int64(studioTake.numbers.count)) frames each"
        }
        if let split = take.splitInterval { text += splitAnnouncement(split, each: "take") }
        line(text)
        if let alignment = take.latencyAlignment { line(Console.alignmentText(alignment, ports: take.engine.portNames)) }
    }

    /// One line per take recorded, and its problems; returns the worst exit status among them.
    func summarize(_ studioTake: StudioTake, entries: [TakeLogEntry], session: StudioSession) -> ExitStatus {
        endDisplay()
        let report = studioTake.take.report
        if entries.isEmpty {
            if report?.outcome == .missedStart {
                line("jcap: error: the start time passed before recording was ready; nothing recorded")
                return .startInPast
            }
            line("jcap: stopped before the start; nothing recorded")
            return .cancelled
        }
        var worst = ExitStatus.success
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
            let status = ExitStatus(for: entry.status)
            if status != .success && worst == .success { worst = status }
        }
        if studioTake.stopReason == .diskFull {
            line("jcap: error: the disk is nearly full: the take stopped there, every file finalized")
        }
        if case .writeFailed(let error)? = report?.outcome {
            line("jcap: error: \(CommandLineAdvice.message(for: error)); everything written before it is in the files")
        }
        if let error = studioTake.logError { line("jcap: error: the take log: \(error)") }
        return worst
    }
}
