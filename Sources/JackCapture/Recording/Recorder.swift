import Foundation

/// Records JACK ports to a file the way iOS code records with AVAudioRecorder, on JACK's clock and
/// sample-accurately.
///
/// ```swift
/// let recorder = try Recorder(url: URL(fileURLWithPath: "take.wav"),
///                             settings: RecordingSettings(channelCount: 2))
/// try recorder.setChannelAssignments(["system:capture_1", "system:capture_2"])
/// try recorder.prepareToRecord()                 // file created, ports connected
/// try recorder.record(forDuration: 60)           // starts on the next cycle
/// recorder.pause() ... try recorder.record()     // the pause leaves no gap in the file
/// recorder.stop()                                // everything received is written
/// ```
///
/// Times (`record(atTime:)`, `deviceCurrentTime`) are seconds of JACK frame time: frame times
/// divided by the sample rate, counted without wrapping. The frame-exact variants take JACK frame
/// times and frame counts.
///
/// The delegate hears, in order and on the recorder's own event thread, every `CaptureEvent` of
/// the take (start, pauses and resumes on their exact frames, stop, overruns and xruns with their
/// positions, connections, period changes), interruptions beginning and ending, write errors, and
/// finally whether the take finished successfully. Each take is a `Take` of one `CaptureClient`,
/// which the recorder opens at the first `prepareToRecord()` and keeps: `record()` after `stop()`
/// records a new take into the same file, replacing it, as AVAudioRecorder does, on the same
/// JACK ports and connections.
public final class Recorder: @unchecked Sendable {
    // @unchecked: an NSRecursiveLock guards its vars; methods re-enter it, which a Mutex would deadlock.
    /// The file the recorder writes.
    public let url: URL
    /// The file's format, rate, channel count and encoder settings.
    public let settings: RecordingSettings
    /// The JACK side: client and server names, the ring's length.
    public let connection: RecorderConnection

    /// Told of events, interruptions, errors and the end of the take, on the recorder's event
    /// thread. Held weakly, as AVAudioRecorder holds its delegate.
    public var delegate: (any RecorderDelegate)? {
        get { locked { delegateReference } }
        set { locked { delegateReference = newValue } }
    }

    private weak var delegateReference: (any RecorderDelegate)?
    private let lock = NSRecursiveLock()
    /// The JACK client, opened at the first need (reading the clock, or preparing).
    private var jack: JackClient?
    /// The client's ports and connections, made at the first `prepareToRecord()`, kept for every
    /// take after.
    private var capture: CaptureClient?
    /// The take prepared, being recorded, or last finished: its state is the recorder's.
    private var take: Take?
    private var deleted = false
    private var assignedSources: [String]?
    private var meteringWanted = false
    private var clockExtension = FrameClockExtension()

    /// Checks the settings against the file's extension; nothing is created or connected yet.
    ///
    /// - Throws: `RecorderError.capture` with the reason a format, rate or channel count cannot be
    ///   written (naming what would work), or a buffer length that is not a finite number of
    ///   seconds above zero (`.badBufferLength`; one too long for this machine is refused by
    ///   `prepareToRecord()`, `.bufferTooLarge`, once the server's rate is known), or `.notAFileURL`.
    public init(url: URL, settings: RecordingSettings = RecordingSettings(),
                connection: RecorderConnection = RecorderConnection()) throws(RecorderError) {
        guard url.isFileURL else { throw .notAFileURL(url.absoluteString) }
        guard connection.bufferSeconds.isFinite, connection.bufferSeconds > 0 else {
            throw .capture(.badBufferLength(connection.bufferSeconds))
        }
        self.url = url
        self.settings = settings
        self.connection = connection
        do throws(CaptureError) {
            let format = try settings.resolveFormat(forPath: url.path)
            if let channels = settings.channelCount {
                guard channels >= 1 else { throw CaptureError.badChannelList("\(channels)", reason: "a recording needs at least one channel") }
                try Self.validate(settings, format: format, channels: channels)
            }
        } catch { throw .capture(error) }
    }

    deinit {
        if let take = locked({ take }), !take.isOnPumpThread { _ = take.finish() }
        locked { capture }?.close()
    }

