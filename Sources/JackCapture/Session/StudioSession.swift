import Foundation

/// Why a studio session could not open, or a take could not be recorded.
public enum StudioSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session file, or what it names, is wrong (a channel the server lacks, a port that
    /// matches nothing): located at its line and key.
    case sessionFile(SessionFileError)
    /// The server runs at another rate than the session's `sample_rate`.
    case sampleRateMismatch(SessionFileError)
    /// The server, the ports, the files or the take.
    case capture(CaptureError)
    /// The take log (or the session folder's lock).
    case takeLog(TakeLogError)
    /// A take is being recorded; it must finish first.
    case takeInProgress
    /// Several takes back to back need a length for each take.
    case takesNeedLength
    /// A number of takes below 1.
    case badTakeCount(Int)
    /// A split take with a start that waits (the transport, a level, a cue): not supported.
    case splitNeedsScheduledStart
    /// A split take with several takes back to back: each piece of a split is a take already.
    case splitWithSeveralTakes(Int)
    /// An overdub of take `take` in a session that does not align to capture latency: the new
    /// take would not line up with the one played.
    case overdubNeedsLatencyAlignment(take: Int)
    /// Playing a take back (an overdub): a file, the player's client or its outputs.
    case playback(PlayerError)
    /// The take to overdub cannot be played in line with a new take (discarded or deleted, or at
    /// another sample rate than the server's).
    case overdub(String)
    /// `setArmed` named a track the session does not have; `known` are its tracks, in file order.
    case unknownTrack(String, known: [String])
    /// Every track is disarmed: a take would record nothing.
    case noArmedTrack

    public var description: String {
        switch self {
        case .sessionFile(let error), .sampleRateMismatch(let error): error.description
        case .capture(let error): error.description
        case .takeLog(let error): error.description
        case .takeInProgress: "a take is being recorded; stop it first"
        case .takesNeedLength: "several takes back to back need a length for each"
        case .badTakeCount(let count): "bad number of takes \(count): use 1 or more"
        case .splitNeedsScheduledStart: "a split take cannot wait for the transport, a trigger level or a cue (not supported together)"
        case .splitWithSeveralTakes(let count): "a split take is 1 take, not \(count) (each piece of a split is a take)"
        case .overdubNeedsLatencyAlignment(let take):
            "overdub of take \(take): the session must align to capture latency (align_latency = true)"
        case .playback(let error): error.description
        case .overdub(let reason): "overdub: \(reason)"
        case .unknownTrack(let name, let known):
            "no track '\(name)' in the session (its tracks: \(known.map { "'\($0)'" }.joined(separator: ", ")))"
        case .noArmedTrack: "no track is armed: arm at least one before recording"
        }
    }
}

/// A studio session, open: its JACK client named after the session, one input port per track
/// (named after the track, with JACK metadata pretty names and order), connected to the tracks'
/// sources and metered, recording take after take into the session folder, one file per armed
/// track (or group), each take numbered, timestamped (BWF, iXML) and logged (`takes.jsonl`).
///
/// Tracks are armed and disarmed between takes (`setArmed`), as on a field recorder: every track
/// has its port and goes through the ring, so arming one needs no new port or connection; a take
/// writes (files, log, metadata, latency alignment) only the tracks armed when it was made. The
/// file's `arm = false` only disarms a track at the start.
///
/// Opening it takes the session folder's lock, so two processes never record into one folder,
/// and logs takes an earlier process left unfinished (killed) as interrupted with the frames
/// their files really hold. The client and its connections stay up between takes.
public final class StudioSession: Sendable {
    public var definition: SessionDefinition { context.definition }
    package var client: CaptureClient { context.client }
    public var log: TakeLog { context.log }
    private let context: StudioSessionContext
    /// Takes found unfinished when the session opened, now logged as interrupted.
    public let recoveredTakes: [TakeLogEntry]
    /// Every track's source, in track (and channel) order.
    public var sources: [String] { client.sources }
    /// Free bytes on the session folder's file system below which a take is stopped cleanly: what
    /// the ring can still hold when the disk is asked to take it, plus room for headers.
    public var diskReserveBytes: Int64 {
        get { context.diskReserveBytes }
        set { context.diskReserveBytes = newValue }
    }

