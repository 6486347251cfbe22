import Atomics
import Foundation

/// One take, from its file to its report: the single owner of the take's state. Both jcap and
/// `Recorder` drive takes through it.
///
/// States, in order: `prepared` (file created, writer running) → `start` → `recording` ⇄
/// `paused` → `finished` (the file closed and the report made). The client's event pump hands
/// the take every engine event as it comes (`onEvent`), notices the end (the length reached, a
/// stop, the server gone, the disk failed, the sample rate changed) and finishes the take there;
/// `waitUntilFinished` and `finish` wait for that by waiting on a condition, not by polling.
public final class Take: @unchecked Sendable {
    // @unchecked: an NSCondition guards its vars (finishing is waited on; a Mutex cannot wait).
    public enum State: Equatable, Sendable {
        /// The file is created and its writer runs; nothing is armed.
        case prepared
        /// Armed and recording (or waiting for its start frame).
        case recording
        /// A pause was asked for; `resume` or `start` continues.
        case paused
        /// The file is closed and `report` says how the take went.
        case finished
    }

    /// The first file's path (the take's only file, unless it writes several).
    public var path: String { files[0].path }
    /// The take's files (its first segment's, when it is split), each with the channels it holds.
    package let files: [TakeFileSpec]
    public let format: FileFormat
    public let settings: RecordingSettings
    /// The file's sample rate: the settings', else the server's.
    public let fileSampleRate: Int
    /// The server's rate when the take was made: its frames are at this rate even after the
    /// server changes rate mid-take, which stops it (the report's rate and the change's "from").
    let serverSampleRate: Int
    /// The engine's number for the take.
    package let number: UInt32
    package let engine: CaptureEngine
    package let jack: JackClient
    /// The sources recorded, in channel order, as they were when the take was made.
    public let sources: [String]
    let writer: DiskWriter
    /// The wall-clock boundaries a split take's files change at (`SplitInterval`); nil when not split.
    let split: TakeSplitSchedule?
    private let pump: EventPump
    /// When `start()` starts and for how long: the client's configured start time and duration.
    private let configuredStart: StartTime?
    private let configuredDuration: CaptureDuration?
    private let alignsToCaptureLatency: Bool
    private let followsTransport: Bool
    private let triggerLevel: Double?
    private let triggerStop: CaptureDuration?
    private let preRoll: CaptureDuration?
    /// Where the ports the client connected begin to carry their sources' audio
    /// (`CaptureClient.inputsCarryFrom`).
    private let inputSettling: InputSettling
    /// The port the master's timecode comes from, when the take follows the master's clock.
    private let masterClockPort: String?

    private let lock = NSCondition()
    private var currentState: State = .prepared
    private var log: [CaptureEvent] = []
    private var delivered = 0
    private var consumed = 0
    private var finalReport: TakeReport?
    private var completing = false
    private var reportedShutdown = false
    private var xrunsBefore: Int64 = 0
    private var droppedEventsBefore = 0
    private var eventHandler: (@Sendable (CaptureEvent) -> Void)?
    private var finishHandler: (@Sendable (TakeReport) -> Void)?
    /// The JACK frame the take was armed to start at (nil: the first cycle after `start`).
    public private(set) var scheduledStart: UInt32?
    /// The wall-clock moment (microseconds since the Unix epoch) the take was armed to start at,
    /// for a time of day or a date (`StartTime.wallClock`); its frame is decided in the cycle it falls in.
    public private(set) var scheduledWallClockStart: Int64?
    /// With `alignsToCaptureLatency`: each channel's capture latency, read when the take was armed
    /// (for a channel no file holds, the largest of the recorded channels':
    /// `alignment(latencies:recordedChannels:)`).
    public private(set) var latencyAlignment: LatencyAlignment?
    private var waitsForTransport = false
    private var waitsForLevel = false
    private var waitsForCue = false
    /// Set by `resolve` for the `arm` that follows it (under no lock: one caller starts a take).
    private var scheduledWallClock: Int64?
    /// The take's length in frames, when it has one.
    public private(set) var durationFrames: Int64?
    /// Following the master's clock: its frame time less the server's when the take was armed
    /// (the take's start on the master's clock is its start frame plus this).
    public private(set) var masterOffset: UInt32?

