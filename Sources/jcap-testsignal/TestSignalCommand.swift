import ArgumentParser
import JackCapture
import JackCaptureTestSignal

@main
struct TestSignalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jcap-testsignal",
        abstract: "Play jcap's test signal on JACK ports, or check a recording of it sample by sample.",
        subcommands: [Play.self, Verify.self, Loopback.self, Xruns.self],
        defaultSubcommand: Play.self)

    struct Play: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play the test signal on out_1 ... out_N until SIGINT/SIGTERM.")

        @Option(name: .long, help: "Number of output ports.")
        var channels = 2

        @Option(name: .long, help: "JACK client name.")
        var name = "testsignal"

        @Option(name: .long, help: "JACK server name.")
        var server: String?

        @Option(name: .long, help: "code (every sample encodes its frame time and channel), sine or silence.")
        var signal: Signal = .code

        @Option(name: .long, help: "Sine frequency in whole hertz.")
        var frequency = 1_000

        @Option(name: .long, help: "Sine level in dBFS: 0 peaks at full scale, +3 is beyond it.")
        var level = 0.0

        @Option(name: .long, help: "Capture latency in frames to declare on the ports, as a source behind a converter would: one for all, or a comma-separated list cycled over the ports. The signal is not delayed.")
        var captureLatency: String?

        @Option(name: .long, help: "Roll and stop the JACK transport on chosen JACK frames: ROLL:STOP[,ROLL:STOP...] (each asked for in the cycle holding the frame; JACK acts from the next cycle). Each roll and stop is printed with the frame it took effect on.")
        var transport: String?

        @Option(name: .long, help: "Play at full level only in these JACK frame windows, FROM:TO[,FROM:TO...], and at exactly 2^-10 of it (under -72 dBFS) elsewhere: a signal for a sound trigger.")
        var loud: String?

        @Flag(name: .long, help: "Be the transport's timebase master: bar, beat and tick at 120 bpm in 4/4, 1920 ticks a beat.")
        var timebase = false

        enum Signal: String, ExpressibleByArgument { case code, sine, silence }

        func run() throws {
            Glibc.signal(SIGINT, SIG_IGN)
            Glibc.signal(SIGTERM, SIG_IGN)
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGINT)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let latencies = try (captureLatency ?? "").split(separator: ",").map { text -> Int in
                guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                    throw ValidationError("--capture-latency takes whole frames, 0 or more, like 1024 or 256,1024")
                }
                return value
            }
            var requests: [TestSignalGenerator.TransportRequest] = []
            for pair in (transport ?? "").split(separator: ",") {
                let frames = pair.split(separator: ":").map { UInt32($0) }
                guard frames.count == 2, let roll = frames[0], let stop = frames[1] else {
                    throw ValidationError("--transport takes ROLL:STOP frame pairs, like 96000:144000,192000:240000")
                }
                requests += [.init(frame: roll, rolls: true), .init(frame: stop, rolls: false)]
            }
            var windows: [(from: UInt32, to: UInt32)] = []
            for pair in (loud ?? "").split(separator: ",") {
                let frames = pair.split(separator: ":").map { UInt32($0) }
                guard frames.count == 2, let from = frames[0], let to = frames[1] else {
                    throw ValidationError("--loud takes FROM:TO frame pairs, like 96000:144000")
                }
                windows.append((from, to))
            }
            let generator: TestSignalGenerator
            do {
                let client = try JackClient(name: name, server: server)
                generator = try TestSignalGenerator(client: client, channels: channels, captureLatencies: latencies,
                                                    transportRequests: requests, loudWindows: windows) { [signal, frequency, level] rate in
                    switch signal {
                    case .code: .code()
                    case .sine: .sine(frequency: frequency, level: level, sampleRate: rate)
                    case .silence: .silence()
                    }
                }
            } catch {
                StandardStreams.writeError("jcap-testsignal: error: \(error)\n")
                if case .noServer = error { throw ExitCode(ExitStatuses.noServer) }
                throw ExitCode(ExitStatuses.jackRefused)
            }
            if timebase && !generator.becomeTimebaseMaster() {
                StandardStreams.writeError("jcap-testsignal: error: the server refused a timebase master\n")
                throw ExitCode(ExitStatuses.jackRefused)
            }
            StandardStreams.writeOutput("playing the test signal on \(generator.portNames.joined(separator: " "))\n")
            // Until SIGINT or SIGTERM, or until the server goes away (then there is nothing to play).
            var timeout = timespec(tv_sec: 0, tv_nsec: 200_000_000)
            var reported = 0, jumpsReported = 0
            while sigtimedwait(&blocked, nil, &timeout) < 0 && !generator.serverGone {
                let changes = generator.transportChanges
                for change in changes.dropFirst(reported) {
                    StandardStreams.writeOutput("transport \(change.rolls ? "rolled" : "stopped") at JACK frame \(change.frame)\n")
                }
                reported = changes.count
                // The signal skipped frames where this client saw the clock jump: a recording is
                // right to hold silence (or a reported span) there.
                let jumps = generator.clockJumps
                for jump in jumps.dropFirst(jumpsReported) {
                    StandardStreams.writeOutput("clock jumped at JACK frame \(jump.expected) to \(jump.actual) "
                        + "(\(FrameTime.distance(from: jump.expected, to: jump.actual)) frames)\n")
                }
                jumpsReported = jumps.count
            }
            if generator.serverGone {
                StandardStreams.writeError("jcap-testsignal: the JACK server shut down\n")
                throw ExitCode(ExitStatuses.serverShutDown)
            }
        }
    }

    struct Loopback: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stand in for an audio interface with a cable from its outputs to its inputs, until SIGINT/SIGTERM.",
            discussion: """
                Registers playback_1..N (inputs) and capture_1..N (outputs): what reaches playback_K
                leaves capture_K exactly PLAYBACK + CAPTURE_K frames later, and those latencies are
                declared on the ports as a driver declares its converters'.
                """)

        @Option(name: .long, help: "Number of channels.")
        var channels = 2

        @Option(name: .long, help: "JACK client name.")
        var name = "loop"

        @Option(name: .long, help: "JACK server name.")
        var server: String?

        @Option(name: .long, help: "Playback latency in frames, declared on every playback_K.")
        var playbackLatency = 0

        @Option(name: .long, help: "Capture latency in frames, declared on capture_K: one for all, or a comma-separated list cycled over the channels.")
        var captureLatency = "0"

        func run() throws {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGINT)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let captures = try captureLatency.split(separator: ",").map { text -> Int in
                guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                    throw ValidationError("--capture-latency takes whole frames, 0 or more, like 1024 or 256,1024")
                }
                return value
            }
            guard playbackLatency >= 0 else { throw ValidationError("--playback-latency takes whole frames, 0 or more") }
            let loopback: LoopbackClient
            do {
                loopback = try LoopbackClient(client: try JackClient(name: name, server: server), channels: channels,
                                              playbackLatency: playbackLatency, captureLatencies: captures)
            } catch {
                StandardStreams.writeError("jcap-testsignal: error: \(error)\n")
                if case .noServer = error { throw ExitCode(ExitStatuses.noServer) }
                throw ExitCode(ExitStatuses.jackRefused)
            }
            StandardStreams.writeOutput("looping \(loopback.playbackPorts.joined(separator: " ")) to \(loopback.capturePorts.joined(separator: " "))\n")
            var timeout = timespec(tv_sec: 0, tv_nsec: 200_000_000)
            while sigtimedwait(&blocked, nil, &timeout) < 0 && !loopback.serverGone {}
            if loopback.serverGone {
                StandardStreams.writeError("jcap-testsignal: the JACK server shut down\n")
                throw ExitCode(ExitStatuses.serverShutDown)
            }
        }
    }

    struct Xruns: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a line for each xrun the server reports, until SIGINT/SIGTERM.",
            discussion: """
                Prints "watching xruns" once its client is active, then "xrun N" (N counted from 1)
                within 50 ms of each xrun JACK reports to its clients.
                """)

        @Option(name: .long, help: "JACK client name.")
        var name = "xruns"

        @Option(name: .long, help: "JACK server name.")
        var server: String?

        func run() throws {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGINT)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let watcher: XrunWatcher
            do {
                watcher = try XrunWatcher(client: try JackClient(name: name, server: server))
            } catch {
                StandardStreams.writeError("jcap-testsignal: error: \(error)\n")
                if case .noServer = error { throw ExitCode(ExitStatuses.noServer) }
                throw ExitCode(ExitStatuses.jackRefused)
            }
            StandardStreams.writeOutput("watching xruns\n")
            var timeout = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            var printed = 0
            while sigtimedwait(&blocked, nil, &timeout) < 0 && !watcher.serverGone {
                let xruns = watcher.xruns
                while printed < xruns {
                    printed += 1
                    StandardStreams.writeOutput("xrun \(printed)\n")
                }
            }
            if watcher.serverGone {
                StandardStreams.writeError("jcap-testsignal: the JACK server shut down\n")
                throw ExitCode(ExitStatuses.serverShutDown)
            }
        }
    }

    struct Verify: ParsableCommand {
        /// An account of a file whose recorder reported nothing: it starts where its first frame with
        /// signal on every channel says, and what comes before (a new client's first cycles, ports
        /// connected one by one) is excused as lost.
        static func unreportedAccount(of path: String, firstChannel: Int) throws -> TakeAccount {
            let sound = try SoundFile.open(readingFrom: path)
            let channels = sound.channels
            var buffer = [Float](repeating: 0, count: 4_096 * channels)
            var position: Int64 = 0
            while true {
                let read = buffer.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: 4_096) }
                if read <= 0 { break }
                for frame in 0..<read where (0..<channels).allSatisfy({ buffer[frame * channels + $0] != 0 }) {
                    guard let decoded = TestSignal.frameTime(decoding: buffer[frame * channels], channel: firstChannel) else { continue }
                    let at = position + Int64(frame)
                    let start = UInt32(truncatingIfNeeded: Int64(decoded) - at)
                    return TakeAccount(startFrame: start,
                                       files: [.init(path: path, signalChannels: Array(firstChannel..<(firstChannel + channels)))],
                                       lostSpans: at > 0 ? [LostSpan(position: 0, frames: at)] : [])
                }
                position += Int64(read)
            }
            return TakeAccount(startFrame: 0, files: [.init(path: path, signalChannels: Array(firstChannel..<(firstChannel + channels)))])
        }

        /// Shifts every channel of a slave's take by the master's frame time less the slave's, as
        /// the first file's first frame shows it (docs/netjack.md: constant while the link is up).
        static func shiftByTheLinkOffset(_ account: inout TakeAccount) throws {
            guard let first = account.files.first, let channel = first.signalChannels.first else { return }
            let sound = try SoundFile.open(readingFrom: first.path)
            var frame = [Float](repeating: 0, count: sound.channels)
            let read = frame.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: 1) }
            guard read == 1, let time = TestSignal.frameTime(decoding: frame[0], channel: channel) else {
                StandardStreams.writeError("jcap-testsignal: error: \(first.path) does not begin with the test signal\n")
                throw ExitCode(1)
            }
            let modulus = TestSignal.timeModulus
            let forward = ((time - Int(account.startFrame) % modulus) % modulus + modulus) % modulus
            let offset = forward > modulus / 2 ? forward - modulus : forward
            for index in account.files.indices {
                account.files[index].shifts = Array(repeating: offset, count: account.files[index].signalChannels.count)
            }
        }

        static let configuration = CommandConfiguration(
            abstract: "Check every sample of a recording of the test signal.")

        @Argument(help: "The recorded file; with --continuity, one or more (a take's files, in channel order).")
        var files: [String] = []

        @Flag(help: "Report continuity (silent, missing, duplicated, corrupt frames) as key=value, for benchmarks.")
        var continuity = false

        @Option(help: ArgumentHelp("The test-signal channel (1-based) the file's first channel recorded; the others follow (a session's track file of out_7 and out_8: 7).", valueName: "n"))
        var firstChannel = 1

        @Option(help: ArgumentHelp("jcap's `--meter json` output: its last take summary names the files, and each sample must be the signal in place or inside a span it reports (file paths relative to the current folder).", valueName: "file"))
        var report: String?

        @Option(help: ArgumentHelp("A session folder: every take its take log names is checked against what the log reports of it.", valueName: "folder"))
        var log: String?

        @Flag(help: "With --report: the take was recorded on a NetJACK2 slave from system:capture_N, patched on the master from the signal's out_N. Capture N is signal channel N, at the master's frame time less the slave's (whole periods, read from the first file's first frame).")
        var netjackSlave = false

        @Flag(help: "The file's recorder reported no positions (another recorder): every sample must be the signal at its place counted from the file's first frame of signal, its leading silence aside, as if nothing had been reported; the count of samples that are not is what it lost or moved without saying where.")
        var withoutReport = false

        func validate() throws {
            guard firstChannel >= 1 else { throw ValidationError("--first-channel counts from 1") }
            guard !netjackSlave || report != nil else { throw ValidationError("--netjack-slave only with --report") }
            if report != nil || log != nil {
                guard files.isEmpty, report == nil || log == nil else {
                    throw ValidationError("--report or --log, alone: they name the files themselves")
                }
                return
            }
            guard !files.isEmpty else { throw ValidationError("name the recorded file") }
            guard continuity || files.count == 1 else { throw ValidationError("several files only with --continuity") }
            guard !(continuity && withoutReport) else { throw ValidationError("--continuity or --without-report, not both") }
        }

        func run() throws {
            do {
                if let report {
                    let text = try String(contentsOfFile: report, encoding: .utf8)
                    guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{\"summary\"") }),
                          var account = netjackSlave ? TakeAccount(meterSummaryLine: line, signalChannel: TakeAccount.signalChannel(ofCapturePort:))
                                                     : TakeAccount(meterSummaryLine: line) else {
                        StandardStreams.writeError("jcap-testsignal: error: no take summary of test-signal ports in \(report)\n")
                        throw ExitCode(1)
                    }
                    if netjackSlave { try Self.shiftByTheLinkOffset(&account) }
                    let verification = TakeVerification.verify(account)
                    print(verification)
                    if !verification.isAccountedFor { throw ExitCode(1) }
                    return
                }
                if let log {
                    var failed = false
                    for entry in try TakeLog(folder: log).entries() where !entry.status.isRemoved {
                        guard let account = TakeAccount(entry, folder: log) else {
                            print("take \(entry.take): not a take of test-signal ports")
                            failed = true
                            continue
                        }
                        let verification = TakeVerification.verify(account)
                        print("take \(entry.take) (\(entry.status.rawValue)): \(verification)")
                        failed = failed || !verification.isAccountedFor
                    }
                    if failed { throw ExitCode(1) }
                    return
                }
                if withoutReport {
                    let account = try Self.unreportedAccount(of: files[0], firstChannel: firstChannel - 1)
                    let verification = TakeVerification.verify(account)
                    print(verification)
                    if !verification.isAccountedFor { throw ExitCode(1) }
                    return
                }
                if continuity {
                    var channel = firstChannel - 1
                    var results: [TestSignalContinuity] = []
                    for file in files {
                        let sound = try SoundFile.open(readingFrom: file)
                        results.append(TestSignalContinuity.analyze(file: sound, firstChannel: channel))
                        channel += sound.channels
                    }
                    print(TestSignalContinuity.combining(results))
                    return
                }
                let file = files[0]
                let sound = try SoundFile.open(readingFrom: file)
                let report = TestSignalReport.check(file: sound,
                                                    signalChannels: Array((firstChannel - 1)..<(firstChannel - 1 + sound.channels)))
                print("\(file): \(report)")
                if !report.isIntact { throw ExitCode(1) }
            } catch let error as CaptureError {
                StandardStreams.writeError("jcap-testsignal: error: \(error)\n")
                throw ExitCode(1)
            } catch let error as TakeLogError {
                StandardStreams.writeError("jcap-testsignal: error: \(error)\n")
                throw ExitCode(1)
            }
        }
    }
}

/// jcap's exit statuses for the failures the player shares with it.
enum ExitStatuses {
    static let serverShutDown: Int32 = 5
    static let noServer: Int32 = 10
    static let jackRefused: Int32 = 18
}
