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
public final class Player: @unchecked Sendable {
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
    private let lock = NSLock()
    private weak var _delegate: PlayerDelegate?
    private var jack: JackClient?
    private var state: UnsafeMutablePointer<PlayerProcessState>?
    /// The meters of what the ports play, once prepared (`isMeteringEnabled`).
    private var channelMeters: ChannelMeters?
    private var metering = false
    private var readers: [PlaybackFileReader] = []
    private var readerThread: Thread?
    private let readerDone = DispatchSemaphore(value: 0)
    private let quit = ManagedAtomic<Bool>(false)
    private var commandSequence: Int64 = 0
    private var seekRequest = SeekRequest(generation: 0, frame: 0)
    private var playRequested = false
    private var loops = 0
    private var rateEnabled = false
    private var playbackRate = PlaybackRate.normal
    /// Whether `enableRate` was set when the player was prepared (what counts from then on).
    private var preparedWithRate = false
    private var serverRate: Int?
    private var recordedUnderruns: [PlaybackUnderrun] = []
    private var finishedSeen = 0
    private var reportedShutdown = false
    private var reportedShutdownInterruption = false
    private var recordedDecodeErrors: [PlayerError] = []
    private var recordedInterruptions: [PlayerInterruption] = []
    /// The reader thread's own: whether each output was connected at the last check, and when
    /// the next check is due.
    private var outputsConnected: [Bool] = []
    private var nextConnectionCheck: UInt64 = 0
    /// Full names of the output ports, once prepared.
    public private(set) var portNames: [String] = []
    /// The ports each output was connected to when prepared (empty: none).
    public private(set) var connections: [[String]] = []

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
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
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
                              spreadsMonoToStereo: Bool = false, portNames: [String]? = nil) throws(PlayerError) {
        guard lock.withLock({ jack == nil }) else { return }
        guard bufferSeconds.isFinite, bufferSeconds > 0 else { throw .capture(.badBufferLength(bufferSeconds)) }
        let client: JackClient
        do { client = try JackClient(name: clientName, server: server) } catch { throw .capture(.jack(error)) }
        do {
            // Rings as large as a recorder's of as many channels: refused the same way when they
            // do not fit in this machine's memory.
            _ = try MemoryBudget.current().ringByteCount(seconds: bufferSeconds, sampleRate: client.sampleRate,
                                                         period: client.bufferSize, channels: numberOfChannels)
        } catch {
            client.close()
            throw .capture(error)
        }
        var ports: [OpaquePointer] = []
        var sources: [PlaybackSourceState] = []
        var readers: [PlaybackFileReader] = []
        let blocks = PlaybackRing.blockCount(seconds: bufferSeconds, sampleRate: client.sampleRate)
        do {
            for file in files {
                let blockBytes = PlaybackRing.blockByteCount(channels: file.channels)
                let ring = RingBuffer(capacity: blocks * blockBytes)
                let portCount = spreadsMonoToStereo && file.channels == 1 ? 2 : file.channels
                sources.append(PlaybackSourceState(ring: ring, channels: file.channels, firstPort: ports.count,
                                                   portCount: portCount, blockBytes: blockBytes))
                readers.append(PlaybackFileReader(file: file, ring: ring, serverRate: client.sampleRate,
                                                  quality: lock.withLock { quality }))
                for _ in 0..<portCount {
                    let index = ports.count
                    let name = portNames.flatMap { index < $0.count ? $0[index] : nil } ?? "out_\(index + 1)"
                    ports.append(try client.registerAudioOutput(named: name))
                }
            }
        } catch {
            for source in sources { source.ring.deallocate() }
            client.close()
            throw .capture(.jack(error))
        }
        let state = UnsafeMutablePointer<PlayerProcessState>.allocate(capacity: 1)
        state.initialize(to: PlayerProcessState(client: client.handle, ports: ports, sources: sources,
                                                rampFrames: Player.rampFrames(sampleRate: client.sampleRate)))
        Player.storeGains(in: state, volume: lock.withLock { gain.volume }, pan: lock.withLock { gain.pan })
        let meters = ChannelMeters(accumulators: state.pointee.meters, sampleRate: client.sampleRate)
        state.pointee.meteringEnabled.store(lock.withLock { metering }, ordering: .relaxed)
        let (seek, loops, withRate, rate) = lock.withLock { (seekRequest, self.loops, rateEnabled, playbackRate) }
        let readerRate = withRate ? rate : .normal
        state.pointee.rateTenThousandths.store(readerRate.tenThousandths, ordering: .relaxed)
        state.pointee.seek.store(seek.packed, ordering: .relaxed)
        state.pointee.own.pointee.generation = seek.generation
        state.pointee.own.pointee.position = seek.frame
        state.pointee.position.store(seek.frame, ordering: .relaxed)
        state.pointee.numberOfLoops.store(loops, ordering: .relaxed)
        // The rings filled ahead before the callback runs.
        for reader in readers {
            while reader.fillOne(seek: seek, numberOfLoops: loops, rate: readerRate) {}
        }
        func discard() {
            client.close()
            state.pointee.deallocate()
            state.deinitialize(count: 1)
            state.deallocate()
        }
        if let refused = readers.lazy.compactMap(\.converterError).first {
            discard()
            throw .capture(refused)
        }
        let argument = UnsafeMutableRawPointer(state)
        client.setProcessCallback(playerProcessCallback, argument: argument)
        client.setShutdownCallback(playerShutdownCallback, argument: argument)
        client.setXrunCallback(playerXrunCallback, argument: argument)
        do {
            try client.activate()
        } catch {
            discard()
            throw .capture(.jack(error))
        }
        let names = ports.map { client.fullName(of: $0) }
        lock.withLock {
            preparedWithRate = withRate
            serverRate = client.sampleRate
            self.jack = client
            self.state = state
            self.readers = readers
            channelMeters = meters
            self.portNames = names
        }
        do {
            try connect(names, outputs: outputs, client: client)
        } catch {
            close()
            throw error
        }
        let thread = Thread { [self] in
            runReader()
            readerDone.signal()
        }
        thread.name = "jcap player reader"
        lock.withLock { readerThread = thread }
        thread.start()
    }

    private func connect(_ names: [String], outputs: PlayerOutputs, client: JackClient) throws(PlayerError) {
        let destinations: [String]
        switch outputs {
        case .none:
            destinations = []
        case .physical(let channels):
            let physical = client.audioPorts(flags: JackPortFlags(rawValue: JackPortIsInput.rawValue | JackPortIsPhysical.rawValue))
                .sorted(by: NaturalOrder.areInIncreasingOrder)
            if let channels {
                var chosen: [String] = []
                for channel in channels {
                    guard channel >= 1, channel <= physical.count else {
                        throw .capture(.noSuchChannel(channel, available: physical.count))
                    }
                    chosen.append(physical[channel - 1])
                }
                destinations = chosen
            } else {
                destinations = physical
            }
        case .ports(let patterns):
            let inputs = client.audioPorts(flags: JackPortIsInput)
            var chosen: [String] = []
            for pattern in patterns {
                let matches = PortPattern.matches(pattern, in: inputs)
                guard !matches.isEmpty else { throw .capture(.noPortMatches(pattern)) }
                chosen += matches.filter { !chosen.contains($0) }
            }
            destinations = chosen
        }
        var made: [[String]] = names.map { _ in [] }
        for (index, (source, destination)) in zip(names, destinations).enumerated() {
            do { try client.connect(source, to: destination) } catch { throw .capture(.jack(error)) }
            made[index] = [destination]
        }
        lock.withLock { connections = made }
    }

    /// Deactivates and closes the JACK client and stops the reader. Safe to call more than once;
    /// the player cannot play again after it.
    public func close() {
        let (client, state, thread) = lock.withLock { () -> (JackClient?, UnsafeMutablePointer<PlayerProcessState>?, Thread?) in
            defer { jack = nil; self.state = nil; readerThread = nil; channelMeters = nil }
            return (jack, self.state, readerThread)
        }
        guard let client, let state else { return }
        client.deactivate()
        client.close()
        quit.store(true, ordering: .releasing)
        if thread != nil { readerDone.wait() }
        state.pointee.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    // MARK: Metering, as AVAudioPlayer has it (channels are the output ports, 0-based)

    /// Whether the process callback measures what each port plays (after volume and pan), with
    /// the recorder's meters' scale and ballistics. Off by default, as in AVAudioPlayer.
    public var isMeteringEnabled: Bool {
        get { lock.withLock { metering } }
        set {
            lock.withLock {
                metering = newValue
                state?.pointee.meteringEnabled.store(newValue, ordering: .relaxed)
            }
        }
    }

    /// Takes in what was measured since the last call (AVAudioPlayer's `updateMeters`).
    public func updateMeters() {
        lock.withLock { channelMeters?.update() }
    }

    /// The average power of output port `channel` in dBFS, -160 (silence) to 0, as of the last
    /// `updateMeters()`; -160 before the player is prepared.
    public func averagePower(forChannel channel: Int) -> Float {
        lock.withLock { channelMeters.map { $0.averagePower(forChannel: channel) } ?? -160 }
    }

    /// The peak power of output port `channel` in dBFS, as `averagePower(forChannel:)`.
    public func peakPower(forChannel channel: Int) -> Float {
        lock.withLock { channelMeters.map { $0.peakPower(forChannel: channel) } ?? -160 }
    }

    /// Each output port's reading (average, peak, hold, highest peak, clips) for a display.
    public func meterReading(forChannel channel: Int) -> MeterReading {
        lock.withLock { channelMeters?.reading(forChannel: channel) } ?? .silent
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
        guard let jack = lock.withLock({ jack }) else { return }
        guard FrameTime.distance(from: jack.estimatedFrameTime, to: frame) > 0 else {
            throw .capture(.startInPast("@\(frame) (JACK's clock is at \(jack.estimatedFrameTime))"))
        }
        try send(.playAtFrame, frame: frame)
    }

    /// Starts playing at `time` on the device's clock (`deviceCurrentTime`), on the first frame
    /// at or after it, decided in that moment's cycle (as a wall-clock `--at` is). A time that
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
        lock.withLock {
            guard let state, playRequested, state.pointee.startedFrame.load(ordering: .relaxed) < 0 else { return }
            state.pointee.clockStart.store(nanoseconds, ordering: .relaxed)
        }
    }

    /// Stops sending audio from the next cycle; `currentTime` stays where playing stopped.
    public func pause() {
        guard lock.withLock({ jack != nil }) else { return }
        try? send(.pause)
    }

    /// The same as `pause()`: the position is kept (AVAudioPlayer's stop keeps `currentTime`
    /// too); the client stays open until `close()`.
    public func stop() { pause() }

    /// Whether playing was asked for (also while waiting for a start frame) and has not ended.
    public var isPlaying: Bool { lock.withLock { playRequested } }

    /// The JACK clock, in seconds (`jack_get_time`): the clock `play(atTime:)` takes.
    public var deviceCurrentTime: TimeInterval { Double(JackClient.currentTimeMicroseconds) / 1e6 }

    private func prepareIfNeeded() throws(PlayerError) {
        if lock.withLock({ jack == nil }) { try prepareToPlay() }
    }

    private func send(_ kind: PlayerCommand.Kind, frame: UInt32 = 0, clockNanoseconds: Int64 = 0) throws(PlayerError) {
        try prepareIfNeeded()
        lock.withLock {
            guard let state else { return }
            if kind != .pause && state.pointee.phase.load(ordering: .relaxed) == PlaybackPhase.idle.rawValue
                && !playRequested && positionWhileLocked() >= durationFrames {
                // At the end: from the start again.
                seekRequest = seekRequest.next(to: 0)
                state.pointee.seek.store(seekRequest.packed, ordering: .releasing)
            }
            if kind == .playAtClock { state.pointee.clockStart.store(clockNanoseconds, ordering: .relaxed) }
            commandSequence += 1
            finishedSeen = state.pointee.finishedCount.load(ordering: .acquiring)
            state.pointee.command.store(PlayerCommand(sequence: commandSequence, kind: kind, frame: frame).packed,
                                        ordering: .releasing)
            playRequested = kind != .pause
        }
    }

    // MARK: Position

    /// The file frame that plays next (frame-exact `currentTime`). Set, also while playing: the
    /// next frame out is this one (clamped to the file's length).
    public var currentFrame: Int64 {
        get { lock.withLock { positionWhileLocked() } }
        set {
            lock.withLock {
                seekRequest = seekRequest.next(to: min(max(newValue, 0), durationFrames))
                state?.pointee.seek.store(seekRequest.packed, ordering: .releasing)
            }
        }
    }

    private func positionWhileLocked() -> Int64 {
        guard let state else { return seekRequest.frame }
        // Until the callback has taken the last seek, the position is the seek's (for a seek
        // from the playing frame, the callback's).
        let position = state.pointee.position.load(ordering: .acquiring)
        guard seekRequest.isFromPlayingFrame || state.pointee.generation.load(ordering: .relaxed) == seekRequest.generation
        else { return seekRequest.frame }
        // The cycle the file ends in counts on past its end until the end is seen.
        return min(position, durationFrames)
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
        get { lock.withLock { loops } }
        set {
            lock.withLock {
                loops = newValue
                state?.pointee.numberOfLoops.store(newValue, ordering: .relaxed)
            }
        }
    }

    // MARK: Rate (varispeed)

    /// The resampler for `rate` and for files at another rate than the server's (libsamplerate's
    /// converters, as recording's `converterQuality`): `.best` unless set. Set it before
    /// `prepareToPlay`; later changes count for nothing. A lower quality costs the reader less
    /// (for many channels at a rate).
    public var converterQuality: SampleRateConverterQuality {
        get { lock.withLock { quality } }
        set { lock.withLock { quality = newValue } }
    }

    private var quality = SampleRateConverterQuality.best

    /// Whether `rate` applies, as AVAudioPlayer's `enableRate`: set it before `prepareToPlay`
    /// (or the first `play`); a change after that counts for nothing. Off by default.
    public var enableRate: Bool {
        get { lock.withLock { rateEnabled } }
        set { lock.withLock { rateEnabled = newValue } }
    }

    /// The playback rate, 0.5 (half speed) ... 2 (double speed), clamped as AVAudioPlayer clamps
    /// it, kept to 1/10 000 (1.23456 is 1.2346); 1 by default. Applies only with `enableRate`.
    /// Varispeed: pitch follows, as on tape (2 is an octave up). A file of F frames plays
    /// round(F / rate) frames; positions stay in the file's frames.
    ///
    /// Changed while prepared, it takes effect as a seek to the frame playing now: the reader
    /// restarts its converters there at the new rate, so while playing the frames already on
    /// the rings are dropped and a short silence (the reader catching up, typically a few ms;
    /// not counted as an underrun) comes before the file continues from that frame. The frame is
    /// the one due when the callback takes the change (it tells the reader), so no frame plays
    /// twice and none is skipped.
    public var rate: Float {
        get { lock.withLock { playbackRate.value } }
        set {
            lock.withLock {
                let changed = PlaybackRate(newValue)
                guard changed != playbackRate else { return }
                playbackRate = changed
                guard preparedWithRate, let state else { return }
                // While playing, from the frame the callback is at when it takes the seek (the
                // position read here would be a cycle or more behind by then); while not, from
                // where it stands.
                let here = playRequested ? SeekRequest.fromPlayingFrame : positionWhileLocked()
                // The rate before the seek that makes the reader read it (released with the seek).
                state.pointee.rateTenThousandths.store(changed.tenThousandths, ordering: .relaxed)
                seekRequest = seekRequest.next(to: here)
                state.pointee.seek.store(seekRequest.packed, ordering: .releasing)
            }
        }
    }

    /// The lowest and highest `rate`.
    public static var rateRange: ClosedRange<Float> { PlaybackRate.range }

    /// The JACK server's sample rate, once prepared: the rate the ports play at.
    public var deviceSampleRate: Int? { lock.withLock { serverRate } }

    // MARK: Volume and pan

    /// 0 (silent) ... 1 (the file as it is), clamped; NaN is ignored. Changed while playing, the gain moves in a
    /// straight line over `rampSeconds` (no click, no zipper noise).
    public var volume: Float {
        get { lock.withLock { gain.volume } }
        set {
            // NaN is no gain: ignored (it would play as NaN samples).
            guard !newValue.isNaN else { return }
            setGain(volume: min(max(newValue, 0), 1), pan: nil)
        }
    }

    /// -1 (left) ... 1 (right), clamped (NaN ignored): equal power for a mono file spread to two ports
    /// (`spreadsMonoToStereo`), balance for a stereo file, no effect on other layouts.
    public var pan: Float {
        get { lock.withLock { gain.pan } }
        set {
            guard !newValue.isNaN else { return }
            setGain(volume: nil, pan: min(max(newValue, -1), 1))
        }
    }

    /// How long a volume or pan change takes: 10 ms.
    public static let rampSeconds = 0.01

    static func rampFrames(sampleRate: Int) -> Int { Int((rampSeconds * Double(sampleRate)).rounded()) }

    private var gain: (volume: Float, pan: Float) = (1, 0)

    private func setGain(volume: Float?, pan: Float?) {
        lock.withLock {
            if let volume { gain.volume = volume }
            if let pan { gain.pan = pan }
            if let state { Player.storeGains(in: state, volume: gain.volume, pan: gain.pan) }
        }
    }

    /// Every port's target gain for `volume` and `pan` (`PanLaw`), for the callback to ramp to.
    private static func storeGains(in state: UnsafeMutablePointer<PlayerProcessState>, volume: Float, pan: Float) {
        for index in 0..<state.pointee.sourceCount {
            let source = state.pointee.sources[index]
            for port in 0..<source.portCount {
                let gain = PanLaw.gain(volume: volume, pan: pan, channels: source.channels, ports: source.portCount, port: port)
                state.pointee.targetGains[source.firstPort + port].store(gain.bitPattern, ordering: .relaxed)
            }
        }
    }

    // MARK: What happened

    /// Where the callback is.
    public var phase: PlaybackPhase {
        lock.withLock { state.flatMap { PlaybackPhase(rawValue: $0.pointee.phase.load(ordering: .relaxed)) } ?? .idle }
    }

    /// The JACK frame the last start played its first frame on.
    public var startedFrame: UInt32? {
        lock.withLock {
            guard let frame = state?.pointee.startedFrame.load(ordering: .relaxed), frame >= 0 else { return nil }
            return UInt32(frame)
        }
    }

    /// Frames the last start came late (its frame had passed before the callback saw it).
    public var lateStartFrames: Int {
        lock.withLock { Int(state?.pointee.lateStartFrames.load(ordering: .relaxed) ?? 0) }
    }

    /// Frames of silence played because the reader fell behind.
    public var underrunFrames: Int {
        lock.withLock { state?.pointee.underrunFrames.load(ordering: .relaxed) ?? 0 }
    }

    /// Xruns the server reported since the player was prepared.
    public var xruns: Int { lock.withLock { state?.pointee.xruns.load(ordering: .relaxed) ?? 0 } }

    /// How full the reader keeps the rings: the emptiest file's ring, 0 ... 1 (1 before the
    /// player is prepared would claim audio there is none: 0).
    public var bufferFill: Double {
        lock.withLock {
            guard let state else { return 0 }
            var lowest = 1.0
            for index in 0..<state.pointee.sourceCount {
                let ring = state.pointee.sources[index].ring
                lowest = min(lowest, Double(ring.readableByteCount()) / Double(max(1, ring.capacity)))
            }
            return lowest
        }
    }

    /// Each file that stopped decoding (`.decodeFailed`), as the delegate was told.
    public var decodeErrors: [PlayerError] { lock.withLock { recordedDecodeErrors } }

    /// Each interruption, as the delegate was told.
    public var interruptions: [PlayerInterruption] { lock.withLock { recordedInterruptions } }

    /// Each underrun, once it has ended.
    public var underruns: [PlaybackUnderrun] { lock.withLock { recordedUnderruns } }

    /// The name the server gave the client, once prepared.
    public var clientName: String? { lock.withLock { jack?.name } }

    /// JACK's frame time now, estimated (jack_frame_time); 0 before `prepareToPlay`.
    public var estimatedFrameTime: UInt32 { lock.withLock { jack?.estimatedFrameTime ?? 0 } }

    /// The process thread (for the allocation tests).
    package var processThread: pthread_t? { lock.withLock { jack?.processThread } }

    /// Test hook: the reader sleeps this long after each block it reads, so it falls behind.
    package var readerDelayMicroseconds: Int {
        get { lock.withLock { state?.pointee.readerDelayMicroseconds.load(ordering: .relaxed) ?? 0 } }
        set { lock.withLock { state?.pointee.readerDelayMicroseconds.store(newValue, ordering: .relaxed) } }
    }

    // MARK: The reader thread

    private func runReader() {
        guard let (state, readers) = lock.withLock({ self.state.map { ($0, self.readers) } }) else { return }
        while !quit.load(ordering: .acquiring) {
            var seek = SeekRequest(packed: state.pointee.seek.load(ordering: .acquiring))
            if seek.isFromPlayingFrame {
                // Read from the frame the callback was at when it took the seek, once it has.
                let resumed = state.pointee.resumedSeek.load(ordering: .acquiring)
                guard resumed >= 0, SeekRequest(packed: resumed).generation == seek.generation else {
                    drainEvents(state)
                    usleep(1_000)
                    continue
                }
                seek = SeekRequest(packed: resumed)
            }
            let loops = state.pointee.numberOfLoops.load(ordering: .relaxed)
            let rate = PlaybackRate(tenThousandths: state.pointee.rateTenThousandths.load(ordering: .relaxed))
            var worked = false
            for reader in readers where reader.fillOne(seek: seek, numberOfLoops: loops, rate: rate) {
                worked = true
                let delay = state.pointee.readerDelayMicroseconds.load(ordering: .relaxed)
                if delay > 0 { usleep(useconds_t(delay)) }
            }
            drainEvents(state)
            reportDecodeErrors(readers)
            watchConnections(state)
            checkFinished(state, readers: readers)
            if !worked { usleep(2_000) }
        }
    }

    private func drainEvents(_ state: UnsafeMutablePointer<PlayerProcessState>) {
        let events = state.pointee.events
        while events.readableByteCount() >= PlaybackUnderrunRecord.byteCount {
            var record = PlaybackUnderrunRecord(position: 0, jackFrame: 0, frames: 0)
            withUnsafeMutableBytes(of: &record) { events.peek(into: $0.baseAddress!, byteCount: PlaybackUnderrunRecord.byteCount, at: 0) }
            events.commitRead(byteCount: PlaybackUnderrunRecord.byteCount)
            let underrun = PlaybackUnderrun(position: record.position, jackFrame: UInt32(truncatingIfNeeded: record.jackFrame),
                                            frames: Int(record.frames))
            let delegate = lock.withLock { () -> PlayerDelegate? in
                recordedUnderruns.append(underrun)
                return _delegate
            }
            delegate?.player(self, didUnderrun: underrun)
        }
    }

    /// Tells the delegate of each file that stopped decoding, once.
    private func reportDecodeErrors(_ readers: [PlaybackFileReader]) {
        for (reader, url) in zip(readers, urls) {
            guard let failure = reader.failure else { continue }
            let error = PlayerError.decodeFailed(url.path, frame: failure.frame, reason: failure.reason)
            let delegate = lock.withLock { () -> PlayerDelegate?? in
                guard !recordedDecodeErrors.contains(error) else { return nil }
                recordedDecodeErrors.append(error)
                return .some(_delegate)
            }
            if let delegate { delegate?.playerDecodeErrorDidOccur(self, error: error) }
        }
    }

    /// Every tenth of a second: an output port that was connected and has lost its last
    /// connection is an interruption (jack_port_connected, off the process thread).
    private func watchConnections(_ state: UnsafeMutablePointer<PlayerProcessState>) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= nextConnectionCheck, let jack = lock.withLock({ jack }) else { return }
        nextConnectionCheck = now + 100_000_000
        for index in 0..<state.pointee.portCount {
            let connected = jack.connectionCount(of: state.pointee.ports[index]) > 0
            let was = index < outputsConnected.count ? outputsConnected[index] : connected
            if index < outputsConnected.count { outputsConnected[index] = connected } else { outputsConnected.append(connected) }
            guard was && !connected else { continue }
            let name = lock.withLock { index < portNames.count ? portNames[index] : "out_\(index + 1)" }
            interrupt(.outputDisconnected(name))
        }
    }

    private func interrupt(_ interruption: PlayerInterruption) {
        let delegate = lock.withLock { () -> PlayerDelegate? in
            recordedInterruptions.append(interruption)
            return _delegate
        }
        delegate?.player(self, wasInterrupted: interruption)
    }

    private func checkFinished(_ state: UnsafeMutablePointer<PlayerProcessState>, readers: [PlaybackFileReader]) {
        let finished = state.pointee.finishedCount.load(ordering: .acquiring)
        let gone = state.pointee.serverGone.load(ordering: .acquiring)
        let report = lock.withLock { () -> (PlayerDelegate?, Bool)? in
            if gone && !reportedShutdown {
                reportedShutdown = true
                let wasPlaying = playRequested
                playRequested = false
                return wasPlaying ? (_delegate, false) : nil
            }
            guard finished != finishedSeen, playRequested else { return nil }
            finishedSeen = finished
            playRequested = false
            // At the end, back to the start (AVAudioPlayer's currentTime is 0 after it).
            seekRequest = seekRequest.next(to: 0)
            state.pointee.seek.store(seekRequest.packed, ordering: .releasing)
            return (_delegate, !readers.contains { $0.failed })
        }
        if gone && !reportedShutdownInterruption {
            reportedShutdownInterruption = true
            interrupt(.serverShutDown)
        }
        if let (delegate, successfully) = report {
            delegate?.playerDidFinishPlaying(self, successfully: successfully)
        }
    }
}