    /// Disk space the take's files hold allocated ahead of their audio, in bytes (files written
    /// around the page cache allocate ahead of their writes, `DirectFile`): the take fills it as
    /// it goes, so a watch of the disk's free space counts it free. None once the files close.
    public var bytesAllocatedAhead: Int64 { allocatedAhead.load(ordering: .relaxed) }
    private let allocatedAhead = ManagedAtomic<Int64>(0)

    init(client: CaptureClient, layout: TakeLayout, format: FileFormat, settings: RecordingSettings,
         beforeEachBlockWritten: (@Sendable (Int64) -> Void)?) throws(CaptureError) {
        pump = client.pump
        configuredStart = client.configuration.start
        configuredDuration = client.configuration.duration
        alignsToCaptureLatency = client.configuration.alignsToCaptureLatency
        followsTransport = client.configuration.followsTransport
        triggerLevel = client.configuration.triggerLevel
        triggerStop = client.configuration.triggerStop
        preRoll = client.configuration.preRoll
        inputSettling = client.inputSettling
        masterClockPort = client.engine.timecodePort == nil ? nil : client.configuration.masterClockPort
        engine = client.engine
        jack = client.jack
        sources = client.sources
        files = layout.files
        self.format = format
        self.settings = settings
        let fileSampleRate = settings.sampleRate ?? client.sampleRate
        self.fileSampleRate = fileSampleRate
        let serverRate = client.sampleRate
        serverSampleRate = serverRate
        let allocatedAhead = allocatedAhead
        let outputs = try Take.openFiles(layout.files, format: format, settings: settings,
                                         fileSampleRate: fileSampleRate, serverSampleRate: serverRate,
                                         allocatedAhead: allocatedAhead)
        number = engine.reserveTake()
        let split = layout.split.map { TakeSplitSchedule(interval: $0) }
        self.split = split
        let openSegment: ((TakeSegmentStart) throws(CaptureError) -> [TakeOutput])?
        if let filesForSegment = layout.filesForSegment {
            openSegment = { (start) throws(CaptureError) -> [TakeOutput] in
                var start = start
                start.boundaryMicroseconds = start.splitBoundary.flatMap { split?.boundaryMicroseconds($0) }
                let specs = filesForSegment(start)
                // The format of later segments' files is the first's, by construction.
                for spec in specs { _ = try CaptureClient.checkOutput(spec.path, settings: settings) }
                return try Take.openFiles(specs, format: format, settings: settings,
                                          fileSampleRate: fileSampleRate, serverSampleRate: serverRate,
                                          allocatedAhead: allocatedAhead)
            }
        } else {
            openSegment = nil
        }
        writer = DiskWriter(source: engine.writerSource(forTake: number), outputs: outputs,
                            segmentLength: layout.segmentLength, openSegment: openSegment)
        writer.beforeEachBlock = beforeEachBlockWritten
        if let prepare = layout.beforeFirstWrite {
            writer.beforeFirstWrite = { (segment, outputs, frameTime) throws(CaptureError) in
                try prepare(segment, outputs.map(\.file), frameTime)
            }
        }
        let onSegmentFinished = layout.onSegmentFinished
        writer.onSegmentFinished = { segment in
            split?.segmentFinished(segment)
            onSegmentFinished?(segment)
        }
        writer.start()
    }

    /// Creates `specs`' files (a converter for each when the file's rate is not the server's).
    /// All or nothing: a failure removes the files already created.
    private static func openFiles(_ specs: [TakeFileSpec], format: FileFormat, settings: RecordingSettings,
                                  fileSampleRate: Int, serverSampleRate: Int,
                                  allocatedAhead: ManagedAtomic<Int64>) throws(CaptureError) -> [TakeOutput] {
        var outputs: [TakeOutput] = []
        // One queue for the files written together, so their blocks go to the disk in batches.
        let queue = settings.diskIO == .buffered ? nil
            : DirectWriteQueue(files: specs.count, allocatedAhead: allocatedAhead)
        do throws(CaptureError) {
            for spec in specs {
                // A file at another rate than the server's is resampled on the writer thread.
                let converter = fileSampleRate == serverSampleRate ? nil
                    : try SampleRateConverter(channels: spec.channels.count, inputRate: serverSampleRate,
                                              outputRate: fileSampleRate, quality: settings.converterQuality)
                let file = try SoundFile.create(path: spec.path, format: format, channels: spec.channels.count,
                                                sampleRate: fileSampleRate, overwrite: settings.overwritesExistingFile,
                                                io: settings.diskIO, queue: queue, files: specs.count)
                outputs.append(TakeOutput(file: file, channels: spec.channels, converter: converter))
            }
        } catch {
            for output in outputs {
                try? output.file.close()
                unlink(output.file.path)
            }
            throw error
        }
        return outputs
    }

