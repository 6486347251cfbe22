import ArgumentParser
import Foundation
import JackCapture

/// `jcap play FILE...`: plays sound files through JACK with a `Player` (the library does the
/// work; this parses, prints and waits).
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play sound files through JACK, sample-accurately (several files in sync).",
        discussion: """
            Registers out_1..N (the files' channels in order) and connects them to the physical \
            playback ports in order, or to --channels, or to --port; --no-connect leaves them \
            unconnected. --at @FRAME plays the first frame on that JACK frame exactly; --loops N \
            repeats the files N more times, the first frame right after the last. --volume and \
            --pan set the gain (balance for a stereo file; a mono file gets two ports with --pan). \
            --rate R (0.5 to 2) is varispeed, as on tape: pitch follows the speed (2 is twice as \
            fast and an octave up); a file of F frames plays round(F / R) frames, resampled by \
            libsamplerate, and positions (--from, the frames jcap names) stay the file's. A file \
            at another sample rate than the server's is resampled the same way to play at its \
            own speed; --src-quality picks the resampler (best, the default, to linear).

            --meter shows what each port plays (after volume and pan) as recording's console does.

            """ + "\n" + ExitStatus.helpParagraph(for: .play))

    @Argument(help: ArgumentHelp("Sound files (any format libsndfile reads), played together.", valueName: "file"))
    var files: [String] = []

    @Option(name: .long, help: ArgumentHelp("With a session file instead of sound files: play this take's files, each track on a port named after it.", valueName: "n"))
    var take: Int?

    @Flag(name: .long, help: "With --take: play every track to one stereo pair, mix_L and mix_R (each track's pan from the session file, centre by default; a two-channel group keeps its left and right).")
    var mix = false

    @Option(name: .long, help: ArgumentHelp("JACK client name, 1 to 63 bytes without ':'.", valueName: "name"))
    var name = "jcap-play"

    @OptionGroup var jack: ServerOption

    @Option(name: .long, help: ArgumentHelp("Physical playback channels to connect out_1.. to, in order: 1,2 or 3-4.", valueName: "list"))
    var channels: String?

    @Option(name: .long, help: ArgumentHelp("Input ports (names or globs) to connect out_1.. to, in order; repeatable.", valueName: "pattern"))
    var port: [String] = []

    @Flag(name: .customLong("no-connect"), help: "Connect nothing: patch by hand.")
    var noConnect = false

    @Option(name: .long, help: ArgumentHelp("Start: +3s (from ready), @123456789 (a JACK frame, exact), 14:30:00 or a date.", valueName: "time"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("Start this far into the files: 1.5s, 250ms, 48000f (before their end).", valueName: "time"))
    var from: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Repeat the files N more times, seamlessly (-1: forever, until Ctrl-C; below -1 is refused).", valueName: "N"))
    var loops = 0

    @Option(name: .long, help: ArgumentHelp("Volume, 0 (silent) to 1 (as recorded; the default).", valueName: "gain"))
    var volume: Float?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pan, -1 (left) to 1 (right): balance for stereo files; a mono file gets two ports, panned with equal power.", valueName: "position"))
    var pan: Float?

    @Option(name: .long, help: ArgumentHelp("Speed, 0.5 to 2 (1: as recorded): varispeed, pitch follows as on tape.", valueName: "rate"))
    var rate: Float?

    @Option(name: .long, help: ArgumentHelp("Resampler for --rate and for files at another rate than the server's: best, medium, fastest, zero-order-hold or linear (default best).", valueName: "quality"))
    var srcQuality: String?

    @OptionGroup var meters: MeterOption

    func run() throws {
        let console = Console(display: meters.meter)
        defer { console.endDisplay() }
        let status: ExitStatus
        do {
            status = try play(console)
        } catch {
            console.line("jcap: error: \(CommandLineAdvice.message(for: error))")
            throw ExitCode(ExitStatus(for: error).rawValue)
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }

    private func outputs() throws -> PlayerOutputs {
        let choices = (noConnect ? 1 : 0) + (channels != nil ? 1 : 0) + (port.isEmpty ? 0 : 1)
        guard choices <= 1 else {
            throw CommandLineError.badOption(flag: noConnect ? "--no-connect" : "--channels", value: "",
                                             expected: "one of --channels, --port and --no-connect")
        }
        if noConnect { return .none }
        if !port.isEmpty { return .ports(port) }
        if let channels {
            do { return .physical(channels: try SourceSelection.parseChannelList(channels)) } catch { throw PlayerError.capture(error) }
        }
        return .default
    }

    private func play(_ console: Console) throws -> ExitStatus {
        guard !files.isEmpty else { throw PlayerError.noFiles }
        try ClientNameOption.check(name)
        // Before any file is opened or JACK is asked: a refused rate plays nothing.
        var converterQuality = SampleRateConverterQuality.best
        if let srcQuality {
            converterQuality = try SampleRateConverterQuality(option: srcQuality)
        }
        if let rate, !Player.rateRange.contains(rate) {
            throw CommandLineError.badOption(flag: "--rate", value: "\(rate)",
                                             expected: "a rate from \(Player.rateRange.lowerBound) to \(Player.rateRange.upperBound)")
        }
        let outputs = try outputs()
        guard loops >= -1 else {
            throw CommandLineError.badOption(flag: "--loops", value: "\(loops)", expected: "0 or more repeats, or -1 (forever)")
        }
        if let volume, !(0...1).contains(volume) {
            throw CommandLineError.badOption(flag: "--volume", value: "\(volume)", expected: "a gain from 0 to 1")
        }
        if let pan, !(-1...1).contains(pan) {
            throw CommandLineError.badOption(flag: "--pan", value: "\(pan)", expected: "a position from -1 (left) to 1 (right)")
        }
        if mix, take == nil {
            throw CommandLineError.badOption(flag: "--mix", value: "", expected: "--take N and a session file (it mixes a take's tracks)")
        }
        if mix, let pan {
            throw CommandLineError.badOption(flag: "--pan", value: "\(pan)", expected: "no --pan with --mix (each track's pan is in the session file)")
        }
        var start: StartTime?
        var fromFrames: Int64 = 0
        do {
            if let at { start = try StartTime(parsing: at) }
        } catch { throw PlayerError.capture(error) }
        let (paths, portNames, pans) = try playedFiles()
        let player = try Player(contentsOf: paths.map { URL(fileURLWithPath: $0) })
        player.converterQuality = converterQuality
        if let from {
            do {
                fromFrames = try CaptureDuration(parsing: from).frames(atSampleRate: player.fileSampleRate)
            } catch {
                if case .badDuration(_, let reason) = error { throw PlayerError.capture(.badTime(from, reason: reason)) }
                throw PlayerError.capture(error)
            }
            // A start at or past the end would play nothing and exit as if all went well.
            if fromFrames >= player.durationFrames {
                throw CommandLineError.refusedValue(flag: "--from", value: from, .badDuration(from, reason: "at or past the end of "
                    + "\(paths.count == 1 ? "the file" : "the files"), \(Self.lengthText(player))"))
            }
        }
        let signals = ControlSignals()
        if let volume { player.volume = volume }
        if let pan { player.pan = pan }
        if let rate {
            player.enableRate = true
            player.rate = rate
        }
        try player.prepareToPlay(clientName: name, server: jack.server, outputs: outputs, spreadsMonoToStereo: pan != nil,
                                 portNames: portNames, mix: mix ? PlaybackMix(pans: pans) : nil)
        defer { player.close() }
        player.numberOfLoops = loops
        if console.wantsMeters { player.isMeteringEnabled = true }
        // Before the banner: a start that cannot be scheduled is the only line.
        let plan = PlaybackPlan(start: try playbackStart(start, player: player), fromFrame: fromFrames)
        describe(player, console: console)
        let terminal = TerminalKeys(readingPipes: true)
        defer { terminal.restore() }
        if terminal.isActive { console.line("jcap: space pauses and resumes, left and right seek 5 s, q or Enter stops") }
        if terminal.isActive, mix { console.line("jcap: in the mix, 1-9 and 0 mute and unmute tracks 1-10, s and a digit solo one") }
        return ControlRunLoop(console: console)
            .run(ControlCore(playing: player, plan: plan), surfaces: [KeySurface(terminal, keymap: .playback), SignalSurface(signals)])
    }

    /// When playing starts: now, on a JACK frame (`+DELAY` from now, at the server's rate: a
    /// resampled file's differs), or at a wall-clock time not yet past.
    private func playbackStart(_ start: StartTime?, player: Player) throws(PlayerError) -> PlaybackPlan.Start {
        switch start {
        case nil:
            return .now
        case .afterReady(let delay)?:
            let frames: Int64
            let serverRate = player.deviceSampleRate ?? player.fileSampleRate
            do {
                // A delay past what JACK's 32-bit frame clock can count is a bad time, not a past one.
                try start?.validate(sampleRate: serverRate)
                frames = try delay.frames(atSampleRate: serverRate)
            } catch { throw .capture(error) }
            // `+0s` is now: the next cycle, not a frame that is passing as it is named.
            guard frames > 0 else { return .now }
            return .atFrame(FrameTime.advance(player.estimatedFrameTime, by: Int(frames)))
        case .frame(let frame)?:
            return .atFrame(frame)
        case let clock?:
            let now = WallClockTime.nowMicrosecondsSinceEpoch()
            guard let target = clock.wallClockMicroseconds(now: now), target > now else {
                throw PlayerError.capture(.startInPast(clock.description))
            }
            return .atWallClock(microseconds: target)
        }
    }

    /// The files to play, their ports' names and their pans in a mix: the sound files given, or
    /// with `--take N` a session take's files (from its take log), each track's port named after
    /// the track, each file's pan its first track's.
    private func playedFiles() throws -> (paths: [String], portNames: [String]?, pans: [Float]) {
        guard let take else { return (files, nil, files.map { _ in 0 }) }
        guard files.count == 1, let sessionFile = files.first else {
            throw CommandLineError.badOption(flag: "--take", value: "\(take)", expected: "one session file (TOML) before it")
        }
        let definition: SessionDefinition
        do { definition = try SessionDefinition.load(path: sessionFile) } catch {
            throw CommandLineError.badOption(flag: "--take", value: "\(take)", expected: "a session file: \(error)")
        }
        let entries: [TakeLogEntry]
        do { entries = try TakeLog(folder: definition.folder).read().entries } catch {
            throw CommandLineError.badOption(flag: "--take", value: "\(take)", expected: "a readable take log: \(error)")
        }
        guard let entry = entries.first(where: { $0.take == take }), !entry.status.isRemoved else {
            let known = entries.filter { !$0.status.isRemoved }.map { String($0.take) }
            throw CommandLineError.badOption(flag: "--take", value: "\(take)",
                                             expected: "a take of \(definition.name) (\(known.isEmpty ? "none recorded" : known.joined(separator: ", ")))")
        }
        // Each track's port as the session names its input port (`:` replaced).
        let (paths, portNames) = SessionOverdub.playbackFiles(of: entry, in: definition)
        return (paths, portNames, SessionOverdub.mixPans(of: entry, in: definition))
    }

    /// `120000 frames long (2.500 s at 48000 Hz)`: the longest file's length.
    static func lengthText(_ player: Player) -> String {
        "\(player.durationFrames) frames long (\(String(format: "%.3f", player.duration)) s at \(player.fileSampleRate) Hz)"
    }

    private func describe(_ player: Player, console: Console) {
        let names = player.urls.map(\.path).joined(separator: ", ")
        let serverRate = player.deviceSampleRate ?? player.fileSampleRate
        let resampled = player.fileSampleRate != serverRate ? ", resampled to \(serverRate) Hz" : ""
        let speed = rate == nil ? "" : ", rate \(player.rate) (pitch follows)"
        console.line("jcap: client '\(player.clientName ?? name)', playing \(names): \(player.numberOfChannels) channels, "
                     + "\(player.fileSampleRate) Hz, \(player.durationFrames) frames\(resampled)\(speed)")
        for (index, (port, connections)) in zip(player.portNames, player.connections).enumerated() {
            console.line("  channel \(index + 1): \(port) \(connections.isEmpty ? "(patch by hand)" : "-> " + connections.joined(separator: ", "))")
        }
        // The numbers the mix's keys use.
        if let mix = player.mix {
            for (index, url) in player.urls.enumerated() {
                let pan = index < mix.pans.count ? mix.pans[index] : 0
                console.line("  track \(index + 1): \(url.lastPathComponent), pan \(String(format: "%+.2f", pan))")
            }
        }
    }
}