    private let folderLock: SessionLock
    /// Held by `record` while it makes a take and by `setArmed`, so a take never starts with a
    /// set of armed tracks other than the one its files were made for. An `NSLock`, not `Locked`:
    /// it is held across `record`'s throwing work, which a `Mutex` closure cannot span simply.
    private let recordLock = NSLock()
    private let state = Locked(State())

    private struct State {
        var current: StudioTake?
        var lastTakeNumber: Int?
        /// Whether each track (in `definition.tracks` order) is armed now.
        var armed: [Bool] = []
    }

    /// Opens the session on the server (`serverName`, or the default): checks the server's rate
    /// and every track's source before anything is created, then creates the folder, takes its
    /// lock, recovers interrupted takes, and registers and connects the ports.
    public init(definition: SessionDefinition, serverName: String? = nil) throws(StudioSessionError) {
        let jack: JackClient
        do { jack = try JackClient(name: definition.name, server: serverName) } catch { throw .capture(.jack(error)) }
        if let rate = definition.sampleRate, rate != jack.sampleRate {
            throw .sampleRateMismatch(definition.error(
                sessionKey: "sample_rate",
                "the session is at \(rate) Hz but the JACK server runs at \(jack.sampleRate) Hz"))
        }
        let sources = try StudioSession.resolveSources(of: definition, on: jack)

        do {
            try FileManager.default.createDirectory(atPath: definition.folder, withIntermediateDirectories: true)
        } catch {
            throw .capture(.outputUnwritable(definition.folder, reason: "cannot create the session folder"))
        }
        let log = TakeLog(folder: definition.folder)
        do {
            folderLock = try SessionLock(folder: definition.folder)
            recoveredTakes = try log.recoverInterruptedTakes()
        } catch { throw .takeLog(error) }

        var configuration = CaptureConfiguration()
        configuration.clientName = definition.name
        configuration.serverName = serverName
        configuration.sources = .ports(sources)
        configuration.portNames = definition.tracks.map(\.portName)
        configuration.settings = definition.settings
        configuration.bufferSeconds = definition.bufferSeconds
        configuration.alignsToCaptureLatency = definition.alignsToCaptureLatency
        configuration.preRoll = definition.preRoll
        configuration.triggerStop = definition.triggerStop
        let client: CaptureClient
        do { client = try CaptureClient(configuration: configuration, client: jack) } catch {
            folderLock.release()
            throw .capture(error)
        }
        client.isMeteringEnabled = true
        for (order, (track, port)) in zip(definition.tracks, client.engine.ports).enumerated() {
            // Shown by qjackctl and `jack_property -l`; a server without metadata support just
            // shows the port names.
            try? jack.setPrettyName(track.name, ofPort: port)
            try? jack.setOrder(order + 1, ofPort: port)
        }
        // Every track, armed or not: the reserve holds for whatever is armed later.
        let reserve = Int64(definition.bufferSeconds * Double(StudioSession.bytesPerSecond(
            definition, tracks: definition.tracks.count, sampleRate: definition.settings.sampleRate ?? jack.sampleRate)))
            + (1 << 20)
        context = StudioSessionContext(definition: definition, client: client, log: log, diskReserveBytes: reserve)
        state.withLock { $0.armed = definition.tracks.map(\.armed) }
    }

    deinit { close() }

    /// Finishes a take still recording, then closes the client and lets go of the folder.
    public func close() {
        if let take = state.withLock({ $0.current }) { _ = take.finish() }
        // The ports' metadata goes first, while this client still reads its notifications:
        // jack2 1.9.21 closing a client removes each port's properties and notifies every client,
        // this one included, whose notification thread no longer reads then; with more than a few
        // dozen tracks the socket fills and jack_client_close never returns (measured: 64 tracks).
        client.removePortMetadata()
        client.close()
        folderLock.release()
    }

