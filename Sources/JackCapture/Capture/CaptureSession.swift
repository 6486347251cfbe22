import Foundation

/// One take from start to finish: the JACK client and its ports, the file, the disk writer, and
/// the start and stop frames.
///
/// Use: `init` (connects to JACK, resolves and connects the ports: every error about the server,
/// the ports, the format or the output path comes from here), wait for `isReady` if the ports are
/// patched by hand, `start()`, poll `status` until `isFinished` (calling `stop()` to end an open
/// take), then `finish()`.
public final class CaptureSession: @unchecked Sendable {
    public let configuration: CaptureConfiguration
    public let client: JackClient
    public let engine: CaptureEngine
    /// The source port each channel records, in order.
    public private(set) var sources: [String]
    public let format: FileFormat
    public let outputPath: String
    public private(set) var writer: DiskWriter?
    /// The engine's number for this take, once prepared.
    public private(set) var take: UInt32 = 0
    /// The JACK frame the take was armed to start at (nil: the first cycle after `start()`).
    public private(set) var scheduledStart: UInt32?
    public private(set) var durationFrames: Int64?
    private var finalReport: TakeReport?
    private var started = false
    private let eventLock = NSLock()
    private var eventLog: [CaptureEvent] = []
    private var reportedShutdown = false
    /// Runs on the writer thread before each block: how tests make a deliberately slow disk.
    var beforeEachBlockWritten: (@Sendable (Int64) -> Void)?

    /// - Parameter client: a client already open on the right server (a `Recorder` opens one to
    ///   read JACK's clock before it prepares); nil opens one as the configuration says.
    public init(configuration: CaptureConfiguration, client existingClient: JackClient? = nil) throws(CaptureError) {
        self.configuration = configuration
        let path = configuration.outputPath ?? TakeNaming.nextFileName(
            existing: TakeNaming.fileNames(inDirectory: configuration.takeDirectory),
            fileExtension: configuration.takeExtension)
        outputPath = configuration.outputPath ?? CaptureSession.join(configuration.takeDirectory, path)
        format = try configuration.settings.resolveFormat(forPath: outputPath)
        try CaptureSession.checkWritable(outputPath, overwrite: configuration.settings.overwritesExistingFile)

        if let existingClient {
            client = existingClient
        } else {
            do {
                client = try JackClient(name: configuration.clientName, server: configuration.serverName)
            } catch { throw .jack(error) }
        }
        sources = try configuration.sources.resolve(physicalCapturePorts: client.physicalCapturePorts(),
                                                    outputPorts: client.audioOutputPorts())
        try configuration.settings.validate(format, channels: sources.count, serverSampleRate: client.sampleRate)
        if let duration = configuration.duration {
            durationFrames = try duration.takeLength(atSampleRate: client.sampleRate)
        }
        // Refused before any port is registered or the ring allocated.
        try configuration.start?.validate(sampleRate: client.sampleRate)
        _ = try MemoryBudget.current().ringByteCount(seconds: configuration.bufferSeconds, sampleRate: client.sampleRate,
                                                     period: client.bufferSize, channels: sources.count)
        do {
            let names = (1...sources.count).map { "in_\($0)" }
            engine = try CaptureEngine(client: client, portShortNames: names, bufferSeconds: configuration.bufferSeconds)
            try engine.activate()
            if configuration.connectsPorts {
                for (source, port) in zip(sources, engine.portNames) { try client.connect(source, to: port) }
            }
        } catch { throw .jack(error) }
    }

    /// Connects each channel's port to a new source instead of its current one (before the
    /// take starts). The count must match the channels (`.badChannelList` otherwise).
    public func reassign(sources newSources: [String]) throws(CaptureError) {
        guard newSources.count == sources.count else {
            throw .badChannelList(newSources.joined(separator: ","),
                                  reason: "\(newSources.count) sources for \(sources.count) channels: give one source per channel")
        }
        do {
            for (old, port) in zip(sources, engine.portNames) where configuration.connectsPorts {
                try? client.disconnect(old, from: port)
            }
            sources = newSources
            if configuration.connectsPorts {
                for (source, port) in zip(sources, engine.portNames) { try client.connect(source, to: port) }
            }
        } catch { throw .jack(error) }
    }

    /// Every event of the take so far, in order (`takeEvents()` gathers them).
    public var loggedEvents: [CaptureEvent] {
        eventLock.lock()
        defer { eventLock.unlock() }
        return eventLog
    }

    /// The file's sample rate: the settings', else the server's.
    public var fileSampleRate: Int { configuration.settings.sampleRate ?? client.sampleRate }