    /// Where the recorder is: the state of its take, or before the first / after a delete.
    private enum Stage: Equatable {
        case initialized, prepared, recording, paused, stopped, deleted
    }

    private var stage: Stage {
        if deleted { return .deleted }
        guard let take else { return .initialized }
        switch take.state {
        case .prepared: return .prepared
        case .recording: return .recording
        case .paused: return .paused
        case .finished: return .stopped
        }
    }

    // MARK: Channels

    /// The JACK output port each channel records, in channel order: the ports recorded (once
    /// prepared), else the ports as assigned, else the server's first physical capture ports
    /// (empty when the server has too few, or cannot be reached).
    public var channelAssignments: [String] {
        locked {
            if let capture { return capture.sources }
            if let assignedSources { return assignedSources }
            guard let jack = try? openClient() else { return [] }
            return (try? CaptureClient.resolve(makeConfiguration().sources, on: jack)) ?? []
        }
    }

    /// Chooses the JACK output port each channel records (exact names or globs like
    /// `synth:out_*`), whenever no take is recording. With `settings.channelCount` set, the number
    /// of ports must match it; once prepared, it must match the ports the recorder has, and they
    /// are reconnected at once.
    public func setChannelAssignments(_ ports: [String]) throws(RecorderError) {
        try locked { () throws(RecorderError) in
            switch stage {
            case .recording, .paused: throw .channelAssignmentsWhileRecording
            case .deleted: throw .deleted
            case .initialized, .prepared, .stopped: break
            }
            guard !ports.isEmpty else { throw .channelAssignmentCount(expected: settings.channelCount ?? 1, assigned: 0) }
            if let expected = settings.channelCount, !ports.contains(where: PortPattern.isGlob), ports.count != expected {
                throw .channelAssignmentCount(expected: expected, assigned: ports.count)
            }
            if let capture {
                let resolved: [String]
                do throws(CaptureError) { resolved = try capture.resolve(.ports(ports)) } catch { throw .capture(error) }
                guard resolved.count == capture.channelCount else {
                    throw .channelAssignmentCount(expected: capture.channelCount, assigned: resolved.count)
                }
                do throws(CaptureError) { try capture.reassign(sources: resolved) } catch { throw .capture(error) }
            }
            assignedSources = ports
        }
    }

    // MARK: Preparing and recording

    /// Creates the file (never replacing one unless `settings.overwritesExistingFile`; after a
    /// take, the next replaces it), opens the JACK client, registers and connects one port per
    /// channel and allocates the ring the first time, so that `record()` starts on the next cycle.
    /// `record()` prepares when this has not been done.
    public func prepareToRecord() throws(RecorderError) {
        try locked { () throws(RecorderError) in
            switch stage {
            case .initialized, .stopped: break
            case .prepared, .recording, .paused: return
            case .deleted: throw .deleted
            }
            let client = try openClient()
            do throws(CaptureError) {
                if capture == nil {
                    // The client resolves globs and checks the ring fits before any port exists.
                    let capture = try CaptureClient(configuration: makeConfiguration(), client: client)
                    capture.isMeteringEnabled = meteringWanted
                    self.capture = capture
                }
                var takeSettings = settings
                // A take after the first records into the same file again.
                if take != nil { takeSettings.overwritesExistingFile = true }
                let take = try capture!.makeTake(path: url.path, settings: takeSettings)
                take.onEvent(eventDelivery())
                take.onFinish { [weak self] report in self?.deliverFinish(report) }
                self.take = take
            } catch { throw .capture(error) }
        }
    }

    /// Starts recording on the next cycle, or resumes a paused recording there (the file
    /// continues with no gap). Prepares first if needed; after `stop()`, records a new take.
    public func record() throws(RecorderError) {
        try locked { () throws(RecorderError) in
            if stage == .paused {
                take?.resume()
                return
            }
            if stage == .recording { return }
            try begin(atFrame: nil, lengthFrames: nil)
        }
    }

