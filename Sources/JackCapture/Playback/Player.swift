import Atomics
import CJack
import Foundation

/// Plays sound files through JACK, modelled on AVAudioPlayer, on JACK's clock.
///
/// A reader thread decodes each file (libsndfile) onto a lock-free ring ahead of time; the
/// process callback (`playerProcessCallback`, compiler-checked `@_noAllocation @_noLocks`) only
/// copies whole cycles from the rings to the output ports `out_1...out_N` (one per file channel,
/// the files' channels in order). Only atomics cross between the threads.
///
/// Guarantees, in frames:
/// - `play(atFrame: F)`: the file frame at `currentTime` goes out on JACK frame F exactly, and
///   every frame after it on the next JACK frame: nothing repeated, nothing skipped.
/// - Several files given together start on the same frame and stay together frame for frame.
/// - When the reader falls behind, the callback plays silence instead (an underrun): counted in
///   `underrunFrames`, each reported with its file position (`underruns`, the delegate); the
///   file frame that was due plays after the silence.
/// - A seek (`currentTime` set, `currentFrame` set), also while playing: the next frame out is
///   the frame asked for; blocks read before it are dropped unplayed (silence, not counted as an
///   underrun, while the reader catches up: typically less than a period).
/// - `numberOfLoops`: the frame after the file's last is its first again, in the same cycle.
/// - `enableRate` and `rate` (0.5 ... 2): varispeed, as a tape machine does it: pitch follows
///   the speed (2 is twice as fast and an octave up). The reader thread resamples each file
///   through libsamplerate onto the ring, so a file of F frames plays round(F / rate) frames
///   (at the server's rate); positions (`currentFrame`, `currentTime`, seeks, underruns,
///   `duration`) stay in the file's frames. Loops are seamless at a rate too. A file at another
///   sample rate than the server's is resampled the same way, so it plays at its own speed:
///   F frames at 44.1 kHz play round(F × 48000 / 44100) frames on a 48 kHz server. At rate 1
///   with the file at the server's rate nothing is converted: the file plays bit for bit.
///
/// `stop()` is `pause()`: the position is kept (as AVAudioPlayer's stop keeps `currentTime`),
/// and the JACK client stays open until `close()`. At the end of playing the position goes back
/// to the start, as AVAudioPlayer's does.
///
/// The JACK client, the callbacks and the reader's thread (a `Butler`) belong to a `JackHost`,
/// which stops and joins the reader before the client deactivates and closes: the reader (and
/// the connection watch on it) never touches a closed client.
public final class Player: @unchecked Sendable {
    // @unchecked: `files` go to the reader's butler when prepared; everything mutable is in `control`.
    public let urls: [URL]
    /// The (first) file.
    public var url: URL { urls[0] }
    /// Channels of all the files together: one output port each.
    public let numberOfChannels: Int
    /// The files' sample rate.
    public let fileSampleRate: Int
    /// Frames of the longest file.
    public let durationFrames: Int64
    /// Seconds of the longest file.
    public var duration: TimeInterval { Double(durationFrames) / Double(fileSampleRate) }

    private let files: [SoundFile]
    let control = Locked(PlayerControl())

    /// Full names of the output ports, once prepared.
    public var portNames: [String] { control.withLock { $0.portNames } }
    /// The ports each output was connected to when prepared (empty: none).
    public var connections: [[String]] { control.withLock { $0.connections } }

    /// Opens one file to play.
    public convenience init(contentsOf url: URL) throws(PlayerError) {
        try self.init(contentsOf: [url])
    }

    /// Opens several files to play together, in sync, each on its own ports. They must share a
    /// sample rate (any rate: one that is not the server's is resampled).
    public init(contentsOf urls: [URL]) throws(PlayerError) {
        guard !urls.isEmpty else { throw .noFiles }
        var files: [SoundFile] = []
        for url in urls { files.append(try SoundFile.open(playing: url.path)) }
        for file in files where file.sampleRate != files[0].sampleRate {
            throw .sampleRateMismatch(file.path, fileRate: file.sampleRate, firstPath: files[0].path,
                                      firstRate: files[0].sampleRate)
        }
        self.urls = urls
        self.files = files
        numberOfChannels = files.reduce(0) { $0 + $1.channels }
        fileSampleRate = files[0].sampleRate
        durationFrames = files.map(\.frames).max() ?? 0
    }