    /// Each track's source port, armed or not (a track armed later is already connected): a
    /// channel number is the server's physical capture port of that number; a name or glob must
    /// match exactly one output port.
    static func resolveSources(of definition: SessionDefinition, on jack: JackClient) throws(StudioSessionError) -> [String] {
        let physical = jack.physicalCapturePorts()
        let outputs = jack.audioOutputPorts()
        var sources: [String] = []
        for (index, track) in definition.tracks.enumerated() {
            switch track.source {
            case .channel(let channel):
                guard channel >= 1, channel <= physical.count else {
                    throw .sessionFile(definition.error(
                        track: index, key: "source",
                        "capture channel \(channel) does not exist: the server has \(physical.count) capture channel\(physical.count == 1 ? "" : "s")"))
                }
                sources.append(physical[channel - 1])
            case .port(let pattern):
                let matches = PortPattern.isGlob(pattern) ? PortPattern.matches(pattern, in: outputs)
                    : outputs.filter { $0 == pattern }
                guard matches.count == 1 else {
                    let found = matches.isEmpty ? "no JACK output port matches it (jcap ports lists them)"
                        : "it matches \(matches.count) ports (\(matches.prefix(4).joined(separator: ", "))\(matches.count > 4 ? ", ..." : "")); a track records one"
                    throw .sessionFile(definition.error(track: index, key: "source", "'\(pattern)': \(found)"))
                }
                sources.append(matches[0])
            }
        }
        return sources
    }

    // MARK: Arming

    /// Every track's name, in file order (also the ports' and channels' order).
    public var trackNames: [String] { definition.tracks.map(\.name) }

    /// The tracks armed now, in track order: the next take records these.
    public var armedTrackNames: [String] {
        let armed = state.withLock { $0.armed }
        return zip(definition.tracks, armed).filter(\.1).map(\.0.name)
    }

    /// Whether the track named `track` is armed now.
    public func isArmed(track: String) throws(StudioSessionError) -> Bool {
        let index = try trackIndex(named: track)
        return state.withLock { $0.armed[index] }
    }

    /// Arms or disarms the track named `track` from the next take on (its port is always there
    /// and connected, so nothing changes on the server).
    ///
    /// - Throws: `.takeInProgress` while a take is recording, paused or waiting for its start;
    ///   `.unknownTrack` for a name the session does not have; `.sessionFile` (at the track's
    ///   `arm`) when arming it would give its file more channels than the format holds.
    public func setArmed(_ armed: Bool, track: String) throws(StudioSessionError) {
        let index = try trackIndex(named: track)
        // Not while `record` makes a take: it reads the armed tracks once, at its start.
        recordLock.lock()
        defer { recordLock.unlock() }
        // Only `record` (which waits for `recordLock`) and this change `current` and `armed`.
        if let running = currentTake, !running.take.isFinished { throw .takeInProgress }
        var next = state.withLock { $0.armed }
        next[index] = armed
        if armed {
            for file in Self.takeFiles(of: definition, armed: next) {
                do throws(CaptureError) { try definition.format.validate(channels: file.channelCount) } catch {
                    let what = file.label.map { definition.tracks[index].group == $0 ? "group '\($0)'" : "its file" }
                        ?? "the interleaved file"
                    throw .sessionFile(definition.error(
                        track: index, key: "arm",
                        "cannot arm: \(what) would have \(file.channelCount) channels: \(error.description)"))
                }
            }
        }
        state.withLock { $0.armed = next }
    }

    private func trackIndex(named name: String) throws(StudioSessionError) -> Int {
        guard let index = definition.tracks.firstIndex(where: { $0.name == name }) else {
            throw .unknownTrack(name, known: trackNames)
        }
        return index
    }

    /// The files of a take of the `armed` tracks, laid out as the session's layout says; their
    /// track indices are into `definition.tracks`, which are also the client's channels.
    static func takeFiles(of definition: SessionDefinition, armed: [Bool]) -> [SessionTakeFile] {
        let armedIndices = armed.indices.filter { armed[$0] }
        return SessionFileReader.takeFiles(armedIndices.map { definition.tracks[$0] }, layout: definition.layout)
            .map { file in SessionTakeFile(label: file.label, trackIndices: file.trackIndices.map { armedIndices[$0] }) }
    }

    // MARK: Marks and notes

    /// Marks take `number` (circled, false start, no good); nil clears its mark. Any take in the
    /// log, also one being recorded.
    ///
    /// - Throws: `.takeLog(.noSuchTake)` for a take the log does not have.
    public func mark(take number: Int, as mark: TakeMark?) throws(StudioSessionError) {
        do { try log.setMark(take: number, mark) } catch { throw .takeLog(error) }
    }

