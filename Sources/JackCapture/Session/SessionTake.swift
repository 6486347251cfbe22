import Foundation

/// One take of a studio session (or N takes back to back, `record(takes:)`), from its first
/// frame to its log entries: it writes the take log's start record as each take's first frame
/// reaches the disk and its end record as its files close, adds BWF/iXML metadata to each file,
/// and stops the take cleanly when the disk is nearly full.
public final class SessionTake: Sendable {
    public enum StopReason: Equatable, Sendable {
        /// Stopped by the user or reached its length.
        case requested
        /// Free space fell below what the ring needs: stopped before a write could fail.
        case diskFull
    }

    /// The highest take number a session gives: the six digits its file names leave room for
    /// (`SessionNaming.takeNumberDigitsReserved`). A take file or log record with a higher number
    /// (copied in, typed by hand) leaves no number for a new take: refused
    /// (`StudioSessionError.takeNumbersUsedUp`) rather than counted past.
    public static let highestNumber = 999_999
    /// The most takes recorded back to back in one `record(takes:)`.
    public static let mostTakesBackToBack = 10_000

    /// The take numbers it records, in order.
    public let numbers: ClosedRange<Int>
    /// What the take needs of its session, held strongly: the session may be closed (or
    /// deinitialized) while the take's last records are written.
    private let session: StudioSessionContext
    private let state: Locked<State>

    private struct State {
        var recording: Take?
        var reason = StopReason.requested
        var begun: [Int: TakeLogEntry] = [:]
        var finishedEntries: [TakeLogEntry] = []
        var logFailure: TakeLogError?
        var endEntries: [TakeLogEntry]?
        /// Each segment's take number (a split's segments are numbered as they begin).
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

    /// Numbers a split take's segment as its files are made: one past every number the log, the
    /// folder and this take have used.
    func assignNumber(segment index: Int) -> Int {
        if let number = state.withLock({ $0.segmentNumbers[index] }) { return number }
        let used = state.withLock { $0.segmentNumbers.values.max() ?? numbers.lowerBound }
        // Never past Int.max, whatever number a file copied in mid-take has.
        let number = max(min(used, Int.max - 1) + 1, session.log.nextTakeNumber())
        state.withLock { $0.segmentNumbers[index] = number }
        return number
    }

    /// The numbers of the takes begun so far, in order.
    public var recordedNumbers: [Int] { state.withLock { $0.begun.keys.sorted() } }

    /// The highest take number it has used.
    public var lastNumber: Int { state.withLock { $0.segmentNumbers.values.max() ?? numbers.upperBound } }

    func attach(_ take: Take) { state.withLock { $0.recording = take } }

    /// The take never started (a refused start): its files are removed.
    func abandon() { _ = state.withLock({ $0.recording })?.finish() }

    /// The engine's take (pause, resume, stop, status).
    public var recording: Take { state.withLock { $0.recording! } }

    /// Why it stopped (so far).
    public var stopReason: StopReason { state.withLock { $0.reason } }

    /// The session folder, and the free space on its disk now (nil if it cannot be read): what a
    /// take stopped for a nearly full disk tells.
    public var folder: String { session.definition.folder }
    public var freeDiskBytes: Int64? { session.freeDiskBytes }

    /// Disk space the take's files hold allocated ahead of their audio (`Take.bytesAllocatedAhead`),
    /// 0 before its files are made and after they close.
    public var bytesAllocatedAhead: Int64 { state.withLock { $0.recording }?.bytesAllocatedAhead ?? 0 }

    /// The number of the take being recorded now (with several takes, it advances).
    public var currentNumber: Int {
        state.withLock { $0.begun.keys.max() ?? numbers.lowerBound }
    }

    /// Stops at JACK's current frame (every file finalized there).
    @discardableResult
    public func stop() -> UInt32 { recording.stop() }

    /// Stops, waits for every file to be closed, writes the log's end records, and returns them
    /// (one per take recorded; none for a take stopped before it started).
    @discardableResult
    public func finish() -> [TakeLogEntry] {
        let report = recording.finish()
        return state.withLock({ $0.endEntries }) ?? complete(with: report)
    }

    // MARK: The writer's side

    /// A take's first frame is about to be written: its files get their metadata and the log its
    /// start record.
    func begin(segment: Int, files: [SoundFile], frameTime: UInt32?) throws(CaptureError) {
        let number = number(ofSegment: segment)
        let definition = session.definition
        let jack = session.client.jack
        let startMicroseconds = frameTime.map { SessionTake.wallClockMicroseconds(ofFrame: $0, on: jack) }
        let fileSpecs = sessionFiles
        let now = WallClockTime.nowMicrosecondsSinceEpoch()
        for (file, spec) in zip(files, fileSpecs) {
            let tracks = spec.trackIndices.enumerated().map { channel, track in
                TakeFileMetadata.Track(name: definition.tracks[track].name, channel: channel + 1)
            }
            let metadata = TakeFileMetadata(
                sessionName: definition.name, scene: definition.scene, tape: definition.tape, takeNumber: number, tracks: tracks,
                originationMicrosecondsSinceEpoch: now, sampleRate: file.sampleRate,
                startMicrosecondsSinceEpoch: startMicroseconds ?? now)
            try file.apply(metadata)
        }
        var entry = TakeLogEntry(take: number, status: .recording, sampleRate: session.client.sampleRate, frames: 0)
        entry.startFrame = frameTime
        entry.masterStartFrame = frameTime.flatMap { start in state.withLock({ $0.recording })?.masterOffset.map { start &+ $0 } }
        entry.overdub = overdub
        entry.part = definition.part
        entry.netjackLatencyCycles = session.client.netJackSlave?.networkLatencyCycles
        entry.startTime = startMicroseconds.map { microseconds in
            // Floor division keeps the fraction in 0..<1 s.
            let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
            return TakeLogTime.string(from: timespec(tv_sec: Int(seconds), tv_nsec: Int(microseconds - seconds * 1_000_000) * 1_000))
        }
        entry.files = zip(files, fileSpecs).map { file, spec in
            TakeLogFile(path: relativePath(file.path), tracks: spec.trackIndices.map { definition.tracks[$0].name })
        }
        entry.tracks = trackEntries(levels: nil, alignment: state.withLock({ $0.recording })?.latencyAlignment)
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
        let status = SessionTakeSegment.status(of: segment, events: recording.events)
        appendEnd(of: segment, status: status, events: recording.events)
    }