    /// Its files written through the page cache though `RecordingSettings.diskIO` is `auto`, and
    /// why (`DiskIOFallback`); empty when every file is written around it, or `buffered` was asked.
    public var pageCacheFallbacks: [DiskIOFallback] { DiskIOFallback.of(writer.firstOutputs.map(\.file)) }

    public var state: State { lock.withLock { currentState } }

    /// Whether the take was armed (a take finished without being started was cancelled).
    public var wasStarted: Bool { lock.withLock { startedFlag } }
    private var startedFlag = false

    /// Called on the client's event pump thread with every event of the take, in order, from the
    /// start (events before the handler was set are delivered first). Keep it short.
    package func onEvent(_ handler: (@Sendable (CaptureEvent) -> Void)?) {
        lock.withLock { eventHandler = handler }
        pump.wake()
    }

    /// Called once, on the client's event pump thread (or the thread that finished a take never
    /// started), when the take has finished.
    package func onFinish(_ handler: (@Sendable (TakeReport) -> Void)?) {
        let report = lock.withLock { () -> TakeReport? in
            finishHandler = handler
            return finalReport
        }
        if let report { handler?(report) }
    }

    // MARK: Driving the take

    /// Starts as the client's configuration says: at its start time (`start`) for its duration.
    package func start() throws(CaptureError) {
        var length: Int64?
        if let duration = configuredDuration { length = try duration.takeLength(atSampleRate: jack.sampleRate) }
        if followsTransport {
            try arm(.onTransportRoll, lengthFrames: length)
            return
        }
        if let triggerLevel {
            try startOnLevel(decibels: triggerLevel, lengthFrames: length)
            return
        }
        try start(at: configuredStart, lengthFrames: length)
    }

    /// Starts on the frame the JACK transport next starts rolling and ends on the frame it stops
    /// (or after `lengthFrames`, or at `stop()`, whichever comes first). A roll that began before
    /// this call, or before the client watched the transport (`CaptureClient.watchTransport`),
    /// is not this take's: it waits for the next one.
    package func startOnTransportRoll(lengthFrames: Int64? = nil) throws(CaptureError) {
        try arm(.onTransportRoll, lengthFrames: lengthFrames)
    }

    /// Starts on the first sample of any channel at or above `decibels` dBFS (a pre-roll earlier,
    /// with the client's `preRoll`), and with the client's `triggerStop` ends after that
    /// long below it (or after `lengthFrames`, or at `stop()`).
    package func startOnLevel(decibels: Double, lengthFrames: Int64? = nil) throws(CaptureError) {
        guard decibels.isFinite, decibels <= 0, decibels >= -160 else {
            throw .triggerLevelOutOfRange(decibels)
        }
        try arm(.onLevel(LevelTrigger.amplitude(decibels: decibels)), lengthFrames: lengthFrames)
    }

    /// Arms the take to start when `cue()` is called, a pre-roll before it (the client's
    /// `preRoll`): the ring keeps that much of every channel meanwhile. A session's record
    /// key uses it.
    package func startOnCue(lengthFrames: Int64? = nil) throws(CaptureError) {
        try arm(.onCue, lengthFrames: lengthFrames)
    }

    /// Starts a take armed with `startOnCue` at JACK's current frame, which it returns (the take
    /// begins a pre-roll before it).
    @discardableResult
    package func cue() -> UInt32 {
        let frame = jack.estimatedFrameTime
        engine.cue(atFrame: frame)
        pump.wake()
        return frame
    }

    /// True while the take waits for the transport to roll.
    public var isWaitingForTransport: Bool {
        lock.withLock { waitsForTransport } && engine.status.startFrame == nil
    }

