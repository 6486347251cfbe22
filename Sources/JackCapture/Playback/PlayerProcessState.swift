import Atomics
import CJack

/// One file's share of a player's process state: its ring and where its channels go.
struct PlaybackSourceState {
    let ring: RingBuffer
    let channels: Int
    /// The index of its first output port in `PlayerProcessState.ports`.
    let firstPort: Int
    /// Its output ports: one per channel, or two for a mono file spread to stereo (both play
    /// channel 1, each with its pan gain).
    let portCount: Int
    /// `PlaybackRing.blockByteCount(channels:)`.
    let blockBytes: Int
    /// The index of its first gain in `PlayerProcessState.gains`: its ports' gains in order, or
    /// in a mix its left and right gains.
    let firstGain: Int
    /// Summed onto the mix's two ports (`PlaybackMix`) instead of played on ports of its own.
    let mixes: Bool

    init(ring: RingBuffer, channels: Int, firstPort: Int, portCount: Int, blockBytes: Int,
         firstGain: Int? = nil, mixes: Bool = false) {
        self.ring = ring
        self.channels = channels
        self.firstPort = firstPort
        self.portCount = portCount
        self.blockBytes = blockBytes
        self.firstGain = firstGain ?? firstPort
        self.mixes = mixes
    }
}

/// The callback's own cursor in one source's ring: touched only by the process callback.
struct PlaybackSourceCursor {
    /// Frames of the front block already played.
    var frontOffset = 0
    /// The source's end block (of the current generation) has been reached: it plays silence.
    var ended = false
    /// The file frame of the source's next frame out (from its blocks' positions), once it has
    /// played a frame since the last seek.
    var position: Int64 = 0

    @_noAllocation @_noLocks
    init() {}
}

/// The callback's own working state: touched only by the process callback.
struct PlayerCallbackState {
    var command: Int64 = 0
    /// A `PlaybackPhase` raw value.
    var phase = 0
    var startFrame: UInt32 = 0
    var startAsked = false
    var clockStartFrame: Int64 = -1
    var generation: Int64 = 0
    /// The file frame of the next frame out.
    var position: Int64 = 0
    /// Since a seek, until its first frame plays: a shortfall is the reader catching up with the
    /// seek, not an underrun.
    var seekFilling = false
    /// An underrun in progress: its first file frame (-1: none), JACK frame and length so far.
    var underrunPosition: Int64 = -1
    var underrunFrame: UInt32 = 0
    var underrunFrames = 0
}

/// What a player's process callback shares with other threads, at one address for the player's
/// life (the C callbacks reach it through a plain pointer). Every field is fixed before
/// activation or is an atomic; the callback's working state is behind `own` and `cursors`.
struct PlayerProcessState {
    let client: OpaquePointer
    let ports: UnsafeMutablePointer<OpaquePointer>
    let portCount: Int
    let sources: UnsafeMutablePointer<PlaybackSourceState>
    let sourceCount: Int
    let own: UnsafeMutablePointer<PlayerCallbackState>
    let cursors: UnsafeMutablePointer<PlaybackSourceCursor>
    /// Each port's gain as the callback applies it (callback only); in a mix, each source's
    /// left and right gains.
    let gains: UnsafeMutablePointer<GainRamp>
    /// Each gain's target (a Float's bits), set by the owner from volume and pan (and the mix).
    let targetGains: UnsafeMutablePointer<UnsafeAtomic<UInt32>>
    /// How many gains: one a port, or in a mix two a source.
    let gainCount: Int
    /// Frames a gain change ramps over.
    let rampFrames: Int

    // Written by the owner, read by the callback (and the reader).
    /// The packed `PlaybackRequest`.
    let command: UnsafeAtomic<Int64>
    /// For `.playAtClock`: the moment on JACK's clock, in nanoseconds.
    let clockStart: UnsafeAtomic<Int64>
    /// The packed `SeekRequest`: the reader and the callback each follow it.
    let seek: UnsafeAtomic<Int64>
    /// `Player.numberOfLoops`, read by the reader at each end of the file.
    let numberOfLoops: UnsafeAtomic<Int>
    /// Test hook: the reader sleeps this long (microseconds) after each block it reads.
    let readerDelayMicroseconds: UnsafeAtomic<Int>
    /// The rate the reader converts at, in ten-thousandths (`PlaybackRate`); 10 000 unless
    /// `Player.enableRate`. The owner changes it together with a seek, which the reader follows.
    let rateTenThousandths: UnsafeAtomic<Int>

