import Foundation

/// A JACK client set up for recording: its input ports registered, connected to their sources,
/// metered, and ready to record any number of takes one after another (`makeTake`), each to a file
/// of its own, without re-registering or reconnecting anything. Meters run between takes.
///
/// Sources are resolved here and only here; every error about the server, the ports or the ring
/// comes from `init`. One event pump thread per client drains the engine's events, hands them to
/// the take being recorded and finishes that take when it ends (`Take`).
///
/// The JACK client, the callbacks and the pump's thread belong to a `JackHost`, which stops and
/// joins the pump before the client deactivates and closes.
package final class CaptureClient: @unchecked Sendable {
    // @unchecked: `engine` holds raw state shared with JACK's threads; the rest is let or Locked.
    /// The JACK client (`jack_client_t`).
    package let jack: JackClient
    /// The client's owner: its callbacks, its workers and the order it closes in.
    package let host: JackHost
    package let engine: CaptureEngine
    /// The source port each channel records, in order.
    package var sources: [String] { currentSources.withLock { $0 } }
    /// Whether the ports were connected to their sources (else they wait to be patched by hand).
    package let connectsPorts: Bool
    /// How takes are named when no path is given: `take-NNN.<ext>` in this folder.
    package let configuration: CaptureConfiguration

    /// The server's NetJACK2 link, when the server is a slave (`NetJackSlave`); nil otherwise.
    package let netJackSlave: NetJackSlave?
    /// The first JACK frame from which every port this client connected carries its source's
    /// audio (`settledFrame`), for a minute after it connected them (or they were all patched by
    /// hand: `settleInputsPatchedByHand`); nil before. No take begins before it (`Take.start`).
    package var inputsCarryFrom: UInt32? { inputSettling.frame }
    let inputSettling = InputSettling()

    private let currentSources: Locked<[String]>
    let pump: EventPump
    /// Runs on a take's writer thread before each block: how tests make a deliberately slow disk.
    var beforeEachBlockWritten: (@Sendable (Int64) -> Void)?

    /// Opens the client (or takes `existingClient`), resolves the sources, checks the ring fits,
    /// registers one input port per source (`in_1` ...), activates and connects them.
    package init(configuration: CaptureConfiguration, client existingClient: JackClient? = nil) throws(CaptureError) {
        self.configuration = configuration
        connectsPorts = configuration.connectsPorts
        if let existingClient {
            host = JackHost(adopting: existingClient)
        } else {
            do {
                host = try JackHost(name: configuration.clientName, server: configuration.serverName)
            } catch { throw .jack(error) }
        }
        jack = host.client
        let netJackSlave = NetJackSlave.detect(on: jack)
        self.netJackSlave = netJackSlave
        // JACK transport does not cross NetJACK2 (jack2 disables the net driver's transport sync):
        // a slave's transport never rolls, so following it is refused before anything is made.
        if configuration.followsTransport && netJackSlave != nil { throw .transportOnNetJackSlave }
        let currentSources = try host.sources(for: configuration.sources)
        self.currentSources = Locked(currentSources)
        // The takes' format must hold this many channels at this rate: checked before any port.
        let format = try configuration.settings.resolveFormat(forPath: try configuration.nextOutputPath())
        try configuration.settings.validate(format, channels: currentSources.count, serverSampleRate: jack.sampleRate)
        // Refused before any port is registered or the ring allocated: a start or length the
        // engine cannot represent, a ring this machine cannot hold.
        try configuration.start?.validate(sampleRate: jack.sampleRate)
        _ = try configuration.duration?.takeLength(atSampleRate: jack.sampleRate)
        // A pre-roll is held on the ring on top of the buffer.
        let preRollFrames = try configuration.preRoll?.frames(atSampleRate: jack.sampleRate) ?? 0
        guard preRollFrames <= Int64(jack.sampleRate) * 600 else {
            throw .badDuration(configuration.preRoll?.description ?? "", reason: "a pre-roll is at most 10 minutes")
        }
        let preRollSeconds = Double(preRollFrames) / Double(jack.sampleRate)
        _ = try MemoryBudget.current().ringByteCount(seconds: configuration.bufferSeconds + preRollSeconds,
                                                     sampleRate: jack.sampleRate,
                                                     period: jack.bufferSize, channels: currentSources.count)
        let names = configuration.portNames ?? (1...currentSources.count).map { "in_\($0)" }
        guard names.count == currentSources.count else {
            throw .badChannelList(names.joined(separator: ","), reason: "\(names.count) port names for \(currentSources.count) sources")
        }
        // The timecode's port is an output port of the server's, found before anything is made.
        let timecodeSource = configuration.masterClockPort
        if let timecodeSource, !host.client.audioOutputPorts().contains(timecodeSource) { throw .noPortMatches(timecodeSource) }
        do {
            engine = try CaptureEngine(client: jack, portShortNames: names, bufferSeconds: configuration.bufferSeconds,
                                       preRollSeconds: preRollSeconds, onNetJackSlave: netJackSlave != nil,
                                       timecodePortName: timecodeSource == nil ? nil : CaptureClient.timecodePortShortName)
            try engine.activate(on: host)
            if connectsPorts {
                for (source, port) in zip(currentSources, engine.portNames) { try jack.connect(source, to: port) }
            }
            if let timecodeSource, let port = engine.timecodePortName { try jack.connect(timecodeSource, to: port) }
        } catch { throw .jack(error) }
        let lastConnection: (port: OpaquePointer, source: String)? =
            if let timecodeSource, let port = engine.timecodePort { (port, timecodeSource) }
            else if connectsPorts, let port = engine.ports.last, let source = currentSources.last { (port, source) }
            else { nil }
        pump = EventPump(engine: engine, host: host)
        if let lastConnection {
            inputSettling.set(CaptureClient.settledFrame(afterConnecting: lastConnection.port, to: lastConnection.source,
                                                         on: jack, netJackSlave: netJackSlave))
        }
    }

    deinit { close() }

    /// The short name of the input port the master's timecode comes in on (`--master-clock`).
    package static let timecodePortShortName = "master_clock"

    /// Finishes a take still open, stops the pump, deactivates and closes the JACK client. Safe to
    /// call more than once.
    /// Removes the metadata of this client's ports (their pretty names and order), once: what a
    /// client that set port metadata does before closing (`StudioSession.close` says why).
    package func removePortMetadata() {
        guard !pump.state.closed else { return }
        for port in engine.ports { jack.removeDisplayMetadata(ofPort: port) }
    }

    package func close() {
        guard pump.close() else { return }
        host.close()
    }

    package var sampleRate: Int { jack.sampleRate }
    package var channelCount: Int { engine.channelCount }
    /// Full names of the client's input ports (`jcap:in_1`), in channel order.
    package var portNames: [String] { engine.portNames }

    /// The capture latency JACK reports for a channel's port (the most of its range), in frames:
    /// how long after the sound reached the converter its frames arrive here.
    package func captureLatency(ofChannel channel: Int) -> Int? {
        guard engine.ports.indices.contains(channel) else { return nil }
        return jack.captureLatency(of: engine.ports[channel]).maximum
    }

    /// Each channel's capture latency, as a take aligned to it uses it: the most of the ranges
    /// JACK reports for the ports connected to the channel's port (jack_port_get_latency_range
    /// with JackCaptureLatency), or of the channel's own port when nothing is connected. Read from
    /// the sources, it does not wait for the server to recompute jcap's ports after a connection.
    package func sourceCaptureLatencies() -> [Int] {
        CaptureClient.sourceCaptureLatencies(of: engine.ports, on: jack)
    }

    static func sourceCaptureLatencies(of ports: [OpaquePointer], on jack: JackClient) -> [Int] {
        ports.map { port in
            let sources = jack.connections(of: port).compactMap { try? jack.port(named: $0) }
            guard !sources.isEmpty else { return jack.captureLatency(of: port).maximum }
            return sources.map { jack.captureLatency(of: $0).maximum }.max() ?? 0
        }
    }

    /// Watches the JACK transport from now on, so that a take following it knows
    /// the exact frame of every roll that begins after this call.
    package func watchTransport() { engine.watchTransport() }

    /// True when recording can start: every input port has a connection (when the ports are not connected for the user,
    /// once they have been patched by hand).
    package var isReady: Bool { engine.connectionCounts().allSatisfy { $0 > 0 } }

    /// Connects each channel's port to a new source instead of its current one (between takes).
    /// The count must match the channels (`.badChannelList` otherwise).
    package func reassign(sources newSources: [String]) throws(CaptureError) {
        let old = sources
        guard newSources.count == old.count else {
            throw .badChannelList(newSources.joined(separator: ","),
                                  reason: "\(newSources.count) sources for \(old.count) channels: give one source per channel")
        }
        do {
            for (source, port) in zip(old, engine.portNames) where connectsPorts {
                try? jack.disconnect(source, from: port)
            }
            currentSources.withLock { $0 = newSources }
            if connectsPorts {
                for (source, port) in zip(newSources, engine.portNames) { try jack.connect(source, to: port) }
            }
        } catch { throw .jack(error) }
        if connectsPorts, let port = engine.ports.last, let source = newSources.last {
            inputSettling.set(CaptureClient.settledFrame(afterConnecting: port, to: source, on: jack, netJackSlave: netJackSlave))
        }
    }

    /// Every port has been patched by hand (`--no-connect`, `isReady` just true; it read the
    /// connections once the server's graph had them): their inputs carry their sources' audio
    /// from a period on (on a NetJACK2 slave, `NetJackSlave.settleCycles`), as after jcap's own
    /// connections, and no take begins before (`Take.start`).
    package func settleInputsPatchedByHand() {
        inputSettling.set(FrameTime.advance(jack.estimatedFrameTime, by: (netJackSlave?.settleCycles ?? 1) * jack.bufferSize))
    }

    /// The first JACK frame from which ports connected up to the connection from `source` to
    /// `port` carry their sources' audio. A connection takes effect at the start of a cycle after
    /// it is made, and in that cycle a hardware driver has not yet filled a capture port that had
    /// no connection: the port still holds the last period it was filled with, maybe a take ago
    /// (jackd2's drivers read only connected ports, before the graph changes). So a period after
    /// the change is seen; on a NetJACK2 slave, `NetJackSlave.settleCycles` (the master sends a
    /// port's audio only once told it is connected). Waits, at most 2 s, for the change.
    static func settledFrame(afterConnecting port: OpaquePointer, to source: String, on jack: JackClient,
                             netJackSlave: NetJackSlave?) -> UInt32 {
        _ = jack.waitUntilConnected(port, to: source, timeout: 2)
        // Read once the change is seen, so at or after the start of the cycle it took effect in.
        let seen = jack.estimatedFrameTime
        return FrameTime.advance(seen, by: (netJackSlave?.settleCycles ?? 1) * jack.bufferSize)
    }

    /// Resolves port names or globs against the server's output ports, as `init` resolves sources.
    package func resolve(_ selection: SourceSelection) throws(CaptureError) -> [String] {
        try host.sources(for: selection)
    }

    /// Sources resolved as a client resolves them (`JackHost.sources(for:on:)`, the one place).
    package static func resolve(_ selection: SourceSelection, on jack: JackClient) throws(CaptureError) -> [String] {
        try JackHost.sources(for: selection, on: jack)
    }

    // MARK: Takes

    /// The take being recorded (or prepared), if any.
    package var take: Take? { pump.take }

    /// Prepares the next take: checks the format and the path (`path` nil: the configuration's
    /// output path, else the next `take-NNN` name), creates the file (never replacing one unless
    /// `settings.overwritesExistingFile`) and starts its disk writer, so that `Take.start` begins
    /// on the next cycle. The take before must have finished (`.alreadyStarted` otherwise). With
    /// `configuration.split`, that path names the take's files, each with its start inserted.
    package func makeTake(path: String? = nil, settings: RecordingSettings? = nil) throws(CaptureError) -> Take {
        let outputPath = if let path { path } else { try configuration.nextOutputPath() }
        if let split = configuration.split { return try makeSplitTake(basePath: outputPath, interval: split, settings: settings) }
        return try makeTake(TakeLayout(files: [TakeFileSpec(path: outputPath, channels: Array(0..<channelCount))]),
                            settings: settings)
    }

    /// Prepares the next take into the files `layout` names, each holding some of the client's
    /// channels: every path is checked before any file is created, and a failure removes the
    /// files already created, so nothing is left half made.
    package func makeTake(_ layout: TakeLayout, settings: RecordingSettings? = nil) throws(CaptureError) -> Take {
        let settings = settings ?? configuration.settings
        let (isClosed, previous) = pump.state
        if isClosed { throw .clientClosed }
        if let previous, !previous.isFinished { throw .alreadyStarted }
        guard let first = layout.files.first else { throw .badChannelList("", reason: "a take writes at least one file") }
        // One file per track of 1024 channels needs more descriptors than the usual soft limit
        // of 1024; the hard limit is this process's to use.
        raiseOpenFileLimit(toAtLeast: layout.files.count + 256)
        for spec in layout.files {
            guard !spec.channels.isEmpty, spec.channels.allSatisfy({ (0..<channelCount).contains($0) }) else {
                throw .badChannelList(spec.channels.map { String($0 + 1) }.joined(separator: ","),
                                      reason: "\(spec.path) names channels this client lacks (it has \(channelCount))")
            }
            let format = try CaptureClient.checkOutput(spec.path, settings: settings)
            try settings.validate(format, channels: spec.channels.count, serverSampleRate: sampleRate)
        }
        let format = try settings.resolveFormat(forPath: first.path)
        let take = try Take(client: self, layout: layout, format: format, settings: settings,
                            beforeEachBlockWritten: beforeEachBlockWritten)
        pump.take = take
        return take
    }

    // MARK: Metering, as AVAudioRecorder has it (channels are 0-based)

    /// Whether levels are measured. Off, metering costs the process callback nothing but one
    /// atomic load a cycle; the take summary then has no peaks.
    package var isMeteringEnabled: Bool {
        get { engine.isMeteringEnabled }
        set { engine.isMeteringEnabled = newValue }
    }

    /// The channels' meters: `update()` takes in what was measured since the last call;
    /// `averagePower`, `peakPower` and `reading` read a channel (the floor value out of range).
    package var meters: ChannelMeters { engine.meters }

    // MARK: Paths

    /// The format `settings` give a file at `path`, once sure the file can be created there:
    /// refused if it exists (unless `settings.overwritesExistingFile`) or its folder is not
    /// writable. Creates nothing: callers check before they connect to anything.
    package static func checkOutput(_ path: String, settings: RecordingSettings) throws(CaptureError) -> FileFormat {
        let format = try settings.resolveFormat(forPath: path)
        try checkWritable(path, overwrite: settings.overwritesExistingFile)
        return format
    }

    /// Fails early, before anything is created, if the file exists or its folder is not
    /// writable. The file itself is created with O_EXCL, so a file that appears meanwhile is
    /// still never overwritten.
    static func checkWritable(_ path: String, overwrite: Bool) throws(CaptureError) {
        if !overwrite && access(path, F_OK) == 0 { throw .outputExists(path) }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let directory = folder.isEmpty ? "/" : folder
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw .outputUnwritable(path, reason: "folder '\(directory)' does not exist")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .outputUnwritable(path, reason: "'\(directory)' is not a folder")
        }
        guard access(directory, W_OK) == 0 else {
            throw .outputUnwritable(path, reason: "folder '\(directory)' is not writable")
        }
    }
}