    /// True while the take waits for its trigger (the transport, or sound reaching the level).
    public var isWaitingForTrigger: Bool {
        lock.withLock { waitsForTransport || waitsForLevel || waitsForCue } && engine.status.startFrame == nil
    }

    /// Starts at `start` (nil: the next cycle) and, with a length, stops after exactly that many
    /// recorded frames: `start()` with a start and length of the caller's own.
    package func start(at start: StartTime?, lengthFrames: Int64?) throws(CaptureError) {
        try start?.validate(sampleRate: jack.sampleRate)
        // `+5s` counts from when recording is ready, and the inputs carrying audio is part of that.
        waitUntilInputsCarryAudio()
        let masterOffset = try readMasterOffset()
        if case .frame(let masterFrame)? = start, let masterOffset {
            // `@F` names the master's frame: it falls on this server's frame F - D.
            let frame = masterFrame &- masterOffset
            let now = jack.estimatedFrameTime
            guard FrameTime.distance(from: now, to: frame) > 0 else {
                throw .startInPast("@\(masterFrame) on the master's clock (it is at \(now &+ masterOffset))")
            }
            try arm(.atFrame(frame), lengthFrames: lengthFrames, masterOffset: masterOffset)
        } else {
            try arm(resolve(start), lengthFrames: lengthFrames, masterOffset: masterOffset)
        }
    }

    /// Following the master's clock: the offset from this server's frame time to the master's,
    /// as the timecode says it, waiting up to 3 s for two cycles in a row to agree (the slowest
    /// period JACK allows is 8,192 frames). Nil when the take does not follow the master.
    ///
    /// - Throws: `.noMasterTimecode` when the port carries none that decodes.
    private func readMasterOffset() throws(CaptureError) -> UInt32? {
        guard let masterClockPort else { return nil }
        for _ in 0..<600 {
            if let offset = engine.masterOffset { return offset }
            usleep(5_000)
        }
        throw .noMasterTimecode(port: masterClockPort)
    }

    /// Arms the take to start at JACK frame time `startFrame` (nil: the next cycle) and, with a
    /// length, to stop after exactly that many recorded frames (pauses excluded). Once
    /// (`.alreadyStarted` after); a length must be above zero (`.badDuration`).
    package func start(atFrame startFrame: UInt32?, lengthFrames: Int64?) throws(CaptureError) {
        try arm(startFrame.map(CaptureStart.atFrame) ?? .immediately, lengthFrames: lengthFrames)
    }

    /// Returns once the process callback has finished a cycle that ends at or after the frame the
    /// client's ports carry their sources' audio from (`CaptureClient.inputsCarryFrom`), so the
    /// next cycle begins no earlier. The cycles before hold what a driver left in a port a take
    /// ago, or a NetJACK2 link's silence: a take asked for at once starts after them, and one
    /// asked for a frame among them is refused (`arm`). Waits only just after connecting (a few
    /// periods; at most 2 s, should the cycles stop).
    private func waitUntilInputsCarryAudio() {
        guard let floor = inputSettling.frame else { return }
        let deadline = JackClient.currentTimeMicroseconds + 2_000_000
        while engine.lastCycleEnd.map({ FrameTime.distance(from: floor, to: $0) < 0 }) ?? true,
              JackClient.currentTimeMicroseconds < deadline {
            usleep(1_000)
        }
    }