    /// Sets take `number`'s note; empty (or only white space) text removes it.
    ///
    /// - Throws: `.takeLog(.noSuchTake)` for a take the log does not have.
    public func setNote(take number: Int, _ text: String) throws(StudioSessionError) {
        do { try log.setNote(take: number, text) } catch { throw .takeLog(error) }
    }

    // MARK: Takes

    /// The take being recorded, if any.
    public var currentTake: StudioTake? { state.withLock { $0.current } }

    /// Records the next take (or `count` takes back to back, each `length` long, the next
    /// starting on the frame after the last ended): at `start` (nil: the next cycle), for
    /// `length` (nil: until stopped). Its number is one past every number the log or the folder
    /// has used, so nothing is ever overwritten.
    ///
    /// With `onTransportRoll`, the take starts on the frame the JACK transport next starts rolling
    /// and ends on the frame it stops (`start` must be nil); the session's client watches the
    /// transport from then on.
    ///
    /// With `split`, a new take begins on each wall-clock boundary of that interval
    /// (`SplitInterval`), on the first frame at or after it, with files of its own named for its
    /// start (`take-NNN-20261122-143000-<track>.wav`): the takes together are the continuous
    /// recording, not a frame lost or repeated, each logged as a take.
    ///
    /// With `onLevel`, the take starts on the first sample at or above that level (dBFS); with
    /// `onCue`, when `Take.cue()` is called; both a pre-roll earlier (`definition.preRoll`).
    ///
    /// `overdub` is written to the take's log entry (`SessionOverdub` records overdubs).
    public func record(at start: StartTime? = nil, length: CaptureDuration? = nil,
                       takes count: Int = 1, split: SplitInterval? = nil, onTransportRoll: Bool = false,
                       onLevel decibels: Double? = nil, onCue: Bool = false,
                       overdub: TakeLogOverdub? = nil) throws(StudioSessionError) -> StudioTake {
        guard count >= 1 else { throw .badTakeCount(count) }
        if split != nil && (onTransportRoll || decibels != nil || onCue) { throw .splitNeedsScheduledStart }
        if split != nil && count > 1 { throw .splitWithSeveralTakes(count) }
        recordLock.lock()
        defer { recordLock.unlock() }
        if let running = currentTake, !running.take.isFinished { throw .takeInProgress }
        let armedNow = state.withLock { $0.armed }
        let sessionFiles = Self.takeFiles(of: definition, armed: armedNow)
        if sessionFiles.isEmpty { throw .noArmedTrack }
        let lengthFrames: Int64?
        do { lengthFrames = try length?.takeLength(atSampleRate: client.sampleRate) } catch { throw .capture(error) }
        if count > 1 && lengthFrames == nil { throw .takesNeedLength }
        let first = log.nextTakeNumber()
        let studioTake = StudioTake(session: context, firstNumber: first, count: count, files: sessionFiles,
                                    armedTracks: armedNow.indices.filter { armedNow[$0] }, overdub: overdub)
        var layout = TakeLayout(files: takeFiles(sessionFiles, number: first))
        if let split {
            layout = splitLayout(split, files: sessionFiles, first: first, start: start, studioTake: studioTake)
        } else if count > 1, let lengthFrames {
            layout.segmentLength = lengthFrames
            layout.filesForSegment = { [self] start in takeFiles(sessionFiles, number: first + start.index) }
        }
        layout.beforeFirstWrite = { segment, files, frameTime throws(CaptureError) in
            try studioTake.begin(segment: segment, files: files, frameTime: frameTime)
        }
        layout.onSegmentFinished = { segment in studioTake.segmentFinished(segment) }
        do throws(CaptureError) {
            let take = try client.makeTake(layout)
            studioTake.attach(take)
            let total = lengthFrames.map { $0.multipliedReportingOverflow(by: Int64(count)) }
            if let total, total.overflow {
                throw .badDuration("\(count) takes of \(length?.description ?? "")", reason: "too long for JACK's clock")
            }
            if onTransportRoll {
                client.watchTransport()
                try take.startOnTransportRoll(lengthFrames: total?.partialValue)
            } else if let decibels {
                try take.startOnLevel(decibels: decibels, lengthFrames: total?.partialValue)
            } else if onCue {
                try take.startOnCue(lengthFrames: total?.partialValue)
            } else {
                try take.start(at: start, lengthFrames: total?.partialValue)
            }
        } catch {
            studioTake.abandon()
            throw .capture(error)
        }
        state.withLock { state in
            state.current = studioTake
            state.lastTakeNumber = first + count - 1
        }
        studioTake.watchDisk()
        return studioTake
    }