    /// Starts recording at `time` on the `deviceCurrentTime` clock, exactly on the frame it
    /// names. A time already passed is an error (`.startInPast`); so is one that is not finite,
    /// or further ahead than JACK's 32-bit frame clock can schedule (`.badTime`: 12:25:39 at
    /// 48 kHz).
    public func record(atTime time: TimeInterval) throws(RecorderError) {
        try record(atTime: time, lengthFrames: nil)
    }

    /// Records for `duration` seconds (rounded to the nearest frame), starting on the next cycle.
    /// A duration that is not finite, or rounds to no frame, is an error (`.badDuration`).
    public func record(forDuration duration: TimeInterval) throws(RecorderError) {
        try record(atFrame: nil, forFrames: try frames(inSeconds: duration))
    }

    /// Records for `duration` seconds from `time` on the `deviceCurrentTime` clock.
    public func record(atTime time: TimeInterval, forDuration duration: TimeInterval) throws(RecorderError) {
        try Self.checkFinite(time)
        try record(atTime: time, lengthFrames: try frames(inSeconds: duration))
    }

    /// Frame-exact: records from JACK frame time `startFrame` (nil: the next cycle) for exactly
    /// `frameCount` frames (nil: until stopped). Pauses do not count towards the length.
    public func record(atFrame startFrame: UInt32?, forFrames frameCount: Int64? = nil) throws(RecorderError) {
        try locked { () throws(RecorderError) in
            switch stage {
            case .initialized, .prepared, .stopped: break
            case .deleted: throw .deleted
            case .recording, .paused: throw .alreadyRecording
            }
            if let frameCount, frameCount <= 0 { throw .capture(.badDuration("\(frameCount) frames", reason: "a take must be longer than zero")) }
            try begin(atFrame: startFrame, lengthFrames: frameCount)
        }
    }

    /// Pauses at JACK's current frame: frames from there on are not recorded until `record()`.
    /// The `.paused` event gives the exact frame. Does nothing unless recording.
    public func pause() {
        locked { _ = take?.pause() }
    }

    /// Frame-exact pause: JACK frame time `frame` is the first frame not recorded.
    public func pause(atFrame frame: UInt32) {
        locked { _ = take?.pause(atFrame: frame) }
    }

    /// Frame-exact resume: JACK frame time `frame` follows the last frame recorded.
    public func resume(atFrame frame: UInt32) {
        locked { _ = take?.resume(atFrame: frame) }
    }

    /// Stops at JACK's current frame, writes every frame received before it and closes the file.
    /// The delegate then hears `recorderDidFinishRecording`, once. Stopping a recorder that was
    /// only prepared removes its empty file. Safe from any thread, the delegate's callbacks
    /// included: called on the recorder's event thread it returns at once, and the finish is
    /// delivered when the callback returns; elsewhere it returns once the finish is delivered.
    public func stop() {
        guard let take = locked({ stage == .deleted ? nil : take }), !take.isFinished else { return }
        if take.isOnPumpThread {
            take.stop()
            return
        }
        take.finish()
        locked { finishDelivered }.wait()
        locked { finishDelivered }.signal()
    }

    /// Removes the file. Only once stopped (or before recording): deleting a file being
    /// recorded is an error.
    public func deleteRecording() throws(RecorderError) {
        try locked { () throws(RecorderError) in
            switch stage {
            case .recording, .paused: throw .stillRecording
            case .deleted: throw .deleted
            case .prepared:
                // Finishing an unstarted take removes its empty file itself.
                take?.finish()
                if access(url.path, F_OK) != 0 {
                    deleted = true
                    return
                }
            case .initialized, .stopped: break
            }
            guard unlink(url.path) == 0 else {
                let code = errno
                if code == ENOENT { throw .nothingToDelete(url.path) }
                throw .deleteFailed(url.path, reason: String(cString: strerror(code)))
            }
            deleted = true
        }
    }

    // MARK: State

    /// True while recording or waiting for a scheduled start; false when paused or stopped.
    public var isRecording: Bool {
        locked { stage == .recording }
    }

    /// Seconds recorded so far (pauses excluded); 0 when not recording or paused.
    public var currentTime: TimeInterval {
        locked {
            guard stage == .recording || stage == .paused, let take else { return 0 }
            return Double(take.status.position) / Double(take.jack.sampleRate)
        }
    }