    /// `masterOffset`: following the master's clock, the offset the start was resolved with
    /// (nil: read now).
    private func arm(_ start: CaptureStart, lengthFrames: Int64?, masterOffset given: UInt32? = nil) throws(CaptureError) {
        var masterOffset = given
        if masterOffset == nil { masterOffset = try readMasterOffset() }
        waitUntilInputsCarryAudio()
        if let lengthFrames, lengthFrames <= 0 {
            throw .badDuration("\(lengthFrames)f", reason: "a take must be longer than zero")
        }
        if case .atFrame(let startFrame) = start {
            if let carriesFrom = inputSettling.frame, FrameTime.distance(from: startFrame, to: carriesFrom) > 0 {
                throw .startInPast("frame \(startFrame) (the inputs carry their sources' audio from frame \(carriesFrom))")
            }
            if FrameTime.distance(from: jack.estimatedFrameTime, to: startFrame) < 0 { throw .startInPast("frame \(startFrame)") }
        }
        let alignment = alignsToCaptureLatency
            ? Take.alignment(latencies: CaptureClient.sourceCaptureLatencies(of: engine.ports, on: jack),
                             recordedChannels: Set(files.flatMap(\.channels))) : nil
        lock.lock()
        defer { lock.unlock() }
        do {
            guard currentState == .prepared, !completing else { throw CaptureError.alreadyStarted }
            latencyAlignment = alignment
            waitsForTransport = start == .onTransportRoll
            if case .onLevel = start { waitsForLevel = true } else { waitsForLevel = false }
            waitsForCue = start == .onCue
            if case .atFrame(let frame) = start { scheduledStart = frame }
            scheduledWallClockStart = scheduledWallClock
            durationFrames = lengthFrames
            self.masterOffset = masterOffset
            xrunsBefore = engine.status.xruns
            droppedEventsBefore = engine.droppedEventCount
            currentState = .recording
            startedFlag = true
        }
        let rate = jack.sampleRate
        let waitsForTrigger: Bool
        switch start {
        case .onTransportRoll, .onLevel, .onCue: waitsForTrigger = true
        default: waitsForTrigger = false
        }
        let preRollFrames = waitsForTrigger ? Int((try? preRoll?.frames(atSampleRate: rate)) ?? 0) : 0
        var quietFrames = 0
        if case .onLevel = start { quietFrames = Int((try? triggerStop?.frames(atSampleRate: rate)) ?? 0) }
        engine.arm(number, start: start, length: lengthFrames, alignment: alignment, preRollFrames: preRollFrames,
                   stopAfterQuietFrames: quietFrames, masterOffset: masterOffset)
        pump.wake()
    }

    /// The alignment to the recorded channels' capture latencies: a channel no file holds (a
    /// session's disarmed track) counts as having the largest of theirs, so it neither moves the
    /// take nor needs a delay line.
    static func alignment(latencies: [Int], recordedChannels: Set<Int>) -> LatencyAlignment {
        let largest = latencies.indices.filter(recordedChannels.contains).map { max(0, latencies[$0]) }.max() ?? 0
        return LatencyAlignment(latencies: latencies.indices.map { recordedChannels.contains($0) ? latencies[$0] : largest })
    }

    /// Pauses at JACK's current frame (or at `frame`): frames from there on are not recorded until
    /// `resume`. Returns the frame asked for (nil when not recording); the `.paused` event says
    /// where it landed.
    @discardableResult
    public func pause(atFrame frame: UInt32? = nil) -> UInt32? {
        lock.withLock { () -> UInt32? in
            guard currentState == .recording, !completing else { return nil }
            let at = frame ?? jack.estimatedFrameTime
            engine.requestPause(atFrame: at)
            currentState = .paused
            return at
        }
    }

    /// Resumes a paused take at JACK's current frame (or at `frame`); the recording continues in
    /// the file with no gap. Returns the frame asked for (nil when not paused).
    @discardableResult
    public func resume(atFrame frame: UInt32? = nil) -> UInt32? {
        lock.withLock { () -> UInt32? in
            guard currentState == .paused, !completing else { return nil }
            let at = frame ?? jack.estimatedFrameTime
            engine.requestResume(atFrame: at)
            currentState = .recording
            return at
        }
    }

    /// Ends the take before JACK's current frame, which it returns: every frame before it is
    /// written. The take finishes on the event pump a few cycles later (`waitUntilFinished`).
    @discardableResult
    public func stop() -> UInt32 {
        let frame = engine.requestStopNow()
        pump.wake()
        return frame
    }

    /// Stops the take if it is open, waits for every frame to be written and the file closed, and
    /// says how the take went. A take never started is cancelled: its empty file is removed.
    /// Called again, it gives the same report. Called on the event pump (from an event handler),
    /// it finishes the take there.
    @discardableResult
    package func finish() -> TakeReport {
        let (report, started) = lock.withLock { (finalReport, currentState != .prepared) }
        if let report { return report }
        if !started { return complete() }
        stop()
        if isOnPumpThread {
            // The pump cannot wait for itself: it watches the engine here until the take ends.
            while !hasEnded { pump.rest() }
            return complete()
        }
        return waitUntilFinished()!
    }