    deinit { close() }

    public var delegate: PlayerDelegate? {
        get { control.withLock { $0.delegate } }
        set { control.withLock { $0.delegate = newValue } }
    }

    // MARK: Preparing

    /// Opens the JACK client, registers `out_1...out_N`, fills the rings ahead, activates and
    /// connects the outputs (`outputs`). Called by the first `play` if not before; once.
    ///
    /// - Parameters:
    ///   - bufferSeconds: audio the rings hold ahead of the callback.
    ///   - spreadsMonoToStereo: a mono file gets two ports, panned with equal power (`pan`).
    ///
    /// `portNames`: the output ports' short names, one per port in order (a session take's track
    /// names); nil: `out_1`, `out_2`...
    public func prepareToPlay(clientName: String = "jcap-play", server: String? = nil,
                              outputs: PlayerOutputs = .default, bufferSeconds: Double = 2,
                              spreadsMonoToStereo: Bool = false, portNames: [String]? = nil,
                              mix: PlaybackMix? = nil) throws(PlayerError) {
        guard control.withLock({ $0.host == nil }) else { return }
        guard bufferSeconds.isFinite, bufferSeconds > 0 else { throw .capture(.badBufferLength(bufferSeconds)) }
        let host: JackHost
        do { host = try JackHost(name: clientName, server: server) } catch { throw .capture(.jack(error)) }
        let client = host.client
        do {
            // Rings as large as a recorder's of as many channels: refused the same way when they
            // do not fit in this machine's memory.
            _ = try MemoryBudget.current().ringByteCount(seconds: bufferSeconds, sampleRate: client.sampleRate,
                                                         period: client.bufferSize, channels: numberOfChannels)
        } catch {
            host.close()
            throw .capture(error)
        }
        var ports: [OpaquePointer] = []
        var sources: [PlaybackSourceState] = []
        var readers: [PlaybackFileReader] = []
        let blocks = PlaybackRing.blockCount(seconds: bufferSeconds, sampleRate: client.sampleRate)
        let quality = control.withLock { $0.quality }
        do {
            if mix != nil {
                for name in PlaybackMix.portNames { ports.append(try client.registerAudioOutput(named: name)) }
            }
            for (index, file) in files.enumerated() where mix != nil {
                let blockBytes = PlaybackRing.blockByteCount(channels: file.channels)
                let ring = RingBuffer(capacity: blocks * blockBytes)
                sources.append(PlaybackSourceState(ring: ring, channels: file.channels, firstPort: 0, portCount: 2,
                                                   blockBytes: blockBytes, firstGain: 2 * index, mixes: true))
                readers.append(PlaybackFileReader(file: file, ring: ring, serverRate: client.sampleRate, quality: quality))
            }
            for file in files where mix == nil {
                let blockBytes = PlaybackRing.blockByteCount(channels: file.channels)
                let ring = RingBuffer(capacity: blocks * blockBytes)
                let portCount = spreadsMonoToStereo && file.channels == 1 ? 2 : file.channels
                sources.append(PlaybackSourceState(ring: ring, channels: file.channels, firstPort: ports.count,
                                                   portCount: portCount, blockBytes: blockBytes))
                readers.append(PlaybackFileReader(file: file, ring: ring, serverRate: client.sampleRate, quality: quality))
                for _ in 0..<portCount {
                    let index = ports.count
                    let name = portNames.flatMap { index < $0.count ? $0[index] : nil } ?? "out_\(index + 1)"
                    ports.append(try client.registerAudioOutput(named: name))
                }
            }
        } catch {
            for source in sources { source.ring.deallocate() }
            host.close()
            throw .capture(.jack(error))
        }
        let state = PlayerStatePointer(allocatingFor: PlayerProcessState(
            client: client.handle, ports: ports, sources: sources,
            rampFrames: Player.rampFrames(sampleRate: client.sampleRate), gainCount: mix.map { _ in 2 * sources.count }))
        let (gain, metering, seek, loops, withRate, rate) = control.withLock {
            $0.mix = mix
            return ($0.gain, $0.metering, $0.seekRequest, $0.loops, $0.rateEnabled, $0.playbackRate)
        }
        Player.storeGains(in: state, volume: gain.volume, pan: gain.pan, mix: mix)
        let meters = ChannelMeters(accumulators: state.pointee.meters, sampleRate: client.sampleRate)
        state.pointee.meteringEnabled.store(metering, ordering: .relaxed)
        let readerRate = withRate ? rate : .normal
        state.pointee.rateTenThousandths.store(readerRate.tenThousandths, ordering: .relaxed)
        state.pointee.seek.store(seek.packed, ordering: .relaxed)
        state.pointee.own.pointee.generation = seek.generation
        state.pointee.own.pointee.position = seek.frame
        state.pointee.position.store(seek.frame, ordering: .relaxed)
        state.pointee.numberOfLoops.store(loops, ordering: .relaxed)
        // The rings filled ahead before the callback runs.
        let reading = PlaybackReaderLoop(readers: readers)
        reading.fillAhead(seek: seek, numberOfLoops: loops, rate: readerRate)
        if let refused = reading.converterError {
            host.close()
            state.free()
            throw .capture(refused)
        }
        let callbacks = JackCallbacks(process: playerProcessCallback, argument: state.raw,
                                      xrun: playerXrunCallback, shutdown: playerShutdownCallback)
        do {
            try host.activate(callbacks, freeProcessState: { state.free() })
        } catch {
            host.close()
            throw .capture(.jack(error))
        }
        let names = ports.map { client.fullName(of: $0) }
        let butler = Butler(name: "jcap player reader",
                            idleWait: Butler.idleWait(periodFrames: client.bufferSize, sampleRate: client.sampleRate))
        control.withLock {
            $0.preparedWithRate = withRate
            $0.serverRate = client.sampleRate
            $0.host = host
            $0.state = state
            $0.butler = butler
            $0.channelMeters = meters
            $0.portNames = names
        }
        do {
            try connect(names, outputs: outputs, host: host)
        } catch {
            close()
            throw error
        }
        let round = PlayerReaderRound(state: state, reading: reading, host: host, butler: butler)
        // Weak: a player let go of without `close()` closes in its deinit, which may then run on
        // the butler (the host does not join a butler from its own thread).
        host.run(butler) { [weak self] in
            guard let self else { return .idle }
            return round.run(for: self)
        }
    }