    /// The paths of take `number`'s `files`, each with the channels (its tracks' indices) it
    /// holds; a piece of a split take has its start after the number
    /// (`take-007-20261122-143000-Kick In.wav`).
    func takeFiles(_ files: [SessionTakeFile], number: Int, startMicroseconds: Int64? = nil) -> [TakeFileSpec] {
        files.map { file in
            var name = definition.fileName(take: number, file: file)
            if let startMicroseconds {
                let numbered = TakeNaming.prefix + SessionNaming.paddedNumber(number)
                name = numbered + "-" + SplitNaming.timeStamp(microsecondsSinceEpoch: startMicroseconds)
                    + name.dropFirst(numbered.count)
            }
            return TakeFileSpec(path: definition.folder + "/" + name, channels: file.trackIndices)
        }
    }

    /// A take split on wall-clock boundaries: each piece a take of its own, numbered when its
    /// first frame comes (one past every number used, as any take), named for its start.
    private func splitLayout(_ split: SplitInterval, files: [SessionTakeFile], first: Int, start: StartTime?,
                             studioTake: StudioTake) -> TakeLayout {
        let startMicroseconds = Take.estimatedStartMicroseconds(start, on: client.jack)
        var layout = TakeLayout(files: takeFiles(files, number: first, startMicroseconds: startMicroseconds), split: split)
        layout.filesForSegment = { [self] start in
            takeFiles(files, number: studioTake.assignNumber(segment: start.index),
                      startMicroseconds: start.boundaryMicroseconds ?? WallClockTime.nowMicrosecondsSinceEpoch())
        }
        return layout
    }

    /// Removes the last take this session recorded (its files) and logs it as discarded. Returns
    /// its number, nil when there is none (or it was discarded already).
    @discardableResult
    public func discardLastTake() throws(StudioSessionError) -> Int? {
        if let running = currentTake, !running.take.isFinished { throw .takeInProgress }
        // A split take's last piece is numbered as it is recorded.
        guard let number = state.withLock({ state in state.lastTakeNumber.map { max($0, state.current?.lastNumber ?? $0) } }) else { return nil }
        do {
            guard try log.entries().contains(where: { $0.take == number && $0.status != .discarded && $0.status != .deleted })
            else { return nil }
            try log.discard(take: number)
        } catch { throw .takeLog(error) }
        state.withLock { $0.lastTakeNumber = nil }
        return number
    }

    // MARK: The disk

    /// Bytes a second the session's files take at most (compressed formats are counted as
    /// their PCM size, so the estimate errs on the safe side).
    static func bytesPerSecond(_ definition: SessionDefinition, tracks: Int, sampleRate: Int) -> Int {
        let bits = definition.format.bitDepth ?? 16
        return tracks * sampleRate * max(1, (bits + 7) / 8)
    }

    /// Free bytes on the session folder's file system (statvfs), nil if it cannot be read.
    public var freeDiskBytes: Int64? { context.freeDiskBytes }

    /// Seconds of recording the disk still holds at the session's data rate.
    public var recordingSecondsLeft: Double? {
        guard let free = freeDiskBytes else { return nil }
        let rate = StudioSession.bytesPerSecond(definition, tracks: max(1, armedTrackNames.count),
                                                sampleRate: definition.settings.sampleRate ?? client.sampleRate)
        return Double(max(0, free - diskReserveBytes)) / Double(max(1, rate))
    }
}

/// What a session's takes share with it: its definition, client and log, and the disk reserve.
final class StudioSessionContext: Sendable {
    let definition: SessionDefinition
    let client: CaptureClient
    let log: TakeLog
    private let reserve: Locked<Int64>

    init(definition: SessionDefinition, client: CaptureClient, log: TakeLog, diskReserveBytes: Int64) {
        self.definition = definition
        self.client = client
        self.log = log
        reserve = Locked(diskReserveBytes)
    }