    /// Waits until the take has finished (or `timeout` seconds have passed: nil).
    @discardableResult
    public func waitUntilFinished(timeout: TimeInterval? = nil) -> TakeReport? {
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        lock.lock()
        defer { lock.unlock() }
        while finalReport == nil {
            if let deadline {
                guard lock.wait(until: deadline) else { return finalReport }
            } else {
                lock.wait()
            }
        }
        return finalReport
    }

    // MARK: State

    public var isFinished: Bool { lock.withLock { finalReport != nil } }
    public var report: TakeReport? { lock.withLock { finalReport } }

    /// The engine's counters for this take (xruns counted from its start).
    public var status: CaptureStatus {
        var status = engine.status
        status.xruns -= lock.withLock { xrunsBefore }
        return status
    }

    /// Every event of the take so far, in order.
    public var events: [CaptureEvent] { lock.withLock { log } }

    /// The events since the last call (one consumer: jcap's console).
    public func takeEvents() -> [CaptureEvent] {
        lock.withLock {
            let new = Array(log[consumed...])
            consumed = log.count
            return new
        }
    }

    var isOnPumpThread: Bool { pump.isCurrentThread }

    /// True when no more frames will come: the take reached its end, the server went away or the
    /// disk failed.
    private var hasEnded: Bool {
        let status = engine.status
        return status.phase == .finished || status.phase == .missedStart || status.serverGone || writer.hasFailed
    }

    // MARK: The event pump's side

    /// The pump hands over the engine's events; the take logs them, tells its handler, and
    /// finishes once the take has ended.
    func pump(_ engineEvents: [CaptureEvent]) {
        var new = engineEvents
        let (state, gone) = lock.withLock { (currentState, reportedShutdown) }
        guard state != .finished else { return }
        if state != .prepared && !gone && engine.status.serverGone {
            lock.withLock { reportedShutdown = true }
            new.append(.serverShutDown(position: engine.status.position))
        }
        lock.withLock { log += new }
        if state == .recording || state == .paused { advanceSplit() }
        if state == .recording, let target = lock.withLock({ scheduledWallClockStart }),
           engine.phase == .waiting || engine.phase == .idle {
            // Converted again each wake (every 10 ms) until the cycle it falls in decides its
            // frame, so NTP's slewing of the wall clock since `start` does not count.
            engine.updateClockStart(WallClockToJack.jackNanoseconds(atWallClockMicroseconds: target))
        }
        deliverEvents()
        if state != .prepared && state != .finished && lock.withLock({ !completing }) && hasEnded {
            complete()
        }
    }

    private func deliverEvents() {
        while true {
            let next = lock.withLock { () -> (CaptureEvent, (@Sendable (CaptureEvent) -> Void))? in
                guard let handler = eventHandler, delivered < log.count else { return nil }
                delivered += 1
                return (log[delivered - 1], handler)
            }
            guard let (event, handler) = next else { return }
            handler(event)
        }
    }