    /// True when recording can start: every input port has a connection (with `--no-connect`,
    /// once they have been patched by hand).
    public var isReady: Bool { engine.connectionCounts().allSatisfy { $0 > 0 } }

    /// The start frame the configuration asks for, resolved against JACK's clock now (nil: the
    /// first cycle after arming).
    private func resolveConfiguredStart() throws(CaptureError) -> UInt32? {
        let sampleRate = client.sampleRate
        var startFrame: UInt32?
        switch configuration.start {
        case nil:
            startFrame = nil
        case .afterReady(let delay)?:
            startFrame = FrameTime.advance(client.estimatedFrameTime, by: Int(try delay.frames(atSampleRate: sampleRate)))
        case .frame(let frame)?:
            guard FrameTime.distance(from: client.estimatedFrameTime, to: frame) > 0 else {
                throw .startInPast("@\(frame) (JACK's clock is at \(client.estimatedFrameTime))")
            }
            startFrame = frame
        case .wallClock(let time)?:
            let now = WallClockTime.nowMicrosecondsSinceEpoch()
            let target = time.microsecondsSinceEpoch(today: now)
            guard target > now else { throw .startInPast("\(time) (today)") }
            let jackTime = Int64(JackClient.currentTimeMicroseconds) + (target - now)
            startFrame = client.frameTime(atMicroseconds: UInt64(jackTime))
        }
        return startFrame
    }

    /// Creates the file and starts the disk writer, so that `start` begins at once. `start` does
    /// this itself when it has not been done.
    public func prepare() throws(CaptureError) {
        guard writer == nil else { return }
        // A file at another rate than the server's is resampled on the writer thread.
        let converter = fileSampleRate == client.sampleRate ? nil
            : try SampleRateConverter(channels: sources.count, inputRate: client.sampleRate,
                                      outputRate: fileSampleRate, quality: configuration.settings.converterQuality)
        let file = try SoundFile.create(path: outputPath, format: format, channels: sources.count,
                                        sampleRate: fileSampleRate, overwrite: configuration.settings.overwritesExistingFile)
        let take = engine.reserveTake()
        self.take = take
        let writer = DiskWriter(source: engine.writerSource(forTake: take), file: file, converter: converter)
        writer.beforeEachBlock = beforeEachBlockWritten
        self.writer = writer
        writer.start()
    }

    /// Creates the file, starts the disk writer and arms the engine at the configured start time.
    public func start() throws(CaptureError) {
        try start(atFrame: resolveConfiguredStart(), lengthFrames: durationFrames)
    }

    /// Arms the take to start at JACK frame time `startFrame` (nil: the next cycle) and, with a
    /// length, to stop after exactly that many recorded frames. Once per session
    /// (`.alreadyStarted` after); a length must be above zero (`.badDuration`).
    public func start(atFrame startFrame: UInt32?, lengthFrames: Int64?) throws(CaptureError) {
        guard !started else { throw .alreadyStarted }
        if let lengthFrames, lengthFrames <= 0 {
            throw .badDuration("\(lengthFrames)f", reason: "a take must be longer than zero")
        }
        if let startFrame, FrameTime.distance(from: client.estimatedFrameTime, to: startFrame) < 0 {
            throw .startInPast("frame \(startFrame)")
        }
        try prepare()
        scheduledStart = startFrame
        durationFrames = lengthFrames
        started = true
        engine.arm(take, start: startFrame.map(CaptureStart.atFrame) ?? .immediately, length: lengthFrames)
    }

    /// Pauses at JACK's current frame (or at `frame`): frames from there on are not recorded until
    /// `resume`. Returns the frame asked for; the `.paused` event says where it landed.
    @discardableResult
    public func pause(atFrame frame: UInt32? = nil) -> UInt32 {
        let at = frame ?? client.estimatedFrameTime
        engine.requestPause(atFrame: at)
        return at
    }

    /// Resumes a paused take at JACK's current frame (or at `frame`); the recording continues
    /// in the file with no gap. Returns the frame asked for; the `.resumed` event says where.
    @discardableResult
    public func resume(atFrame frame: UInt32? = nil) -> UInt32 {
        let at = frame ?? client.estimatedFrameTime
        engine.requestResume(atFrame: at)
        return at
    }

    /// The events since the last call, in order (one caller at a time); every event is also kept
    /// for the take report. The server's shutdown is reported once, when it is noticed.
    public func takeEvents() -> [CaptureEvent] {
        eventLock.lock()
        defer { eventLock.unlock() }
        var new = engine.takeEvents()
        if engine.status.serverGone && !reportedShutdown {
            reportedShutdown = true
            new.append(.serverShutDown(position: engine.status.position))
        }
        eventLog += new
        return new
    }