    private func complete(with report: TakeReport) -> [TakeLogEntry] {
        if let last = report.segments.last, case let number = number(ofSegment: last.index),
           state.withLock({ $0.begun[number] != nil }) {
            // The run's outcome covers every take of it: a loss in an earlier take is not this one's.
            let status = SessionTakeSegment.status(ofLast: last, outcome: report.outcome, diskFull: stopReason == .diskFull,
                                                   events: report.events)
            appendEnd(of: last, status: status, events: report.events, lostEvents: report.lostEvents)
        }
        return state.withLock { state in
            state.endEntries = state.finishedEntries
            return state.finishedEntries
        }
    }

    private func appendEnd(of segment: TakeSegment, status: TakeStatus, events: [CaptureEvent], lostEvents: Int = 0) {
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
        entry.tracks = trackEntries(levels: segment.channelLevels, alignment: state.withLock({ $0.recording })?.latencyAlignment)
        entry.lost = segment.lostSpans.map { TakeLogSpan(position: $0.position, frames: $0.frames) }
        let report = TakeReport.spans(in: events)
        entry.late = report.late.compactMap { $0.clipped(from: segment.position, to: end) }
            .map { TakeLogSpan(position: $0.position, frames: $0.frames) }
        entry.uncertain = report.uncertain.compactMap { $0.clipped(from: segment.position, to: end) }
            .map { TakeLogSpan(position: $0.position, frames: $0.frames) }
        // A dropout is a point with a count of frames not in the file: kept whole, in its segment.
        entry.dropouts = report.dropouts.filter { SessionTakeSegment.holds($0.position, in: segment) }
            .map { TakeLogSpan(position: $0.position - segment.position, frames: $0.frames) }
        entry.masterJumps = TakeReport.masterClockJumps(in: events)
            .filter { SessionTakeSegment.holds($0.position, in: segment) }
            .map { TakeLogSpan(position: $0.position - segment.position, frames: $0.frames) }
        entry.clockSteps = TakeReport.clockSteps(in: events)
            .filter { SessionTakeSegment.holds($0.position, in: segment) }
            .map { TakeLogSpan(position: $0.position - segment.position, frames: $0.frames) }
        entry.xruns = SessionTake.xruns(in: events, period: session.client.jack.bufferSize)
            .filter { SessionTakeSegment.holds($0.position, in: segment) }
            .map { TakeLogSpan(position: $0.position - segment.position, frames: $0.frames) }
        entry.lostEvents = lostEvents
        entry.patching = SessionTake.patching(in: events, trackNames: session.definition.tracks.map(\.name),
                                              armed: Set(armedTracks), from: segment.position, to: end)
        entry.pauses = CaptureEvent.pauses(in: events)
            .filter { $0.position >= segment.position && $0.position <= end }
            .map { TakeLogPause(position: $0.position - segment.position, fromFrame: $0.fromFrame, toFrame: $0.toFrame) }
        state.withLock { $0.finishedEntries.append(entry) }
        do { try session.log.append(entry) } catch { state.withLock { $0.logFailure = error } }
        // A mark, note or marker set while the take was recording: its files, closed now, get it.
        if let logged = try? session.log.entry(number), logged.mark != nil || logged.note != nil || !logged.markers.isEmpty {
            TakeFileMarking.apply(logged, sessionName: session.definition.name, folder: session.definition.folder)
        }
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
            while !recording.isFinished {
                // The space the take's files hold allocated ahead is the take's to fill: free.
                if let free = session.freeDiskBytes, free + bytesAllocatedAhead < session.diskReserveBytes {
                    state.withLock { $0.reason = .diskFull }
                    recording.stop()
                    return
                }
                _ = recording.waitUntilFinished(timeout: 0.25)
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

    /// The connection changes of armed tracks (channels numbered as `trackNames`) that land in
    /// the segment from take frame `start` to `end`, at positions in the segment.
    package static func patching(in events: [CaptureEvent], trackNames: [String], armed: Set<Int>,
                                 from start: Int64, to end: Int64) -> [TakeLogPatch] {
        events.compactMap { event -> TakeLogPatch? in
            switch event {
            case .portConnected(let channel, _, _, _, _), .portDisconnected(let channel, _, _, _, _):
                guard armed.contains(channel), var patch = TakeLogPatch(event, tracks: trackNames),
                      patch.position >= start, patch.position < max(end, start + 1) else { return nil }
                patch.position -= start
                return patch
            default: return nil
            }
        }
    }

    /// The server's xruns in a take, each with the frames JACK skipped because of it (0 when it
    /// cost the take nothing): an xrun and skipped frames within four periods are one.
    package static func xruns(in events: [CaptureEvent], period: Int) -> [(position: Int64, frames: Int64)] {
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
