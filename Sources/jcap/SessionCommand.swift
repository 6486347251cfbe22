import ArgumentParser
import JackCapture
import JackCaptureRemote

/// `jcap session FILE`: opens a studio session (sessions/README.md) and records take after take,
/// or, with `--at`, `--for` or `--takes`, records unattended and exits with jcap's statuses.
struct SessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Open a studio session: named tracks, one file per track, numbered takes, a take log.",
        discussion: """
            Keys on a terminal: r records a new take now (or resumes a paused one), space pauses \
            and resumes, s then s again within 2 s stops the take (the session stays open), a \
            track's number arms or disarms it between takes, m drops a marker, c, f and g mark \
            the last take circled, false start or no good, n types a note, x clears the clip \
            lights, d discards the last take (asks first), q quits (asks first during a take), \
            ? shows the keys. Ctrl-C and SIGTERM finish the take and quit. Keys may also come \
            from a pipe, where each acts at once (s or Enter stops).

            With --at, --for, --takes or --split it records unattended: one take (or N \
            back to back, or a new take on each clock boundary with --split) and exits.

            With --overdub N, take N plays (its tracks on ports <session>-play:<track>, connected \
            to the physical playback ports, --playback-channels or --playback-port) while the \
            armed tracks record the next take, as long as take N unless --for says otherwise. The \
            new take lines up with take N to the sample: it starts the playback latency of the \
            ports take N plays to after take N's first frame goes out, and each track is aligned \
            to its capture latency (as --align-latency). The log's "overdub" says how.

            """ + "\n" + ExitStatus.helpParagraph(for: .session))

    @Argument(help: ArgumentHelp("The session file (TOML; see sessions/README.md). Under a session manager (NSM_URL set): the template of a new session, optional.", valueName: "file"))
    var file: String?

    @OptionGroup var jack: ServerOption

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

    @Option(name: .long, help: ArgumentHelp("Arm only these tracks (names, comma-separated); with --overdub, the tracks recorded anew, not played back unless --play-replaced.", valueName: "names"))
    var tracks: String?

    @Flag(name: .long, help: "With --overdub and --tracks: play the tracks being replaced too.")
    var playReplaced = false

    @Option(name: .long, help: ArgumentHelp("Record only the tracks with part = \"NAME\": this host's share of a session split across hosts (docs/netjack.md).", valueName: "name"))
    var part: String?

    @Option(name: .long, help: ArgumentHelp("On a NetJACK2 slave: follow every take on the master's clock from the timecode jcap timecode writes on the master, arriving on this port (--at @FRAME is then the master's frame; each take logs its master_start_frame and any master_jumps; docs/netjack.md).", valueName: "port"))
    var masterClock: String?

    @Flag(name: .shortAndLong, help: "A line per track, xrun and connection, and frame numbers in what the console says.")
    var verbose = false

    @Flag(name: .long, help: "With --overdub: play take N as one stereo pair, <session>-play:mix_L and mix_R, each track at its pan from the session file (as 'jcap play --take N --mix').")
    var mix = false

    @Option(name: .long, help: ArgumentHelp("Remote control over OSC on this UDP port, on every interface (0: any free port, printed): /jcap/record, /jcap/stop, /jcap/arm, /jcap/status, /jcap/subscribe... (README: Remote control: OSC).", valueName: "port"))
    var osc: Int?

    @OptionGroup var meters: MeterOption

    @OptionGroup var diskIO: DiskIOOption

    @OptionGroup var remoteOptions: RemoteOption

    func run() throws {
        let signals = SessionManagerLaunch.signals()
        Glibc.signal(SIGXFSZ, SIG_IGN)
        let console = Console(display: meters.meter)
        defer { console.endDisplay() }

        // Everything on the command line and in the file is checked before the server is touched.
        var start: StartTime?
        var length: CaptureDuration?
        var transport = false
        var triggerLevel: Double?
        var quietStop: CaptureDuration?
        var preRollLength: CaptureDuration?
        var splitInterval: SplitInterval?
        var oscSurface: OSCSurface?
        do {
            if let osc {
                guard (0...65_535).contains(osc) else {
                    throw CommandLineError.badOption(flag: "--osc", value: "\(osc)", expected: "a UDP port, 1 to 65535 (0: any free port)")
                }
                oscSurface = OSCSurface(try OSCEndpoint(port: "\(osc)"), tell: console.line)
            }
            if let split {
                do { splitInterval = try SplitInterval(parsing: split) } catch {
                    throw CommandLineError.refusedValue(flag: "--split", value: split, error)
                }
            }
            try remoteOptions.check()
            if let at { start = try StartTime(parsing: at) }
            if let duration {
                let parsed = try CaptureDuration(parsing: duration)
                guard !parsed.isZero else { throw CaptureError.badDuration(duration, reason: "a take must be longer than zero") }
                length = parsed
            }
            if let takes, !(1...SessionTake.mostTakesBackToBack).contains(takes) {
                throw CommandLineError.badOption(flag: "--takes", value: "\(takes)",
                                                 expected: takes < 1 ? "1 or more" : "at most \(SessionTake.mostTakesBackToBack)")
            }
            let interactive = at == nil && duration == nil && takes == nil && split == nil
            let waits = try waiting.resolve(at: at, alignLatency: alignLatency, split: split, takes: takes,
                                            keyStartsTakes: interactive)
            transport = waits.followsTransport
            triggerLevel = waits.triggerLevel
            quietStop = waits.triggerStop
            preRollLength = waits.preRoll
            if let takes, takes > 1, splitInterval != nil {
                throw CommandLineError.badOption(flag: "--takes", value: "\(takes)", expected: "1 with --split (each segment of a split is a take)")
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
        let manager = try SessionManagerLaunch.manager(console: console)
        var managed: SessionManagerLaunch?
        if let manager {
            if let part {
                throw console.fail(CommandLineError.badOption(flag: "--part", value: part,
                                                              expected: "no session manager (NSM_URL): its session is saved whole"))
            }
            managed = try SessionManagerLaunch.open(manager, template: file, signals: signals, console: console)
            if managed == nil { return }
        } else if file == nil {
            throw ValidationError("missing the session file (jcap session FILE), or NSM_URL for a session manager")
        }
        let diskIOMode: DiskIO?
        do { diskIOMode = try diskIO.mode() } catch { throw console.fail(error) }
        var definition: SessionDefinition
        do {
            if let managed { definition = managed.definition } else { definition = try SessionDefinition.load(path: file ?? "") }
            if let part { definition = try definition.restricted(toPart: part) }
            definition.masterClockPort = masterClock
            // An overdub is aligned to capture latency as well as playback latency.
            if alignLatency || overdub != nil { definition.alignsToCaptureLatency = true }
            definition.preRoll = preRollLength
            definition.triggerStop = quietStop
            if let diskIOMode { definition.settings.diskIO = diskIOMode }
        } catch {
            throw console.fail(StudioSessionError.sessionFile(error))
        }
        let session: StudioSession
        do {
            session = try StudioSession(definition: definition, serverName: jack.server)
        } catch {
            throw managed?.refuse(error, console: console) ?? console.fail(error)
        }
        defer { session.close() }
        var replaced: Set<String> = []
        if let tracks {
            do {
                replaced = try armOnly(tracks, in: session)
            } catch {
                throw console.fail(error)
            }
        }
        console.describe(session, verbose: verbose)
        var overdubbing: SessionOverdub?
        if let overdub {
            do {
                overdubbing = try SessionOverdub(session: session, take: overdub, outputs: playbackOutputs, serverName: jack.server,
                                                 replacing: playReplaced ? [] : replaced, mixes: mix)
            } catch {
                throw console.fail(error)
            }
            if let overdubbing { console.describe(overdubbing, verbose: verbose) }
        }
        defer { overdubbing?.player.close() }

        var wording = EventWording(shortensNames: false, channelNames: session.trackNames,
                                   waitingLine: nil, preRoll: waiting.preRoll, session: true, verbose: verbose,
                                   sampleRate: session.client.sampleRate, sessionName: session.definition.name)
        let plan: SessionPlan
        var surfaces: [ControlSurface] = [SignalSurface(signals)]
        var keys: TerminalKeys?
        defer { keys?.restore() }
        if transport || triggerLevel != nil {
            wording.waitingLine = waiting.waitingLine(followsTransport: transport, preRoll: session.definition.preRoll,
                                                      eachTake: "the session's next take")
            plan = .eachTrigger(level: triggerLevel, length: length)
        } else if at != nil || duration != nil || takes != nil || splitInterval != nil {
            var overdubStart: UInt32?
            do {
                if let overdubbing { overdubStart = try overdubStartFrame(start, overdub: overdubbing) }
            } catch {
                throw console.fail(error)
            }
            plan = .unattended(start: start, length: length, takes: takes ?? 1, split: splitInterval, overdubStart: overdubStart)
        } else {
            let terminal = TerminalKeys(readingPipes: true)
            keys = terminal
            surfaces.insert(KeySurface(terminal, keymap: .session, console: console), at: 0)
            console.line(terminal.isActive ? "jcap: r records a take, space pauses, s s stops it, 1..\(session.trackNames.count) arm or disarm a track, ? shows the keys"
                : "jcap: r records a take, space pauses, s or Enter stops it, d discards the last take, q quits")
            if preRollLength != nil { console.line("jcap: each take starts \(waiting.preRoll ?? "") before the r key (the pre-roll)") }
            if let overdubbing {
                console.line("jcap: r plays take \(overdubbing.playedTake.take) from its start and records the next take along with it")
            }
            plan = .interactive
        }
        if let oscSurface {
            surfaces.append(oscSurface)
            console.line("jcap: OSC on UDP port \(oscSurface.port) (\(oscSurface.url)): /jcap/status, /jcap/subscribe, /jcap/record, /jcap/stop...")
        }
        if let managed { surfaces.append(managed.opened(session)) }
        let remote: WebRemote?
        do {
            remote = try remoteOptions.start(for: session.definition, takeLog: session.log, console: console)
        } catch {
            throw console.fail(error)
        }
        defer { remote?.stop() }
        if let remote { surfaces.append(remote) }
        let status = ControlRunLoop(console: console, wording: wording)
            .run(ControlCore(session: session, overdub: overdubbing, plan: plan), surfaces: surfaces)
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// Arms the tracks `list` names (comma-separated) and disarms the others; the names.
    private func armOnly(_ list: String, in session: StudioSession) throws(StudioSessionError) -> Set<String> {
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw .unknownTrack(list, known: session.trackNames) }
        for name in names { _ = try session.isArmed(track: name) }
        for name in session.trackNames where !names.contains(name) { try session.setArmed(false, track: name) }
        for name in names { try session.setArmed(true, track: name) }
        return Set(names)
    }

    /// The playback outputs of an overdub, once the options are checked against the rest: an
    /// overdub starts on a frame, so it cannot wait for the transport, sound or a wall-clock
    /// time, and is one take.
    private func overdubOutputs(start: StartTime?, transport: Bool, trigger: Double?, preRoll: CaptureDuration?,
                                split: SplitInterval?) throws -> PlayerOutputs {
        if playReplaced && (overdub == nil || tracks == nil) {
            throw CommandLineError.badOption(flag: "--play-replaced", value: "", expected: "--overdub and --tracks with it")
        }
        guard let overdub else {
            if mix { throw CommandLineError.badOption(flag: "--mix", value: "", expected: "--overdub too (it mixes the take played)") }
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
            try start?.validate(sampleRate: overdub.session.client.sampleRate)
            let frames = try delay.frames(atSampleRate: overdub.session.client.sampleRate)
            return FrameTime.advance(overdub.session.client.jack.estimatedFrameTime, by: Int(clamping: max(frames, 1)))
        default: return nil
        }
    }
}