    /// Closes the take: the writer writes what is left, the files are closed (removed when nothing
    /// was recorded), the report made; waiters wake and the finish handler runs. Once.
    @discardableResult
    private func complete() -> TakeReport {
        let (proceed, started) = lock.withLock { () -> (Bool, Bool) in
            if completing { return (false, currentState != .prepared) }
            completing = true
            return (true, currentState != .prepared)
        }
        guard proceed else { return waitUntilFinished()! }
        var status = self.status
        // Cycles read but not yet placed when the server went: placed now, so all that was
        // received is written.
        if status.serverGone { engine.flushAfterShutdown() }
        // A take never started has nothing coming: its writer stops at once.
        writer.finish(abandoning: !started || (status.serverGone && status.phase != .finished))
        status = self.status
        if started { lock.withLock { log += engine.takeEvents(releasingHeld: true) } }
        deliverEvents()

        let frames = writer.framesWritten
        var outcome: TakeReport.Outcome
        if let failure = writer.failure {
            outcome = .writeFailed(failure)
        } else if let rate = engine.changedSampleRate {
            outcome = .sampleRateChanged(from: serverSampleRate, to: rate)
        } else if status.phase == .missedStart {
            outcome = .missedStart
        } else if status.serverGone && status.phase != .finished {
            outcome = .serverShutDown
        } else if !started || (status.startFrame == nil && frames == 0) {
            outcome = .cancelled
        } else if !writer.lostSpans.isEmpty || events.contains(where: {
            switch $0 { case .linkDropout, .masterClockJump: true; default: false }
        }) {
            outcome = .lostFrames
        } else if events.contains(where: { if case .placementUncertain = $0 { true } else { false } }) {
            outcome = .placementUncertain
        } else {
            outcome = .complete
        }
        // The server gone before the start frame leaves files with nothing in them, as a cancel does.
        let neverRecorded = outcome == .serverShutDown && status.startFrame == nil && frames == 0
        if outcome == .cancelled || outcome == .missedStart || neverRecorded { for file in files { unlink(file.path) } }
        let channelLevels = engine.isMeteringEnabled
            ? (0..<sources.count).map { ChannelLevels(highestPeak: engine.meters.highestPeak(forChannel: $0),
                                                      clipCount: engine.meters.clipCount(forChannel: $0)) }
            : nil
        var report = TakeReport(
            outcome: outcome, path: path, format: format, sampleRate: serverSampleRate,
            sources: sources, portNames: engine.portNames,
            fileSampleRate: fileSampleRate, fileFrames: writer.framesInFile, frames: frames,
            startFrame: started ? status.startFrame : nil,
            lostSpans: writer.lostSpans, overrunFrames: started ? status.overrunFrames : 0,
            skippedFrames: started ? status.skippedFrames : 0, xruns: started ? status.xruns : 0,
            channelLevels: channelLevels, events: events,
            segments: outcome == .cancelled || outcome == .missedStart ? [] : writer.segments,
            latencyAlignment: lock.withLock { latencyAlignment },
            masterStartFrame: started ? status.startFrame.flatMap { start in lock.withLock { masterOffset }.map { start &+ $0 } } : nil)
        if started { report.lostEvents = max(0, engine.droppedEventCount - lock.withLock { droppedEventsBefore }) }
        let handler = lock.withLock { () -> (@Sendable (TakeReport) -> Void)? in
            finalReport = report
            currentState = .finished
            lock.broadcast()
            return finishHandler
        }
        handler?(report)
        return report
    }

    /// Where a configured start time starts, resolved against JACK's clock now (`.immediately`:
    /// the first cycle after arming). A time of day or a date becomes a moment of JACK's clock,
    /// whose frame the process callback decides in the cycle it falls in (`ClockStart`).
    private func resolve(_ start: StartTime?) throws(CaptureError) -> CaptureStart {
        let sampleRate = jack.sampleRate
        scheduledWallClock = nil
        switch start {
        case nil:
            return .immediately
        case .afterReady(let delay)?:
            let frames = try delay.frames(atSampleRate: sampleRate)
            // `+0s` is now: the next cycle, not a frame that is passing as it is named. Later
            // ones count from the first frame a take can begin on: now, or the end of the cycle
            // the callback has already finished (the inputs' first cycle, just after connecting).
            guard frames > 0 else { return .immediately }
            var ready = jack.estimatedFrameTime
            if let cycleEnd = engine.lastCycleEnd, FrameTime.distance(from: ready, to: cycleEnd) > 0 { ready = cycleEnd }
            return .atFrame(FrameTime.advance(ready, by: Int(frames)))
        case .frame(let frame)?:
            guard FrameTime.distance(from: jack.estimatedFrameTime, to: frame) > 0 else {
                throw .startInPast("@\(frame) (JACK's clock is at \(jack.estimatedFrameTime))")
            }
            return .atFrame(frame)
        case let clockStart?:
            let now = WallClockTime.nowMicrosecondsSinceEpoch()
            guard let target = clockStart.wallClockMicroseconds(now: now) else { return .immediately }
            guard target > now else {
                if case .wallClock = clockStart { throw .startInPast("\(clockStart) (today)") }
                throw .startInPast("\(clockStart)")
            }
            scheduledWallClock = target
            return .atJackNanoseconds(WallClockToJack.jackNanoseconds(atWallClockMicroseconds: target))
        }
    }
}
