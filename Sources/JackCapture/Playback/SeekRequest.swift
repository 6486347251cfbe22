/// A seek asked of the reader and the callback: a generation number and the file frame to play
/// next, packed in one 64-bit word so both are read together (the generation in the top 16 bits,
/// the frame in the low 48: 2^48 frames is 185 years at 48 kHz).
struct SeekRequest: Equatable {
    var generation: Int64
    var frame: Int64

    static var frameBits: Int64 { @_noAllocation @_noLocks get { 48 } }
    static var frameMask: Int64 { @_noAllocation @_noLocks get { (1 << 48) - 1 } }

    @_noAllocation @_noLocks
    init(generation: Int64, frame: Int64) {
        self.generation = generation & 0xFFFF
        self.frame = min(max(frame, 0), Self.frameMask)
    }

    @_noAllocation @_noLocks
    init(packed: Int64) {
        generation = (packed >> Self.frameBits) & 0xFFFF
        frame = packed & Self.frameMask
    }

    var packed: Int64 { @_noAllocation @_noLocks get { (generation << Self.frameBits) | frame } }

    /// The frame of a seek "from the frame playing when the callback takes the seek" (a rate
    /// change while playing): the callback keeps its position and publishes it
    /// (`PlayerProcessState.resumedSeek`), and the reader reads from there, so no frame plays
    /// twice and none is skipped.
    static var fromPlayingFrame: Int64 { @_noAllocation @_noLocks get { frameMask } }

    var isFromPlayingFrame: Bool { @_noAllocation @_noLocks get { frame == Self.fromPlayingFrame } }

    /// The request after this one, to `frame`.
    @_noAllocation @_noLocks
    func next(to frame: Int64) -> SeekRequest {
        SeekRequest(generation: (generation + 1) & 0xFFFF, frame: frame)
    }

    /// Whether a block of `blockGeneration` was read before the seek to `current` (16-bit
    /// generations compared modulo 2^16): stale, dropped. A block of a later generation (the
    /// reader saw a seek the callback has not loaded yet) is not stale: it waits.
    @_noAllocation @_noLocks
    static func isStale(blockGeneration: Int64, current: Int64) -> Bool {
        Int16(truncatingIfNeeded: blockGeneration &- current) < 0
    }
}
