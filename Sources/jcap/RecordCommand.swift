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
              jcap --port 'synth:out_*' --for 1:30 -o synth.wav
              jcap --channels 1-8 -o drums.flac      # until Ctrl-C
              jcap -o take.opus --quality 0.6 --rate 48k
              jcap --channels 1,2 --split 15m -o log.flac  # :00 :15 :30 :45

            While recording: space pauses and resumes (so does SIGUSR1), q or Enter stops \
            (so do Ctrl-C and SIGTERM). Paused spans are left out of the file with no gap.

            """ + "\n" + ExitStatus.helpParagraph(for: .record))

    @Option(name: .long, help: ArgumentHelp("Physical capture channels, 1-based: 1,2 or 1-8,10.", valueName: "list"))
    var channels: String?

    @Option(name: .long, help: ArgumentHelp("A JACK output port to record: exact name or glob ('synth:out_*'). Repeatable.", valueName: "pattern"))
    var port: [String] = []

    @Flag(name: .long, help: "Register the ports but connect nothing: patch them by hand (qjackctl); recording starts once every port is connected.")
    var noConnect = false

    @Option(name: .long, help: "JACK client name, 1 to 63 bytes without ':' (made unique by the server if taken).")
    var name = "jcap"

    @OptionGroup var jack: ServerOption

    @Option(name: .long, help: ArgumentHelp("Start time: +3s / +250ms / +48000f after ready, @FRAME (JACK frame time), 14:30:00[.250] today, or a date: 2026-11-22T14:30:00Z, 2026-11-22 14:30:00 (local).", valueName: "time"))
    var at: String?

    @OptionGroup var waiting: WaitingTakeOptions

    @Option(name: .long, help: ArgumentHelp("On a NetJACK2 slave: follow the master's clock from the timecode jcap timecode writes on the master, which arrives on this port (system:capture_9). --at @FRAME is then the master's frame; the start on the master's clock and any jump of it (a master xrun, a link dropout) are reported, to the frame.", valueName: "port"))
    var masterClock: String?

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

    @OptionGroup var diskIO: DiskIOOption

    @Option(name: .long, help: ArgumentHelp("Ring buffer length: how long the disk may stall without losing frames.", valueName: "duration"))
    var buffer: String = "4s"

    @OptionGroup var meters: MeterOption

    @Flag(name: .shortAndLong, help: "A line per channel, xrun and connection, and frame numbers in what the console says.")
    var verbose = false

    func run() throws {
        let signals = ControlSignals()
        // A file-size limit (ulimit -f) then fails the write with EFBIG, which the take reports
        // like a full disk, instead of killing jcap with an unfinished file.
        Glibc.signal(SIGXFSZ, SIG_IGN)
        let console = Console(display: meters.meter)
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
            _ = try CaptureClient.checkOutput(try firstFilePath(configuration), settings: configuration.settings)
            capture = try CaptureClient(configuration: configuration)
        } catch {
            throw console.fail(error)
        }
        defer { capture.close() }
        console.describe(capture, verbose: verbose)
        capture.isMeteringEnabled = console.wantsMeters

        let plan = RecordingPlan(configuration: configuration)
        let keys = TerminalKeys()
        defer { keys.restore() }
        if keys.isActive && !plan.takeAfterTake { console.line("jcap: space pauses and resumes, q or Enter stops") }
        var wording = EventWording()
        wording.verbose = verbose
        wording.sampleRate = capture.sampleRate
        wording.channelNames = MeterSnapshot.channelNames(sources: configuration.connectsPorts ? capture.sources : capture.portNames)
        wording.waitingLine = waiting.waitingLine(followsTransport: configuration.followsTransport,
                                                  preRoll: configuration.preRoll, eachTake: "a take")
        let status = ControlRunLoop(console: console, wording: wording)
            .run(ControlCore(recording: capture, plan: plan),
                 surfaces: [KeySurface(keys, keymap: .recording), SignalSurface(signals)])
        if status != .success { throw ExitCode(status.rawValue) }
    }

    func makeConfiguration() throws -> CaptureConfiguration {
        var configuration = CaptureConfiguration()
        try ClientNameOption.check(name)
        configuration.clientName = name
        configuration.serverName = jack.server
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
        configuration.masterClockPort = masterClock
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
    func firstFilePath(_ configuration: CaptureConfiguration) throws(CaptureError) -> String {
        let path = try configuration.nextOutputPath()
        guard configuration.split != nil else { return path }
        return SplitNaming.unusedPath(SplitNaming.segmentPath(path, startMicroseconds: WallClockTime.nowMicrosecondsSinceEpoch()))
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
        if let srcQuality { settings.converterQuality = try SampleRateConverterQuality(option: srcQuality) }
        if let mode = try diskIO.mode() { settings.diskIO = mode }
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