    private func connect(_ names: [String], outputs: PlayerOutputs, host: JackHost) throws(PlayerError) {
        let destinations: [String]
        do { destinations = try host.destinations(for: outputs) } catch { throw .capture(error) }
        var made: [[String]] = names.map { _ in [] }
        for (index, (source, destination)) in zip(names, destinations).enumerated() {
            do { try host.client.connect(source, to: destination) } catch { throw .capture(.jack(error)) }
            made[index] = [destination]
        }
        control.withLock { $0.connections = made }
    }

    /// Stops the reader, then deactivates and closes the JACK client (`JackHost.close`, in that
    /// order). Safe to call more than once; the player cannot play again after it.
    public func close() {
        let host = control.withLock { control -> JackHost? in
            defer { control.host = nil; control.state = nil; control.butler = nil; control.channelMeters = nil }
            return control.host
        }
        host?.close()
    }

    // MARK: Playing

    /// Starts playing in the next cycle, from `currentTime`.
    public func play() throws(PlayerError) {
        try send(.playNow)
    }

    /// Starts playing on JACK frame `frame` exactly: the frame at `currentTime` goes out on it.
    /// A frame JACK's clock has passed is refused (`startInPast`).
    public func play(atFrame frame: UInt32) throws(PlayerError) {
        try prepareIfNeeded()
        guard let host = control.withLock({ $0.host }) else { return }
        let now = host.client.estimatedFrameTime
        guard FrameTime.distance(from: now, to: frame) > 0 else {
            throw .capture(.startInPast("@\(frame) (JACK's clock is at \(now))"))
        }
        try send(.playAtFrame, frame: frame)
    }

    /// Starts playing at `time` on the device's clock (`deviceCurrentTime`), on the first frame
    /// at or after it, decided in that moment's cycle (as a recording's wall-clock start is). A time that
    /// has passed starts in the next cycle.
    public func play(atTime time: TimeInterval) throws(PlayerError) {
        guard time.isFinite else { throw .capture(.badTime("\(time)", reason: "a start time must be a finite number of seconds")) }
        try prepareIfNeeded()
        guard time > deviceCurrentTime else { return try play() }
        try send(.playAtClock, clockNanoseconds: Int64((time * 1e9).rounded()))
    }