    var diskReserveBytes: Int64 {
        get { reserve.withLock { $0 } }
        set { reserve.withLock { $0 = newValue } }
    }

    /// Free bytes on the session folder's file system (statvfs), nil if it cannot be read.
    var freeDiskBytes: Int64? {
        var info = statvfs()
        guard statvfs(definition.folder, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}

/// One take of a studio session (or N takes back to back, `record(takes:)`), from its first
/// frame to its log entries: it writes the take log's start record as each take's first frame
/// reaches the disk and its end record as its files close, adds BWF/iXML metadata to each file,
/// and stops the take cleanly when the disk is nearly full.
public final class StudioTake: Sendable {
    public enum StopReason: Equatable, Sendable {
        /// Stopped by the user or reached its length.
        case requested
        /// Free space fell below what the ring needs: stopped before a write could fail.
        case diskFull
    }

    /// The take numbers it records, in order.
    public let numbers: ClosedRange<Int>
    /// What the take needs of its session, held strongly: the session may be closed (or
    /// deinitialized) while the take's last records are written.
    private let session: StudioSessionContext
    private let state: Locked<State>

    private struct State {
        var engineTake: Take?
        var reason = StopReason.requested
        var begun: [Int: TakeLogEntry] = [:]
        var finishedEntries: [TakeLogEntry] = []
        var logFailure: TakeLogError?
        var endEntries: [TakeLogEntry]?
        /// Each segment's take number (a split's pieces are numbered as they begin).
        var segmentNumbers: [Int: Int]
    }
    /// For an overdub: the take it played and how they were aligned (in its log entry).
    let overdub: TakeLogOverdub?
    /// For an overdub: the take it plays and how the two line up.
    public var overdubAlignment: TakeLogOverdub? { overdub }
    /// The take's files; their track indices are into the session's tracks (and channels).
    let sessionFiles: [SessionTakeFile]
    /// The tracks armed when the take was made (indices into the session's tracks, which are
    /// also the client's channels), in track order: all it records.
    let armedTracks: [Int]

    init(session: StudioSessionContext, firstNumber: Int, count: Int, files: [SessionTakeFile], armedTracks: [Int],
         overdub: TakeLogOverdub? = nil) {
        self.session = session
        self.overdub = overdub
        sessionFiles = files
        self.armedTracks = armedTracks
        numbers = firstNumber...(firstNumber + count - 1)
        state = Locked(State(segmentNumbers: Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, firstNumber + $0) })))
    }

    /// The take number of segment `index` (with several takes, the first's plus the index).
    func number(ofSegment index: Int) -> Int {
        state.withLock { $0.segmentNumbers[index] ?? numbers.lowerBound + index }
    }

    /// Numbers a split take's piece as its files are made: one past every number the log, the
    /// folder and this take have used.
    func assignNumber(segment index: Int) -> Int {
        if let number = state.withLock({ $0.segmentNumbers[index] }) { return number }
        let used = state.withLock { $0.segmentNumbers.values.max() ?? numbers.lowerBound }
        let number = max(used + 1, (try? session.log.nextTakeNumber()) ?? used + 1)
        state.withLock { $0.segmentNumbers[index] = number }
        return number
    }

    /// The numbers of the takes begun so far, in order.
    public var recordedNumbers: [Int] { state.withLock { $0.begun.keys.sorted() } }

    /// The highest take number it has used.
    public var lastNumber: Int { state.withLock { $0.segmentNumbers.values.max() ?? numbers.upperBound } }

    func attach(_ take: Take) { state.withLock { $0.engineTake = take } }

    /// The take never started (a refused start): its files are removed.
    func abandon() { _ = state.withLock({ $0.engineTake })?.finish() }

    /// The engine's take (pause, resume, stop, status).
    public var take: Take { state.withLock { $0.engineTake! } }

    /// Why it stopped (so far).
    public var stopReason: StopReason { state.withLock { $0.reason } }

    /// The number of the take being recorded now (with several takes, it advances).
    public var currentNumber: Int {
        state.withLock { $0.begun.keys.max() ?? numbers.lowerBound }
    }

    /// Stops at JACK's current frame (every file finalized there).
    @discardableResult
    public func stop() -> UInt32 { take.stop() }

    /// Stops, waits for every file to be closed, writes the log's end records, and returns them
    /// (one per take recorded; none for a take stopped before it started).
    @discardableResult
    public func finish() -> [TakeLogEntry] {
        let report = take.finish()
        return state.withLock({ $0.endEntries }) ?? complete(with: report)
    }

    // MARK: The writer's side

    /// A take's first frame is about to be written: its files get their metadata and the log its
    /// start record.
    func begin(segment: Int, files: [SoundFile], frameTime: UInt32?) throws(CaptureError) {
        let number = number(ofSegment: segment)
        let definition = session.definition
        let jack = session.client.jack
        let startMicroseconds = frameTime.map { StudioTake.wallClockMicroseconds(ofFrame: $0, on: jack) }
        let fileSpecs = sessionFiles
        let now = WallClockTime.nowMicrosecondsSinceEpoch()
        for (file, spec) in zip(files, fileSpecs) {
            let tracks = spec.trackIndices.enumerated().map { channel, track in
                TakeFileMetadata.Track(name: definition.tracks[track].name, channel: channel + 1)
            }
            let metadata = TakeFileMetadata(
                sessionName: definition.name, takeNumber: number, tracks: tracks,
                originationMicrosecondsSinceEpoch: now, sampleRate: file.sampleRate,
                startMicrosecondsSinceEpoch: startMicroseconds ?? now)
            try file.apply(metadata)
        }
        var entry = TakeLogEntry(take: number, status: .recording, sampleRate: session.client.sampleRate, frames: 0)
        entry.startFrame = frameTime
        entry.overdub = overdub
        entry.startTime = startMicroseconds.map { microseconds in
            // Floor division keeps the fraction in 0..<1 s.
            let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
            return TakeLogTime.string(from: timespec(tv_sec: Int(seconds), tv_nsec: Int(microseconds - seconds * 1_000_000) * 1_000))
        }
        entry.files = zip(files, fileSpecs).map { file, spec in
            TakeLogFile(path: relativePath(file.path), tracks: spec.trackIndices.map { definition.tracks[$0].name })
        }
        entry.tracks = trackEntries(levels: nil, alignment: state.withLock({ $0.engineTake })?.latencyAlignment)
        state.withLock { $0.begun[number] = entry }
        do throws(TakeLogError) { try session.log.append(entry) } catch {
            throw .writeFailed(path: session.log.path, reason: error.description)
        }
    }

    /// A take's files are closed. Every take of a run of several takes or of a split but the last is
    /// complete here; the last one's outcome is known when the engine's take finishes
    /// (`complete(with:)`).
    func segmentFinished(_ segment: TakeSegment) {
        guard !segment.isLast, segment.frames > 0 else { return }
        let status: TakeStatus = segment.lostSpans.isEmpty ? .complete : .framesLost
        appendEnd(of: segment, status: status, events: take.events)
    }

    private func complete(with report: TakeReport) -> [TakeLogEntry] {
        if let last = report.segments.last, case let number = number(ofSegment: last.index),
           state.withLock({ $0.begun[number] != nil }) {
            let status: TakeStatus
            switch report.outcome {
            case .complete: status = stopReason == .diskFull ? .diskFull : .complete
            case .lostFrames: status = stopReason == .diskFull ? .diskFull : .framesLost
            case .serverShutDown: status = .serverShutdown
            case .writeFailed: status = .writeFailed
            case .sampleRateChanged: status = .interrupted
            case .cancelled, .missedStart: status = .discarded
            }
            appendEnd(of: last, status: status, events: report.events)
        }
        return state.withLock { state in
            state.endEntries = state.finishedEntries
            return state.finishedEntries
        }
    }

    private func appendEnd(of segment: TakeSegment, status: TakeStatus, events: [CaptureEvent]) {
        let number = number(ofSegment: segment.index)
        guard var entry = state.withLock({ $0.begun[number] }) else { return }
        let end = segment.position + segment.frames
        entry.status = status
        for event in events where segment.index == 0 {
            switch event {
            case .transportRolled(_, let transportFrame, let bbt):
                entry.transportFrame = transportFrame
                entry.bbt = bbt?.description
                if session.client.configuration.preRoll != nil, let start = entry.startFrame {
                    entry.triggerPosition = Int64(max(0, FrameTime.distance(from: start, to: event.frameTimeOfTrigger ?? start)))
                }
            case .triggered(_, let position):
                entry.triggerPosition = position
            default: break
            }
        }
        entry.frames = segment.frames
        entry.files = zip(entry.files, segment.files).map { logged, file in
            var logged = logged
            logged.frames = file.frames
            return logged
        }
        entry.tracks = trackEntries(levels: segment.channelLevels, alignment: state.withLock({ $0.engineTake })?.latencyAlignment)
        entry.lost = segment.lostSpans.map { TakeLogSpan(position: $0.position, frames: $0.frames) }
        entry.xruns = StudioTake.xruns(in: events, period: session.client.jack.bufferSize)
            .filter { $0.position >= segment.position && $0.position < max(end, segment.position + 1) }
            .map { TakeLogSpan(position: $0.position - segment.position, frames: $0.frames) }
        entry.pauses = CaptureEvent.pauses(in: events)
            .filter { $0.position >= segment.position && $0.position <= end }
            .map { TakeLogPause(position: $0.position - segment.position, fromFrame: $0.fromFrame, toFrame: $0.toFrame) }
        state.withLock { $0.finishedEntries.append(entry) }
        do { try session.log.append(entry) } catch { state.withLock { $0.logFailure = error } }
    }

    /// The take log could not be written (the disk): said by jcap after the take.
    public var logError: TakeLogError? { state.withLock { $0.logFailure } }

    private func trackEntries(levels: [ChannelLevels]?, alignment: LatencyAlignment?) -> [TakeLogTrack] {
        let client = session.client
        let tracks = session.definition.tracks
        return armedTracks.map { index in
            TakeLogTrack(name: tracks[index].name, source: client.sources[index],
                         captureLatency: client.captureLatency(ofChannel: index),
                         alignedLatency: alignment?.latencies[index],
                         highestPeakDBFS: levels.map { Double($0[index].highestPeak) },
                         clippedSamples: levels.map { $0[index].clipCount } ?? 0)
        }
    }

    private func relativePath(_ path: String) -> String {
        let folder = session.definition.folder.hasSuffix("/") ? session.definition.folder : session.definition.folder + "/"
        return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
    }

    // MARK: The disk watch

    /// While the take runs, checks the free space four times a second and stops the take
    /// cleanly (every file finalized, the log saying why) before a write could fail.
    func watchDisk() {
        let thread = Thread { [self] in
            while !take.isFinished {
                if let free = session.freeDiskBytes, free < session.diskReserveBytes {
                    state.withLock { $0.reason = .diskFull }
                    take.stop()
                    return
                }
                _ = take.waitUntilFinished(timeout: 0.25)
            }
        }
        thread.name = "jcap disk watch"
        thread.start()
    }

    // MARK: Pure helpers

    /// The wall-clock moment (microseconds since the Unix epoch) of a JACK frame: JACK's clock
    /// for the frame (jack_frames_to_time, the same in every client of the server), moved by the
    /// offset between the wall clock and JACK's monotonic clock now.
    static func wallClockMicroseconds(ofFrame frame: UInt32, on jack: JackClient) -> Int64 {
        let jackNow = Int64(JackClient.currentTimeMicroseconds)
        let wallNow = WallClockTime.nowMicrosecondsSinceEpoch()
        return Int64(jack.microseconds(atFrame: frame)) + (wallNow - jackNow)
    }

    /// The server's xruns in a take, each with the frames JACK skipped because of it (0 when it
    /// cost the take nothing): an xrun and skipped frames within four periods are one.
    static func xruns(in events: [CaptureEvent], period: Int) -> [(position: Int64, frames: Int64)] {
        var xruns: [(position: Int64, frames: Int64)] = []
        for event in events { if case .xrun(_, let position) = event { xruns.append((position, 0)) } }
        for event in events {
            guard case .framesSkipped(let position, let frames) = event else { continue }
            if let index = xruns.firstIndex(where: { $0.frames == 0 && abs($0.position - position) <= Int64(4 * period) }) {
                xruns[index] = (position, frames)
            } else {
                xruns.append((position, frames))
            }
        }
        return xruns.sorted { $0.position < $1.position }
    }
}