/// The client's event pump: a `Butler` that drains the engine's events into the current take and
/// finishes the take when it ends. The process callback cannot signal (no syscalls on the
/// real-time thread), so the butler also wakes every 10 ms to look; everything else wakes it at
/// once. The host stops and joins it before the client closes. It holds no reference to its
/// client, so the client can close it from `deinit`.
final class EventPump: Sendable {
    private struct Control {
        var currentTake: Take?
        var closed = false
    }

    private let engine: CaptureEngine
    private let control = Locked(Control())
    private let butler = Butler(name: "jcap events", idleWait: .milliseconds(10))

    init(engine: CaptureEngine, host: JackHost) {
        self.engine = engine
        // One more round after the stop: the events of the last cycles reach the take.
        host.run(butler, finalRound: true) { [self] in
            if let take, take.state != .finished {
                take.pump(engine.takeEvents())
            } else {
                // Nothing between takes belongs to one (a session's repatching before the next):
                // connections held for placing go too.
                _ = engine.takeEvents(releasingHeld: true)
            }
            return .idle
        }
    }

    var take: Take? {
        get { control.withLock { $0.currentTake } }
        set { control.withLock { $0.currentTake = newValue } }
    }

    var state: (closed: Bool, take: Take?) { control.withLock { ($0.closed, $0.currentTake) } }

    /// Wakes the pump at once (a take was armed, paused, resumed or stopped).
    func wake() { butler.wake() }

    var isCurrentThread: Bool { butler.isCurrentThread }

    /// On the pump's own thread: waits for a wake or the pump's timed wait (the callback cannot
    /// signal the end of a take; this is how a finish on the pump waits for it).
    func rest() { butler.rest() }

    /// Finishes the take still open, then stops the butler (and joins it, unless this is its
    /// own thread). False when already closed.
    func close() -> Bool {
        let take = control.withLock { control -> Take?? in
            guard !control.closed else { return .none }
            control.closed = true
            return .some(control.currentTake)
        }
        guard let take else { return false }
        if let take, !isCurrentThread { _ = take.finish() }
        butler.stop()
        // The take refers to the pump: letting go of it breaks the cycle.
        control.withLock { $0.currentTake = nil }
        return true
    }
}

/// Raises the soft limit on open files (RLIMIT_NOFILE, setrlimit(2)) to at least `count`, as far
/// as the hard limit allows. Past it, creating a file fails with its own clear error (EMFILE).
func raiseOpenFileLimit(toAtLeast count: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
    limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