    /// JACK's frame clock in seconds, counted without wrapping: it goes on when the recorder is
    /// paused or stopped, and is the clock `record(atTime:)` takes. Reading it connects to the
    /// JACK server if the recorder has not yet; without a server it is 0.
    public var deviceCurrentTime: TimeInterval {
        locked {
            guard let jack = try? openClient() else { return 0 }
            let frames = clockExtension.extend(jack.estimatedFrameTime)
            return Double(frames) / Double(jack.sampleRate)
        }
    }

    /// How the last take ended, once it has.
    public var finalReport: TakeReport? { locked { take?.report } }

    /// The names of the recorder's own input ports (`jcap:in_1` ...), once prepared: where
    /// sources can be patched by hand.
    public var portNames: [String] { locked { capture?.portNames ?? [] } }

    // MARK: Metering

    /// Whether levels are measured (off by default, as in AVAudioRecorder).
    public var isMeteringEnabled: Bool {
        get { locked { meteringWanted } }
        set {
            locked {
                meteringWanted = newValue
                capture?.isMeteringEnabled = newValue
            }
        }
    }

    /// Takes in the levels measured since the last call.
    public func updateMeters() { locked { capture }?.meters.update() }

    /// RMS level of a channel (0-based) in dBFS, -160 to 0, as of the last `updateMeters()`;
    /// -160 for a channel the recorder does not have.
    public func averagePower(forChannel channel: Int) -> Float {
        locked { capture }?.meters.averagePower(forChannel: channel) ?? ChannelMeters.floor
    }

    /// Peak level of a channel (0-based) in dBFS, -160 to 0 (above 0 past full scale).
    public func peakPower(forChannel channel: Int) -> Float {
        locked { capture }?.meters.peakPower(forChannel: channel) ?? ChannelMeters.floor
    }

    // MARK: Internals

    private func record(atTime time: TimeInterval, lengthFrames: Int64?) throws(RecorderError) {
        let text = "\(time) s"
        try Self.checkFinite(time)
        let client = try locked { () throws(RecorderError) in try openClient() }
        let now = deviceCurrentTime
        guard time > now else {
            throw .capture(.startInPast(String(format: "%.6f s (deviceCurrentTime is %.6f s)", time, now)))
        }
        let rate = client.sampleRate
        // At most 2^31 - 1 frames ahead: the furthest a start can be on JACK's 32-bit clock.
        do throws(CaptureError) { _ = try FrameTime.lead(seconds: time - now, sampleRate: rate, for: text) } catch {
            throw .capture(error)
        }
        // Within 2^31 frames of the clock, so within Int64.
        let frame = UInt32(truncatingIfNeeded: Int64((time * Double(rate)).rounded()))
        try record(atFrame: frame, forFrames: lengthFrames)
    }

    private static func checkFinite(_ time: TimeInterval) throws(RecorderError) {
        guard time.isFinite else {
            throw .capture(.badTime("\(time) s", reason: "a time is a finite number of seconds on the deviceCurrentTime clock"))
        }
    }

    private func frames(inSeconds seconds: TimeInterval) throws(RecorderError) -> Int64 {
        guard seconds.isFinite, seconds > 0 else {
            throw .capture(.badDuration("\(seconds) s", reason: "a take is a finite number of seconds above zero"))
        }
        let client = try locked { () throws(RecorderError) in try openClient() }
        let frames = (seconds * Double(client.sampleRate)).rounded()
        guard frames > 0 else {
            throw .capture(.badDuration("\(seconds) s", reason: "a take must be longer than zero (it rounds to no frame)"))
        }
        guard frames < 0x1p63 else {
            throw .capture(.badDuration("\(seconds) s", reason: "too long: more than \(Int64.max) frames at \(client.sampleRate) Hz"))
        }
        return Int64(frames)
    }

