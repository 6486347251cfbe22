import ArgumentParser
import JackCapture
#if canImport(Glibc)
import Glibc
#endif

@main
struct Jcap: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jcap",
        abstract: "Record JACK ports to a sound file, sample-accurately.",
        discussion: """
            Examples:
              jcap --channels 1,2 --at +3s --for 60s
              jcap --port 'synth:out_*' --for 1:30 -o synth.wav --bit-depth 24
              jcap --channels 1-8 -o drums.flac            # until Ctrl-C

            While recording: space pauses and resumes (so does SIGUSR1), q or Enter stops
            (so do Ctrl-C and SIGTERM). Paused spans are left out of the file with no gap.

            Exit status: 0 complete; 3 frames lost (written as silence); 4 write failed;
            5 JACK server shut down; 6 stopped before the start; 7 the server's sample rate
            changed (the take stopped there); 10 no JACK server;
            11 unknown port or channel; 12 bad time or duration; 13 start time in the past;
            14 unwritable path; 15 file exists; 16 unsupported format; 17 too many channels
            for the format; 18 JACK refused a port or connection; 64 bad option.
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

    @Option(name: .long, help: ArgumentHelp("Start time: +3s / +250ms / +48000f after ready, @FRAME (JACK frame time), or 14:30:00[.250] today.", valueName: "time"))
    var at: String?

    @Option(name: .customLong("for"), help: ArgumentHelp("Length: 60s, 1.01s, 250ms, 48000f, 1:30, 1:02:03.5. Default: until Ctrl-C.", valueName: "duration"))
    var duration: String?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output file; the extension picks the format (wav w64 rf64 caf aiff flac ogg opus mp3). Default: take-NNN.wav here.", valueName: "path"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Sample format for PCM containers: 16, 24, 32 or float (default 24).", valueName: "depth"))
    var bitDepth: String?

    @Flag(name: .long, help: "Replace the output file if it exists.")
    var overwrite = false

    @Option(name: .long, help: ArgumentHelp("Ring buffer length: how long the disk may stall without losing frames (default 4s).", valueName: "duration"))
    var buffer: String = "4s"

    @Option(name: .long, help: ArgumentHelp("Live meter: bars (folding into columns when needed), compact, none, or json lines on standard output. Default: bars on a terminal, a plain status line a second otherwise.", valueName: "style"))
    var meter: MeterDisplay?

    /// Like ParsableCommand's, but a bad option gets the same one-line error as every other
    /// failure, with its hint to `--help`.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let status = exitCode(for: error)
            if status == .success || error is ExitCode { exit(withError: error) }
            StandardStreams.writeError("jcap: error: \(message(for: error)) (see 'jcap --help')\n")
            exit(withError: ExitCode(ExitStatus.usage.rawValue))
        }
    }

    func run() throws {
        let signals = ControlSignals()
        let console = Console(display: meter)
        defer { console.endDisplay() }
        let configuration: CaptureConfiguration
        do {
            configuration = try makeConfiguration()
        } catch {
            throw console.fail(error)
        }

        let session: CaptureSession
        do {
            session = try CaptureSession(configuration: configuration)
        } catch {
            throw console.fail(error)
        }
        console.describe(session)
        session.isMeteringEnabled = console.wantsMeters
        let names = MeterSnapshot.channelNames(sources: configuration.connectsPorts ? session.sources : session.engine.portNames)
        func update(waitingForPorts: Bool = false) {
            if session.isMeteringEnabled { session.updateMeters() }
            console.show(MeterSnapshot(session: session, names: names, waitingForPorts: waitingForPorts))
        }

        if !configuration.connectsPorts {
            console.line("jcap: waiting for \(session.engine.portNames.joined(separator: ", ")) to be connected")
            while !session.isReady {
                if signals.stopSignal != nil {
                    console.line("jcap: stopped before any port was connected; nothing recorded")
                    throw ExitCode(ExitStatus.cancelled.rawValue)
                }
                update(waitingForPorts: true)
                usleep(50_000)
            }
        }

        do {
            try session.start()
        } catch {
            throw console.fail(error)
        }
        console.announceStart(session)

        let keys = TerminalKeys()
        defer { keys.restore() }
        if keys.isActive { console.line("jcap: space pauses and resumes, q or Enter stops") }
        var stopping = false
        var pauseRequested = false
        while !session.isFinished {
            var commands = keys.commands()
            commands += Array(repeating: .togglePause, count: signals.takePauseToggles())
            if !stopping, let signal = signals.stopSignal {
                let frame = session.stop()
                console.line("jcap: \(signal == SIGINT ? "interrupted" : "terminated"), stopping before JACK frame \(frame)")
                stopping = true
            }
            for command in commands where !stopping {
                switch command {
                case .stop:
                    let frame = session.stop()
                    console.line("jcap: stopping before JACK frame \(frame)")
                    stopping = true
                case .togglePause:
                    if pauseRequested { session.resume() } else { session.pause() }
                    pauseRequested.toggle()
                }
            }
            for event in session.takeEvents() { console.report(event) }
            update()
            usleep(50_000)
        }
        let report = session.finish()
        console.summarize(report, names: names)
        let status = ExitStatus(for: report.outcome)
        if status != .success { throw ExitCode(status.rawValue) }
    }

    func makeConfiguration() throws(CaptureError) -> CaptureConfiguration {
        var configuration = CaptureConfiguration()
        configuration.clientName = name
        configuration.serverName = server
        if let channels, !port.isEmpty {
            throw .badChannelList(channels, reason: "use --channels or --port, not both")
        }
        if let channels {
            configuration.sources = .channels(try SourceSelection.parseChannelList(channels))
        } else if !port.isEmpty {
            configuration.sources = .ports(port)
        }
        configuration.connectsPorts = !noConnect
        configuration.outputPath = output
        configuration.overwrite = overwrite
        if let bitDepth {
            guard let depth = BitDepth(rawValue: bitDepth.lowercased()) else {
                throw .unsupportedEncoding("bad --bit-depth '\(bitDepth)': use 16, 24, 32 or float")
            }
            configuration.bitDepth = depth
        }
        if let at { configuration.start = try StartTime(parsing: at) }
        if let duration {
            let parsed = try CaptureDuration(parsing: duration)
            guard !parsed.isZero else { throw .badDuration(duration, reason: "a take must be longer than zero") }
            configuration.duration = parsed
        }
        let bufferLength = try CaptureDuration(parsing: buffer)
        configuration.bufferSeconds = Double(bufferLength.frames(atSampleRate: 1_000_000)) / 1_000_000
        guard configuration.bufferSeconds >= 0.01 else {
            throw .badDuration(buffer, reason: "the buffer must hold at least 10ms")
        }
        return configuration
    }
}