    // Published by the callback.
    let phase: UnsafeAtomic<Int>
    let position: UnsafeAtomic<Int64>
    /// The seek generation `position` belongs to.
    let generation: UnsafeAtomic<Int64>
    /// For a seek from the playing frame (`SeekRequest.fromPlayingFrame`): the packed request
    /// with the frame the callback was at when it took it; -1 before any.
    let resumedSeek: UnsafeAtomic<Int64>
    /// Xruns the server reported while the player was open (jack_set_xrun_callback).
    let xruns: UnsafeAtomic<Int>
    /// The JACK frame the last start played its first frame on (-1 before).
    let startedFrame: UnsafeAtomic<Int64>
    /// Frames the last start was late by (its frame had passed before its first cycle).
    let lateStartFrames: UnsafeAtomic<Int64>
    /// Counts each time every source reached its end block: playing finished.
    let finishedCount: UnsafeAtomic<Int>
    let underrunFrames: UnsafeAtomic<Int>
    let seekSilenceFrames: UnsafeAtomic<Int>
    let serverGone: UnsafeAtomic<Bool>
    /// Levels of what each port played (after gain), as the recorder's meters measure them; read
    /// through `ChannelMeters`. Measured only with `meteringEnabled`.
    let meters: MeterAccumulators
    let meteringEnabled: UnsafeAtomic<Bool>
    /// Underruns, each a `PlaybackUnderrunRecord`, for the owner's thread.
    let events: RingBuffer
    let droppedEvents: UnsafeAtomic<Int>

    init(client: OpaquePointer, ports: [OpaquePointer], sources: [PlaybackSourceState], rampFrames: Int,
         gainCount: Int? = nil) {
        self.rampFrames = rampFrames
        let gainCount = gainCount ?? ports.count
        self.gainCount = gainCount
        gains = .allocate(capacity: max(gainCount, 1))
        gains.initialize(repeating: GainRamp(gain: 1), count: max(gainCount, 1))
        targetGains = .allocate(capacity: max(gainCount, 1))
        for index in 0..<max(gainCount, 1) {
            (targetGains + index).initialize(to: .create(Float(1).bitPattern))
        }
        self.client = client
        portCount = ports.count
        self.ports = .allocate(capacity: max(ports.count, 1))
        self.ports.initialize(from: ports, count: ports.count)
        sourceCount = sources.count
        self.sources = .allocate(capacity: max(sources.count, 1))
        self.sources.initialize(from: sources, count: sources.count)
        own = .allocate(capacity: 1)
        own.initialize(to: PlayerCallbackState())
        cursors = .allocate(capacity: max(sources.count, 1))
        cursors.initialize(repeating: PlaybackSourceCursor(), count: max(sources.count, 1))
        command = .create(0)
        clockStart = .create(0)
        seek = .create(0)
        numberOfLoops = .create(0)
        readerDelayMicroseconds = .create(0)
        rateTenThousandths = .create(PlaybackRate.unit)
        phase = .create(PlaybackPhase.idle.rawValue)
        position = .create(0)
        generation = .create(0)
        resumedSeek = .create(-1)
        xruns = .create(0)
        startedFrame = .create(-1)
        lateStartFrames = .create(0)
        finishedCount = .create(0)
        underrunFrames = .create(0)
        seekSilenceFrames = .create(0)
        serverGone = .create(false)
        events = RingBuffer(capacity: 4_096 * PlaybackUnderrunRecord.byteCount)
        droppedEvents = .create(0)
        meters = MeterAccumulators(channelCount: ports.count)
        meteringEnabled = .create(false)
    }

    func deallocate() {
        for index in 0..<sourceCount { sources[index].ring.deallocate() }
        for index in 0..<max(gainCount, 1) { targetGains[index].destroy() }
        targetGains.deallocate()
        gains.deallocate()
        ports.deallocate()
        sources.deallocate()
        own.deallocate()
        cursors.deallocate()
        events.deallocate()
        for atomic in [command, clockStart, seek, position, generation, resumedSeek, startedFrame, lateStartFrames] { atomic.destroy() }
        xruns.destroy()
        for atomic in [numberOfLoops, readerDelayMicroseconds, rateTenThousandths, phase, finishedCount, underrunFrames,
                       seekSilenceFrames, droppedEvents] { atomic.destroy() }
        serverGone.destroy()
        meters.deallocate()
        meteringEnabled.destroy()
    }
}

/// One underrun as the callback reports it: the reader had not supplied the frames in time, so
/// `frames` frames of silence went out from JACK frame `jackFrame`, where file frame `position`
/// should have played (it plays after the silence instead: nothing is repeated or skipped).
struct PlaybackUnderrunRecord {
    var position: Int64
    var jackFrame: Int64
    var frames: Int64

    static var byteCount: Int { @_noAllocation @_noLocks get { 24 } }

    @_noAllocation @_noLocks
    init(position: Int64, jackFrame: Int64, frames: Int64) {
        self.position = position
        self.jackFrame = jackFrame
        self.frames = frames
    }
}