    /// Prepares if needed (a new take after one has finished) and arms it. Called with the lock
    /// held.
    private func begin(atFrame startFrame: UInt32?, lengthFrames: Int64?) throws(RecorderError) {
        try prepareToRecord()
        guard let take else { throw .deleted }
        finishDelivered = DispatchSemaphore(value: 0)
        do { try take.start(atFrame: startFrame, lengthFrames: lengthFrames) } catch { throw .capture(error) }
    }

    /// Signalled once the delegate has heard the current take's finish.
    private var finishDelivered = DispatchSemaphore(value: 0)

    /// The JACK client: opened once, at the first need (reading the clock, or preparing).
    private func openClient() throws(RecorderError) -> JackClient {
        if let jack { return jack }
        do {
            let jack = try JackClient(name: connection.clientName, server: connection.serverName)
            self.jack = jack
            return jack
        } catch { throw .capture(.jack(error)) }
    }

    /// The take's events for the delegate, with interruptions derived from them, on the client's
    /// event thread.
    private func eventDelivery() -> @Sendable (CaptureEvent) -> Void {
        let interrupted = InterruptedChannels()
        return { [weak self] event in
            guard let self else { return }
            let delegate = self.delegate
            delegate?.recorder(self, didReceive: event)
            self.locked { self.clockExtension.keepCurrent(with: self.jack?.estimatedFrameTime) }
            switch event {
            case .portDisconnected(let channel, let source, _, _, _):
                if interrupted.insert(channel) {
                    delegate?.recorderBeginInterruption(self, .sourceDisconnected(channel: channel, source: source))
                }
            case .portConnected(let channel, let source, _, _, _):
                if interrupted.remove(channel) {
                    delegate?.recorderEndInterruption(self, .sourceDisconnected(channel: channel, source: source))
                }
            case .serverShutDown:
                delegate?.recorderBeginInterruption(self, .serverShutDown)
            case .sampleRateChanged(let from, let to, _):
                delegate?.recorderBeginInterruption(self, .sampleRateChanged(from: from, to: to))
            default: break
            }
        }
    }

    /// Tells the delegate how a take ended (never for a take that was only prepared).
    private func deliverFinish(_ report: TakeReport) {
        let (semaphore, started) = locked { (finishDelivered, take?.wasStarted ?? false) }
        if started {
            let delegate = self.delegate
            if case .writeFailed(let error) = report.outcome {
                delegate?.recorderEncodeErrorDidOccur(self, error: error)
            }
            delegate?.recorderDidFinishRecording(self, successfully: report.outcome == .complete)
        }
        semaphore.signal()
    }

    /// Runs JACK's sample-rate notification handler as JACK would on a rate change (tests; no
    /// backend here can change its rate while running).
    func simulateSampleRateChange(to rate: Int) {
        locked { capture }?.engine.simulateSampleRateNotification(rate)
    }
}

/// Channels whose source is disconnected, as the event thread tracks them.
private final class InterruptedChannels: Sendable {
    private let channels = Locked(Set<Int>())
    func insert(_ channel: Int) -> Bool { channels.withLock { $0.insert(channel).inserted } }
    func remove(_ channel: Int) -> Bool { channels.withLock { $0.remove(channel) != nil } }
}

extension Recorder {
    /// Runs `body` holding the recorder's lock, passing its typed error through.
    fileprivate func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The capture configuration for this recorder's settings and connection.
    fileprivate func makeConfiguration() -> CaptureConfiguration {
        var configuration = CaptureConfiguration()
        configuration.clientName = connection.clientName
        configuration.serverName = connection.serverName
        configuration.bufferSeconds = connection.bufferSeconds
        configuration.outputPath = url.path
        configuration.settings = settings
        // The assigned ports, else the server's first physical capture ports.
        configuration.sources = assignedSources.map(SourceSelection.ports)
            ?? .channels(Array(1...(settings.channelCount ?? 2)))
        return configuration
    }

    /// Checks what can be checked before the server is known: the channel count, and the file's
    /// sample rate when the settings name one (the server's is checked when preparing).
    fileprivate static func validate(_ settings: RecordingSettings, format: FileFormat, channels: Int) throws(CaptureError) {
        try format.validate(channels: channels)
        if let rate = settings.sampleRate { try format.validate(sampleRate: rate) }
    }
}
