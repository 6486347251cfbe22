import ArgumentParser
import JackCapture

/// `jcap [options]`: one take from JACK ports to a sound file (the default subcommand, so the
/// flags need no `record` in front of them).
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record JACK ports to a sound file, sample-accurately (the default: 'jcap [options]').",
        discussion: """
            Examples:
              jcap --channels 1,2 --at +3s --for 60s
              jcap --port 'synth:out_*' --for 1:30 -o synth.wav --bit-depth 24
              jcap --channels 1-8 -o drums.flac            # until Ctrl-C
              jcap -o take.opus --quality 0.6 --rate 48k
              jcap --channels 1,2 --split 15m -o log.flac   # new file at :00 :15 :30 :45

            While recording: space pauses and resumes (so does SIGUSR1), q or Enter stops
            (so do Ctrl-C and SIGTERM). Paused spans are left out of the file with no gap.

            Exit status: 0 complete; 3 frames lost (written as silence); 4 write failed;
            5 JACK server shut down; 6 stopped before the start; 7 the server's sample rate
            changed (the take stopped there); 10 no JACK server;
            11 unknown port or channel; 12 bad time or duration; 13 start time in the past;
            14 unwritable path; 15 file exists; 16 unsupported format; 17 too many channels
            for the format; 18 JACK refused a port or connection; 64 bad option, or a --buffer
            longer than this machine can hold.
            """)

    @Option(name: .long, help: ArgumentHelp("Physical capture channels, 1-based: 1,2 or 1-8,10.", valueName: "list"))
    var channels: String?

    @Option(name: .long, help: ArgumentHelp("A JACK output port to record: exact name or glob ('synth:out_*'). Repeatable.", valueName: "pattern"))
    var port: [String] = []

    @Flag(name: .long, help: "Register the ports but connect nothing: patch them by hand (qjackctl); recording starts once every port is connected.")
    var noConnect = false

    @Option(name: .long, help: "JACK client name (made unique by the server if taken).")
    var name = "jcap"

    @Option(name: .long, help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER or the default server).", valueName: "name"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("Start time: +3s / +250ms / +48000f after ready, @FRAME (JACK frame time), 14:30:00[.250] today, or a date: 2026-11-22T14:30:00Z, 2026-11-22 14:30:00 (local).", valueName: "time"))
    var at: String?

    @OptionGroup var waiting: WaitingTakeOptions

    @Flag(name: .long, help: "Align to the sources' capture latency: the file starts with the sound that reached the converter at the start frame, each channel by its own latency.")
    var alignLatency = false

    @Option(name: .customLong("for"), help: ArgumentHelp("Length: 60s, 1.01s, 250ms, 48000f, 1:30, 1:02:03.5. Default: until Ctrl-C.", valueName: "duration"))
    var duration: String?

    @Option(name: .long, help: ArgumentHelp("A new file on each wall-clock boundary: 15m cuts at :00, :15, :30, :45 (multiples since local midnight), on the exact frame; names get the start time (take-001-20261122-143000.wav). Whole seconds, 1s to 24h.", valueName: "duration"))
    var split: String?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output file; the extension picks the container (wav w64 rf64 caf aiff au flac ogg opus mp3). Default: take-NNN.wav here.", valueName: "path"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Encoding: pcm, float, flac, alac (.caf), ima-adpcm, ulaw, alaw, mp3, vorbis or opus. Default: the extension's (24-bit PCM for wav/w64/rf64/caf/aiff/au).", valueName: "format"))
    var format: String?

    @Option(name: .long, help: ArgumentHelp("Bits a sample: 8, 16, 24 or 32 for pcm (default 24), 32 or 64 for float, 8/16/24 for flac, 16/20/24/32 for alac; 'float' means --format float.", valueName: "bits"))
    var bitDepth: String?

    @Option(name: .long, help: ArgumentHelp("Byte order of PCM/float samples: little or big (default: the container's; WAV is little only).", valueName: "order"))
    var endian: String?

    @Option(name: .long, help: ArgumentHelp("File sample rate in Hz (48000 or 48k; default: the JACK server's). Other rates are resampled.", valueName: "hz"))
    var rate: String?

    @Option(name: .long, help: ArgumentHelp("Encoder quality for mp3, vorbis and opus, 0 (smallest) to 1 (best); libsndfile has no bit-rate setting, this is the control.", valueName: "0...1"))
    var quality: String?

    @Option(name: .long, help: ArgumentHelp("FLAC compression level: 0 (fastest) to 8 (smallest), default 5.", valueName: "0...8"))
    var compressionLevel: String?

    @Option(name: .long, help: ArgumentHelp("Resampler for --rate: best, medium, fastest, zero-order-hold or linear (default best).", valueName: "quality"))
    var srcQuality: String?

    @Flag(name: .long, help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(name: .long, help: ArgumentHelp("Ring buffer length: how long the disk may stall without losing frames (default 4s).", valueName: "duration"))
    var buffer: String = "4s"

    @Option(name: .long, help: ArgumentHelp("Live meter: bars (folding into columns when needed), compact, none, or json lines on standard output. Default: bars on a terminal, a plain status line a second otherwise.", valueName: "style"))
    var meter: MeterDisplay?

    func run() throws {
        let signals = ControlSignals()
        // A file-size limit (ulimit -f) then fails the write with EFBIG, which the take reports
        // like a full disk, instead of killing jcap with an unfinished file.
        Glibc.signal(SIGXFSZ, SIG_IGN)
        let console = Console(display: meter)
        defer { console.endDisplay() }
        let configuration: CaptureConfiguration
        do {
            configuration = try makeConfiguration()
        } catch {
            throw console.fail(error)
        }

        let capture: CaptureClient
        do {
            // The file is checked before JACK is touched: an existing file or a bad folder is
            // refused with nothing connected.
            _ = try CaptureClient.checkOutput(firstFilePath(configuration), settings: configuration.settings)
            capture = try CaptureClient(configuration: configuration)
        } catch {
            throw console.fail(error)
        }
        defer { capture.close() }
        console.describe(capture)
        capture.isMeteringEnabled = console.wantsMeters
        let names = MeterSnapshot.channelNames(sources: configuration.connectsPorts ? capture.sources : capture.portNames)
        let update: (Take?, Bool) -> Void = { take, waitingForPorts in
            if capture.isMeteringEnabled { capture.meters.update() }
            console.show(MeterSnapshot(client: capture, take: take, names: names, waitingForPorts: waitingForPorts))
        }

        if !configuration.connectsPorts {
            console.line("jcap: waiting for \(capture.portNames.joined(separator: ", ")) to be connected")
            while !capture.isReady {
                if signals.stopSignal != nil {
                    console.line("jcap: stopped before any port was connected; nothing recorded")
                    throw ExitCode(ExitStatus.cancelled.rawValue)
                }
                update(nil, true)
                usleep(50_000)
            }
        }

        let keys = TerminalKeys()
        defer { keys.restore() }
        guard configuration.followsTransport || configuration.triggerLevel != nil else {
            let status = try record(capture, console: console, keys: keys, signals: signals, update: update,
                                    names: names, path: nil)
            if status != .success { throw ExitCode(status.rawValue) }
            return
        }
        // Each roll of the transport (or each trigger) is a take, until Ctrl-C or SIGTERM.
        if configuration.followsTransport { capture.watchTransport() }
        console.line(waiting.waitingLine(followsTransport: configuration.followsTransport, preRoll: configuration.preRoll,
                                         eachTake: "a take"))
        var worst = ExitStatus.success
        var directory = configuration.takeDirectory
        if let output = configuration.outputPath {
            directory = output.lastIndex(of: "/").map { String(output[...$0]) } ?? "."
        }
        while signals.stopSignal == nil {
            let path = configuration.outputPath.map {
                TakeNaming.nextNumberedPath(after: $0, existing: TakeNaming.fileNames(inDirectory: directory))
            }
            let status = try record(capture, console: console, keys: keys, signals: signals, update: update,
                                    names: names, path: path)
            if status.rawValue > worst.rawValue && status != .cancelled { worst = status }
        }
        if worst != .success { throw ExitCode(worst.rawValue) }
    }

    /// Records one take (with `--transport`, the next roll) and says how it went: its exit status.
    private func record(_ capture: CaptureClient, console: Console, keys: TerminalKeys, signals: ControlSignals,
                        update: (Take?, Bool) -> Void, names: [String], path: String?) throws -> ExitStatus {
        let take: Take
        do {
            take = try capture.makeTake(path: path)
            try take.start()
        } catch {
            throw console.fail(error)
        }
        let following = capture.configuration.followsTransport || capture.configuration.triggerLevel != nil
        console.announceStart(take)
        // Connections made while setting up are already listed above; later ones are news.
        _ = take.takeEvents()

        if keys.isActive && !following { console.line("jcap: space pauses and resumes, q or Enter stops") }
        var stopping = false
        // The console redraws about 20 times a second, waiting on the take meanwhile.
        while take.waitUntilFinished(timeout: 0.05) == nil {
            var commands = keys.commands()
            commands += Array(repeating: .togglePause, count: signals.takePauseToggles())
            if !stopping, let signal = signals.stopSignal {
                let waiting = following && take.isWaitingForTrigger
                let frame = take.stop()
                if !waiting {
                    console.line("jcap: \(signal == SIGINT ? "interrupted" : "terminated"), stopping before JACK frame \(frame)")
                }
                stopping = true
            }
            for command in commands where !stopping {
                switch command {
                case .stop:
                    let frame = take.stop()
                    console.line("jcap: stopping before JACK frame \(frame)")
                    stopping = true
                case .togglePause:
                    if take.state == .paused { take.resume() } else { take.pause() }
                }
            }
            for event in take.takeEvents() { console.report(event) }
            for piece in take.takeFinishedPieces() { console.wrote(piece, of: take) }
            update(take, false)
        }
        let report = take.finish()
        for event in take.takeEvents() { console.report(event) }
        for piece in take.takeFinishedPieces() { console.wrote(piece, of: take) }
        if following {
            switch report.outcome {
            case .cancelled:
                // Ended while waiting for a roll: nothing recorded, nothing wrong.
                return .cancelled
            case .missedStart:
                console.line("jcap: the transport was already rolling when jcap got ready; waiting for the next roll")
                return .success
            default: break
            }
        }
        console.summarize(report, names: names, piecesShown: take.splitInterval != nil)
        return ExitStatus(for: report.outcome)
    }

    func makeConfiguration() throws -> CaptureConfiguration {
        var configuration = CaptureConfiguration()
        configuration.clientName = name
        configuration.serverName = server
        if let channels, !port.isEmpty {
            throw CaptureError.badChannelList(channels, reason: "use --channels or --port, not both")
        }
        if let channels {
            configuration.sources = .channels(try SourceSelection.parseChannelList(channels))
        } else if !port.isEmpty {
            configuration.sources = .ports(port)
        }
        configuration.connectsPorts = !noConnect
        configuration.alignsToCaptureLatency = alignLatency
        configuration.outputPath = output
        configuration.settings = try makeSettings()
        if let at { configuration.start = try StartTime(parsing: at) }
        let waits = try waiting.resolve(at: at, alignLatency: alignLatency, split: split)
        configuration.followsTransport = waits.followsTransport
        configuration.triggerLevel = waits.triggerLevel
        configuration.triggerStop = waits.triggerStop
        configuration.preRoll = waits.preRoll
        if let split {
            do { configuration.split = try SplitInterval(parsing: split) } catch {
                throw CommandLineError.refusedValue(flag: "--split", value: split, error)
            }
        }
        if let duration {
            let parsed = try CaptureDuration(parsing: duration)
            guard !parsed.isZero else { throw CaptureError.badDuration(duration, reason: "a take must be longer than zero") }
            configuration.duration = parsed
        }
        let bufferLength = try CaptureDuration(parsing: buffer)
        // In seconds, never overflowing: a buffer too long for this machine is refused, naming the
        // longest that fits, once the server's rate is known (MemoryBudget, exit status 64).
        configuration.bufferSeconds = switch bufferLength {
        case .frames(let frames): Double(frames) / 1_000_000
        case .seconds(let numerator, let denominator): Double(numerator) / Double(denominator)
        }
        guard configuration.bufferSeconds >= 0.01 else {
            throw CaptureError.badDuration(buffer, reason: "the buffer must hold at least 10ms")
        }
        return configuration
    }

    /// The path jcap checks before it touches JACK: the output file, or with `--split` a first
    /// file's (named for now: only its folder and extension matter, and such a name is never taken).
    func firstFilePath(_ configuration: CaptureConfiguration) -> String {
        let path = configuration.nextOutputPath()
        guard configuration.split != nil else { return path }
        return SplitNaming.unusedPath(SplitNaming.piecePath(path, startMicroseconds: WallClockTime.nowMicrosecondsSinceEpoch()))
    }

    /// The format flags as recording settings. A value that does not parse is a bad option (64);
    /// one that parses but the file cannot have is left to `RecordingSettings.resolveFormat` or
    /// named here as a format error (16).
    func makeSettings() throws -> RecordingSettings {
        var settings = RecordingSettings()
        settings.overwritesExistingFile = overwrite
        if let format {
            guard let parsed = AudioFormat(name: format) else { throw CaptureError.format(.unknownFormat(format)) }
            settings.format = parsed
        }
        if let bitDepth {
            if bitDepth.lowercased() == "float" {
                // jcap before --format: `--bit-depth float` meant 32-bit float samples.
                if let format = settings.format, format != .float {
                    throw CommandLineError.badOption(flag: "--bit-depth", value: bitDepth,
                                                     expected: "a number of bits with --format \(format.rawValue) ('float' means --format float)")
                }
                settings.format = .float
                settings.bitDepth = 32
            } else {
                guard let bits = Int(bitDepth), bits > 0 else {
                    throw CommandLineError.badOption(flag: "--bit-depth", value: bitDepth, expected: "8, 16, 20, 24, 32 or 64, or float")
                }
                settings.bitDepth = bits
            }
        }
        if let endian {
            guard let order = Endianness(rawValue: endian.lowercased()) else {
                throw CommandLineError.badOption(flag: "--endian", value: endian, expected: "little or big")
            }
            settings.endianness = order
        }
        if let rate { settings.sampleRate = try RecordCommand.parseSampleRate(rate) }
        if let quality {
            guard let value = Double(quality), value.isFinite else {
                throw CommandLineError.badOption(flag: "--quality", value: quality, expected: "a number from 0 (smallest) to 1 (best)")
            }
            settings.quality = value
        }
        if let compressionLevel {
            guard let level = Int(compressionLevel) else {
                throw CommandLineError.badOption(flag: "--compression-level", value: compressionLevel, expected: "a whole number from 0 to 8")
            }
            settings.compressionLevel = level
        }
        if let srcQuality {
            guard let converter = SampleRateConverterQuality(name: srcQuality) else {
                let names = SampleRateConverterQuality.allCases.map(\.name)
                throw CommandLineError.badOption(flag: "--src-quality", value: srcQuality,
                                                 expected: names.dropLast().joined(separator: ", ") + " or " + names.last!)
            }
            settings.converterQuality = converter
        }
        // Checked now, before JACK is touched, when the output path is known (the take name's
        // extension is wav otherwise).
        _ = try settings.resolveFormat(forPath: output ?? "take.wav")
        return settings
    }

    /// `--rate`: whole hertz (44100) or kilohertz with a k (44.1k, 48k).
    static func parseSampleRate(_ text: String) throws(CommandLineError) -> Int {
        let lowered = text.lowercased()
        let hertz: Double?
        if lowered.hasSuffix("k") { hertz = Double(lowered.dropLast()).map { $0 * 1_000 } } else { hertz = Double(lowered) }
        guard let hertz, hertz.isFinite, hertz == hertz.rounded(), abs(hertz) < 1e9 else {
            throw .badOption(flag: "--rate", value: text, expected: "a whole number of hertz (48000) or kilohertz (44.1k)")
        }
        return Int(hertz)
    }
}