    /// Ends the take at the current frame, which it returns: every frame before it is written.
    @discardableResult
    public func stop() -> UInt32 {
        engine.requestStopNow()
    }

    public var status: CaptureStatus { engine.status }

    // MARK: Metering, as AVAudioRecorder has it (channels are 0-based)

    /// Whether levels are measured. Off, metering costs the process callback nothing but one
    /// atomic load a cycle; the take summary then has no peaks.
    public var isMeteringEnabled: Bool {
        get { engine.isMeteringEnabled }
        set { engine.isMeteringEnabled = newValue }
    }

    /// Takes in the levels measured since the last call.
    public func updateMeters() { engine.meters.update() }

    /// RMS level of a channel in dBFS (-160 for silence), as of the last `updateMeters()`.
    public func averagePower(forChannel channel: Int) -> Float { engine.meters.averagePower(forChannel: channel) }

    /// Peak level of a channel in dBFS (0 at full scale, above 0 beyond it).
    public func peakPower(forChannel channel: Int) -> Float { engine.meters.peakPower(forChannel: channel) }

    /// Everything the meter shows for a channel.
    public func meterReading(forChannel channel: Int) -> MeterReading { engine.meters.reading(forChannel: channel) }

    /// True when no more frames will come: the take reached its end, the server went away or the
    /// disk failed.
    public var isFinished: Bool {
        let status = engine.status
        return status.phase == .finished || status.phase == .missedStart || status.serverGone
            || (writer?.hasFailed ?? false)
    }

    /// Waits for the writer to write everything, closes the file and the client, and says how the
    /// take went. An empty take (cancelled, or its start missed) leaves no file behind. Called
    /// again, it gives the same report.
    public func finish() -> TakeReport {
        if let finalReport { return finalReport }
        var status = engine.status
        if status.phase == .recording || status.phase == .waiting || status.phase == .paused, !status.serverGone {
            engine.requestStopNow()
            while !isFinished { usleep(2_000) }
            status = engine.status
        }
        // Cycles read but not yet placed when the server went: placed now, so all that was
        // received is written.
        if status.serverGone { engine.flushAfterShutdown() }
        // A session never started has nothing coming: its writer stops at once.
        writer?.finish(abandoning: !started || (status.serverGone && status.phase != .finished))
        status = engine.status
        client.deactivate()

        let frames = writer?.framesWritten ?? 0
        var outcome: TakeReport.Outcome
        if let failure = writer?.failure {
            outcome = .writeFailed(failure)
        } else if let rate = engine.changedSampleRate {
            outcome = .sampleRateChanged(from: client.sampleRate, to: rate)
        } else if status.phase == .missedStart {
            outcome = .missedStart
        } else if status.serverGone && status.phase != .finished {
            outcome = .serverShutDown
        } else if status.startFrame == nil && frames == 0 {
            outcome = .cancelled
        } else if !(writer?.lostSpans.isEmpty ?? true) {
            outcome = .lostFrames
        } else {
            outcome = .complete
        }
        if (outcome == .cancelled || outcome == .missedStart), writer != nil {
            unlink(outputPath)
        }
        let channelLevels = isMeteringEnabled
            ? (0..<sources.count).map { ChannelLevels(highestPeak: engine.meters.highestPeak(forChannel: $0),
                                                      clipCount: engine.meters.clipCount(forChannel: $0)) }
            : nil
        // The log is read under its lock, after the last events are taken into it: a recorder's
        // event thread calls takeEvents() (which appends to it) while another thread finishes.
        _ = takeEvents()
        let events = loggedEvents
        let report = TakeReport(
            outcome: outcome, path: outputPath, format: format, sampleRate: client.sampleRate,
            sources: sources, portNames: engine.portNames,
            fileSampleRate: fileSampleRate, fileFrames: writer?.framesInFile ?? 0, frames: frames, startFrame: status.startFrame,
            lostSpans: writer?.lostSpans ?? [], overrunFrames: status.overrunFrames,
            skippedFrames: status.skippedFrames, xruns: status.xruns, channelLevels: channelLevels,
            events: events)
        finalReport = report
        return report
    }

    /// Fails early, before anything is connected, if the file exists or its folder is not writable.
    /// The file itself is created with O_EXCL at `start()`, so a file that appears meanwhile is
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

    static func join(_ directory: String, _ name: String) -> String {
        directory == "." ? name : (directory.hasSuffix("/") ? directory + name : directory + "/" + name)
    }
}