    /// Starts at a moment on JACK's clock in nanoseconds (`WallClockToJack` converts a wall-clock
    /// time to it).
    public func play(atJackNanoseconds nanoseconds: Int64) throws(PlayerError) {
        try send(.playAtClock, clockNanoseconds: nanoseconds)
    }

    /// Moves a start asked for with `play(atJackNanoseconds:)` and not yet decided to a fresher
    /// conversion of the same wall-clock moment (a caller waiting for a wall-clock start calls it
    /// now and then, so NTP's slewing over the wait does not count). Once the callback has decided
    /// the frame, this changes nothing.
    public func updateClockStart(_ nanoseconds: Int64) {
        control.withLock {
            guard let state = $0.state, $0.playRequested, state.pointee.startedFrame.load(ordering: .relaxed) < 0 else { return }
            state.pointee.clockStart.store(nanoseconds, ordering: .relaxed)
        }
    }

    /// Stops sending audio from the next cycle; `currentTime` stays where playing stopped.
    public func pause() {
        guard control.withLock({ $0.host != nil }) else { return }
        try? send(.pause)
    }

    /// The same as `pause()`: the position is kept (AVAudioPlayer's stop keeps `currentTime`
    /// too); the client stays open until `close()`.
    public func stop() { pause() }

    /// Whether playing was asked for (also while waiting for a start frame) and has not ended.
    public var isPlaying: Bool { control.withLock { $0.playRequested } }

    /// The JACK clock, in seconds (`jack_get_time`): the clock `play(atTime:)` takes.
    public var deviceCurrentTime: TimeInterval { Double(JackClient.currentTimeMicroseconds) / 1e6 }

    private func prepareIfNeeded() throws(PlayerError) {
        if control.withLock({ $0.host == nil }) { try prepareToPlay() }
    }

    private func send(_ kind: PlaybackRequest.Kind, frame: UInt32 = 0, clockNanoseconds: Int64 = 0) throws(PlayerError) {
        try prepareIfNeeded()
        let durationFrames = durationFrames
        let butler = control.withLock { control -> Butler? in
            guard let state = control.state else { return nil }
            if kind != .pause && state.pointee.phase.load(ordering: .relaxed) == PlaybackPhase.idle.rawValue
                && !control.playRequested && control.position(durationFrames: durationFrames) >= durationFrames {
                // At the end: from the start again.
                control.seek(to: 0)
            }
            if kind == .playAtClock { state.pointee.clockStart.store(clockNanoseconds, ordering: .relaxed) }
            control.commandSequence += 1
            control.finishedSeen = state.pointee.finishedCount.load(ordering: .acquiring)
            state.pointee.command.store(PlaybackRequest(sequence: control.commandSequence, kind: kind, frame: frame).packed,
                                        ordering: .releasing)
            control.playRequested = kind != .pause
            return control.butler
        }
        butler?.wake()
    }

    // MARK: Position

    /// The file frame that plays next (frame-exact `currentTime`). Set, also while playing: the
    /// next frame out is this one (clamped to the file's length).
    public var currentFrame: Int64 {
        get {
            let durationFrames = durationFrames
            return control.withLock { $0.position(durationFrames: durationFrames) }
        }
        set {
            let frame = min(max(newValue, 0), durationFrames)
            control.withLock { $0.seek(to: frame) }?.wake()
        }
    }

    /// Seconds into the file of the frame that plays next; set to seek (rounded to the nearest
    /// frame; beyond either end, that end; NaN is ignored).
    public var currentTime: TimeInterval {
        get { Double(currentFrame) / Double(fileSampleRate) }
        set {
            // NaN is no position: ignored. Beyond either end (infinities included): that end.
            guard !newValue.isNaN else { return }
            let frames = min(max(newValue * Double(fileSampleRate), 0), Double(durationFrames))
            currentFrame = Int64(frames.rounded())
        }
    }

    /// 0 plays once, n repeats n more times, any negative number forever. Read at each end of
    /// the file; a seek counts the repeats from there again.
    public var numberOfLoops: Int {
        get { control.withLock { $0.loops } }
        set {
            control.withLock {
                $0.loops = newValue
                $0.state?.pointee.numberOfLoops.store(newValue, ordering: .relaxed)
            }
        }
    }
}
