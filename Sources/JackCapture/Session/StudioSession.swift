import Foundation

/// A studio session, open: its JACK client named after the session, one input port per track
/// (named after the track, with its order in JACK metadata and a pretty name where the port name
/// had to differ), connected to the tracks' sources and metered, recording take after take into
/// the session folder, one file per armed track (or group), each take numbered, timestamped
/// (BWF, iXML) and logged (`takes.jsonl`).
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
    /// Lines of the take log that could not be read when the session opened: skipped (or read
    /// without an unknown status), reported once; the session records all the same.
    public let skippedLogLines: [TakeLogReading.SkippedLine]
    /// Every track's source, in track (and channel) order.
    public var sources: [String] { client.sources }
    /// Free bytes on the session folder's file system below which a take is stopped cleanly: what
    /// the ring can still hold when the disk is asked to take it, plus room for headers.
    public var diskReserveBytes: Int64 {
        get { context.diskReserveBytes }
        set { context.diskReserveBytes = newValue }
    }

    private let folderLock: SessionLock
    /// The server the session was opened on (nil: the default), reached again after it restarts.
    private let serverName: String?
    /// Held by `record` while it makes a take and by `setArmed`, so a take never starts with a
    /// set of armed tracks other than the one its files were made for. An `NSLock`, not `Locked`:
    /// it is held across `record`'s throwing work, which a `Mutex` closure cannot span simply.
    private let recordLock = NSLock()
    private let state = Locked(State())

    private struct State {
        var current: SessionTake?
        var lastTakeNumber: Int?
        /// The client opened on a returned server whose tracks' sources were not all there yet:
        /// kept open for the next try, and the session's client once they are
        /// (`clientOnReturnedServer` says why).
        var clientAwaitingSources: JackClient?
        /// Whether each track (in `definition.tracks` order) is armed now, and their names.
        private(set) var armed: [Bool] = []
        private(set) var armedNames: [String] = []

        mutating func arm(_ armed: [Bool], names: [String]) {
            self.armed = armed
            armedNames = zip(names, armed).filter(\.1).map(\.0)
        }
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
            try log.checkWritable()
            recoveredTakes = try log.recoverInterruptedTakes()
            skippedLogLines = try log.read().skipped
        } catch { throw .takeLog(error) }

        let client: CaptureClient
        do { client = try StudioSession.openCapture(definition, serverName: serverName, jack: jack, sources: sources) } catch {
            folderLock.release()
            throw error
        }
        // Every track, armed or not: the reserve holds for whatever is armed later.
        let reserve = Int64(definition.bufferSeconds * Double(StudioSession.bytesPerSecond(
            definition, tracks: definition.tracks.count, sampleRate: definition.settings.sampleRate ?? jack.sampleRate)))
            + (1 << 20)
        context = StudioSessionContext(definition: definition, client: client, log: log, diskReserveBytes: reserve)
        self.serverName = serverName
        trackNames = definition.tracks.map(\.name)
        state.withLock { [trackNames] in $0.arm(definition.tracks.map(\.armed), names: trackNames) }
    }

    /// The session's capture client on `jack`: one port per track (named after it, with its order
    /// in JACK metadata and a pretty name where the port name had to differ), connected to
    /// `sources`, metered.
    private static func openCapture(_ definition: SessionDefinition, serverName: String?, jack: JackClient,
                                    sources: [String]) throws(StudioSessionError) -> CaptureClient {
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
        configuration.masterClockPort = definition.masterClockPort
        let client: CaptureClient
        do { client = try CaptureClient(configuration: configuration, client: jack) } catch { throw .capture(error) }
        client.isMeteringEnabled = true
        for (order, (track, port)) in zip(definition.tracks, client.engine.ports).enumerated() {
            // Shown by qjackctl and `jack_property -l`; a server without metadata support just
            // shows the port names. A pretty name only where the port's name is not the track's
            // (a ':' replaced, a name cut to fit): elsewhere a patchbay shows the same name
            // without it, and each property set or removed is a notification to every client of
            // the server (2,048 for 512 tracks with both).
            if track.portName != track.name { try? jack.setPrettyName(track.name, ofPort: port) }
            try? jack.setOrder(order + 1, ofPort: port)
        }
        return client
    }

    deinit { close() }

    /// Finishes a take still recording, then closes the client and lets go of the folder.
    public func close() {
        if let take = state.withLock({ $0.current }) { _ = take.finish() }
        if let waiting = state.withLock({ state in defer { state.clientAwaitingSources = nil }; return state.clientAwaitingSources }),
           !waiting.isClosed {
            if waiting.serverAnswers { waiting.close() } else { _ = waiting.closeAfterServerShutdown(timeout: .seconds(2)) }
        }
        // The ports' metadata goes first, while this client still reads its notifications:
        // jack2 1.9.21 closing a client removes each port's properties and notifies every client,
        // this one included, whose notification thread no longer reads then; with more than a few
        // dozen tracks the socket fills and jack_client_close never returns (measured: 64 tracks).
        client.removePortMetadata()
        client.close()
        folderLock.release()
    }

    // MARK: The server going away and coming back

    /// Whether the session's JACK server has gone (shut down, killed): no take records until it
    /// is back and `reopenOnReturnedServer` has opened the session on it again.
    public var isServerGone: Bool { client.engine.status.serverGone }

    /// After the server went away: tries once to reach it again (without starting one) and, when
    /// it is back with every track's source, opens the session's client on it as it was: the same
    /// client and port names, order and pretty names, each port connected to its track's source.
    /// The dead server's client is closed first (libjack keeps per-process state of the server it
    /// reached; it goes with the last client).
    ///
    /// - Throws: `.sampleRateMismatch` when the server came back at another rate than the
    ///   session's `sample_rate`; `.capture` when it refuses the ports or their connections.
    public func reopenOnReturnedServer() throws(StudioSessionError) -> SessionServerReturn {
        if let running = currentTake, !running.recording.isFinished { throw .takeInProgress }
        let dead = client
        if !dead.jack.isClosed { dead.close() }
        // A client opened while the old one's close is still in libjack would have libjack free
        // the old one under that close (`JackClient.hasLetGo`): the server is not back for this
        // process until it returned.
        guard dead.jack.hasLetGo else { return .notYet }
        guard let jack = clientOnReturnedServer() else { return .notYet }
        if let rate = definition.sampleRate, rate != jack.sampleRate {
            jack.close()
            throw .sampleRateMismatch(definition.error(
                sessionKey: "sample_rate",
                "the JACK server came back at \(jack.sampleRate) Hz but the session is at \(rate) Hz"))
        }
        let sources: [String]
        do throws(StudioSessionError) { sources = try StudioSession.resolveSources(of: definition, on: jack) } catch {
            // A source's client starts after its server: waited for, not an error, with this
            // client kept open for the next try.
            state.withLock { $0.clientAwaitingSources = jack }
            return .sourcesMissing(error)
        }
        let reopened: CaptureClient
        do { reopened = try StudioSession.openCapture(definition, serverName: serverName, jack: jack, sources: sources) } catch {
            jack.close()
            throw error
        }
        context.replaceClient(with: reopened)
        return .reopened
    }

    /// The client to open the session on, on a server that came back: the one kept from the try
    /// before while the sources were missing, or a new one (nil: the server is not there, or the
    /// kept client's server went again, which is then closed for the next try).
    ///
    /// Kept, not closed and opened again: with jack2 1.9.21, a client closed while a source's
    /// client (starting after its server) was still opening, and the next opened under the same
    /// number, was triggered by the server every cycle and never woken: its process callback never
    /// ran, jackd logged "client = ... was not finished, state = Triggered", and the session waited
    /// for ever (1 in 12 to 1 in 25 restarts of `ServerRestartSessionTests` on a loaded machine).
    /// The likely cause is jack2 issue 721: a client still opening misses the removal of one
    /// closed meanwhile, keeps its semaphore under that number, and wakes the stale one.
    private func clientOnReturnedServer() -> JackClient? {
        if let kept = state.withLock({ $0.clientAwaitingSources }) {
            if !kept.isClosed && kept.serverAnswers {
                state.withLock { $0.clientAwaitingSources = nil }
                return kept
            }
            // Its server went again: closed as the session's own client is after a shutdown, and
            // no other opened before libjack has let it go (`JackClient.hasLetGo`).
            if !kept.isClosed { _ = kept.closeAfterServerShutdown(timeout: .seconds(2)) }
            guard kept.hasLetGo else { return nil }
            state.withLock { $0.clientAwaitingSources = nil }
        }
        return try? JackClient(name: definition.name, server: serverName)
    }

    /// Each track's source port, armed or not (a track armed later is already connected): a
    /// channel number is the server's physical capture port of that number; a name or glob must
    /// match exactly one output port.
    static func resolveSources(of definition: SessionDefinition, on jack: JackClient) throws(StudioSessionError) -> [String] {
        let physical = jack.physicalCapturePorts()
        let outputs = jack.audioOutputPorts()
        var sources: [String] = []
        var trackBySource: [String: Int] = [:]
        for (index, track) in definition.tracks.enumerated() {
            // Two spellings of one port (a channel and its port name, a glob): refused at the
            // second track's source, before the session folder is made.
            defer {
                if index < sources.count, trackBySource[sources[index]] == nil { trackBySource[sources[index]] = index }
            }
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
            if let earlier = trackBySource[sources[index]] {
                throw .sessionFile(definition.error(
                    track: index, key: "source",
                    "JACK port '\(sources[index])' is already the source of track '\(definition.tracks[earlier].name)' "
                        + "on line \(definition.tracks[earlier].line) (a source feeds one track)"))
            }
        }
        return sources
    }

    // MARK: Arming

    /// Every track's name, in file order (also the ports' and channels' order).
    public let trackNames: [String]

    /// The tracks armed now, in track order: the next take records these. (Kept, not worked out
    /// at each read: a session's state reads it 20 times a second.)
    public var armedTrackNames: [String] { state.withLock { $0.armedNames } }

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
        if let running = currentTake, !running.recording.isFinished { throw .takeInProgress }
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
        state.withLock { [trackNames] in $0.arm(next, names: trackNames) }
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
    /// log, also one being recorded. The take's files get the mark in their iXML and bext
    /// description (`TakeFileMarking`; a take being recorded when its files close).
    ///
    /// - Returns: a line for each file that could not be rewritten (the log has the mark anyway).
    /// - Throws: `.takeLog(.noSuchTake)` for a take the log does not have.
    @discardableResult
    public func mark(take number: Int, as mark: TakeMark?) throws(StudioSessionError) -> [String] {
        do { try log.setMark(take: number, mark) } catch { throw .takeLog(error) }
        return markFiles(take: number)
    }

    /// Adds a marker at take position `position` (frames) to take `number`, the one recording
    /// or any other in the log; returns it as logged (with its time).
    ///
    /// - Throws: `.takeLog(.noSuchTake)` for a take the log does not have.
    @discardableResult
    public func addMarker(take number: Int, at position: Int64) throws(StudioSessionError) -> TakeLogMarker {
        let marker = TakeLogMarker(position: position, sampleRate: client.sampleRate)
        do { try log.addMarker(take: number, marker) } catch { throw .takeLog(error) }
        return marker
    }

    /// Sets take `number`'s note; empty (or only white space) text removes it. The take's files
    /// get it as `mark(take:as:)` says.
    ///
    /// - Returns: a line for each file that could not be rewritten (the log has the note anyway).
    /// - Throws: `.takeLog(.noSuchTake)` for a take the log does not have.
    @discardableResult
    public func setNote(take number: Int, _ text: String) throws(StudioSessionError) -> [String] {
        do { try log.setNote(take: number, text) } catch { throw .takeLog(error) }
        return markFiles(take: number)
    }

    private func markFiles(take number: Int) -> [String] {
        guard let entry = try? log.entry(number) else { return [] }
        return TakeFileMarking.apply(entry, sessionName: definition.name, folder: definition.folder)
    }

    // MARK: Takes

    /// The take being recorded, if any.
    public var currentTake: SessionTake? { state.withLock { $0.current } }

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
                       overdub: TakeLogOverdub? = nil) throws(StudioSessionError) -> SessionTake {
        guard (1...SessionTake.mostTakesBackToBack).contains(count) else { throw .badTakeCount(count) }
        if split != nil && (onTransportRoll || decibels != nil || onCue) { throw .splitNeedsScheduledStart }
        if split != nil && count > 1 { throw .splitWithSeveralTakes(count) }
        recordLock.lock()
        defer { recordLock.unlock() }
        if let running = currentTake, !running.recording.isFinished { throw .takeInProgress }
        let armedNow = state.withLock { $0.armed }
        let sessionFiles = Self.takeFiles(of: definition, armed: armedNow)
        if sessionFiles.isEmpty { throw .noArmedTrack }
        // The disk watch would stop the take before its first frame: said now, before any file.
        if let free = freeDiskBytes, free < diskReserveBytes {
            throw .diskNearlyFull(folder: definition.folder, freeBytes: free, neededBytes: diskReserveBytes)
        }
        let lengthFrames: Int64?
        do { lengthFrames = try length?.takeLength(atSampleRate: client.sampleRate) } catch { throw .capture(error) }
        if count > 1 && lengthFrames == nil { throw .takesNeedLength }
        // Before any file is made: a take whose start cannot be logged would leave orphan files.
        do { try log.checkWritable() } catch { throw .takeLog(error) }
        let first = log.nextTakeNumber()
        // Checked before any arithmetic on it: the number comes from file names and the log.
        guard first <= SessionTake.highestNumber - (count - 1) else {
            throw .takeNumbersUsedUp(next: first, count: count, folder: definition.folder)
        }
        let sessionTake = SessionTake(session: context, firstNumber: first, count: count, files: sessionFiles,
                                    armedTracks: armedNow.indices.filter { armedNow[$0] }, overdub: overdub)
        var layout = TakeLayout(files: takeFiles(sessionFiles, number: first))
        if let split {
            layout = splitLayout(split, files: sessionFiles, first: first, start: start, sessionTake: sessionTake)
        } else if count > 1, let lengthFrames {
            layout.segmentLength = lengthFrames
            layout.filesForSegment = { [self] start in takeFiles(sessionFiles, number: first + start.index) }
        }
        layout.beforeFirstWrite = { segment, files, frameTime throws(CaptureError) in
            try sessionTake.begin(segment: segment, files: files, frameTime: frameTime)
        }
        layout.onSegmentFinished = { segment in sessionTake.segmentFinished(segment) }
        do throws(CaptureError) {
            let take = try client.makeTake(layout)
            sessionTake.attach(take)
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
            sessionTake.abandon()
            throw .capture(error)
        }
        state.withLock { state in
            state.current = sessionTake
            state.lastTakeNumber = first + count - 1
        }
        sessionTake.watchDisk()
        return sessionTake
    }

    /// The paths of take `number`'s `files`, each with the channels (its tracks' indices) it
    /// holds; a segment of a split take has its start after the number
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

    /// A take split on wall-clock boundaries: each segment a take of its own, numbered when its
    /// first frame comes (one past every number used, as any take), named for its start.
    private func splitLayout(_ split: SplitInterval, files: [SessionTakeFile], first: Int, start: StartTime?,
                             sessionTake: SessionTake) -> TakeLayout {
        let startMicroseconds = Take.estimatedStartMicroseconds(start, on: client.jack)
        var layout = TakeLayout(files: takeFiles(files, number: first, startMicroseconds: startMicroseconds), split: split)
        layout.filesForSegment = { [self] start in
            takeFiles(files, number: sessionTake.assignNumber(segment: start.index),
                      startMicroseconds: start.boundaryMicroseconds ?? WallClockTime.nowMicrosecondsSinceEpoch())
        }
        return layout
    }

    /// Removes the last take this session recorded (its files) and logs it as discarded. Returns
    /// its number, nil when there is none (or it was discarded already).
    @discardableResult
    public func discardLastTake() throws(StudioSessionError) -> Int? {
        if let running = currentTake, !running.recording.isFinished { throw .takeInProgress }
        // A split take's last segment is numbered as it is recorded.
        guard let number = state.withLock({ state in state.lastTakeNumber.map { max($0, state.current?.lastNumber ?? $0) } }) else { return nil }
        do {
            guard try log.read().entries.contains(where: { $0.take == number && $0.status != .discarded && $0.status != .deleted })
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
        let armedTracks = state.withLock { $0.armed.reduce(0) { $0 + ($1 ? 1 : 0) } }
        let rate = StudioSession.bytesPerSecond(definition, tracks: max(1, armedTracks),
                                                sampleRate: definition.settings.sampleRate ?? client.sampleRate)
        // The running take's files hold space allocated ahead, which it fills: still free for it.
        let ahead = currentTake?.bytesAllocatedAhead ?? 0
        return Double(max(0, free + ahead - diskReserveBytes)) / Double(max(1, rate))
    }
}
