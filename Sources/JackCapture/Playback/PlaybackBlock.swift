/// The header of one block on a player's ring: the reader thread writes a block of up to
/// `PlaybackRing.blockFrames` interleaved frames after it, the process callback copies them out.
///
/// Every block takes the same room on the ring (`PlaybackRing.blockByteCount`) and the ring holds
/// a whole number of them, so a block never wraps around the ring's end.
///
/// Positions are file frames, frames are output frames: a block covers file frames
/// [position, endPosition) over `frames` output frames. Played as it is, the two spans are the
/// same length; through a converter (`rate`, or a file at another sample rate than the server's)
/// they are not, and `position(atOffset:)` says which file frame an output frame plays. A block
/// never spans a loop's wrap (the reader splits it there), so the span is always increasing.
struct PlaybackBlockHeader: Equatable {
    /// The seek generation the reader was serving when it read the block (`SeekRequest`): a block
    /// of an older generation is stale (read before a seek) and the callback drops it unplayed.
    var generation: Int64
    /// The file frame of the block's first frame.
    var position: Int64
    /// Output frames in the block (0 for the end block).
    var frames: Int64
    /// `endOfPlayback`: no more blocks of this generation follow (the file ended and no loop is
    /// left).
    var flags: Int64
    /// The file frame after the block's last frame.
    var endPosition: Int64

    static var endOfPlayback: Int64 { @_noAllocation @_noLocks get { 1 } }
    /// Bytes of the fields (the struct's size), copied to and from the ring.
    static var fieldByteCount: Int { @_noAllocation @_noLocks get { 40 } }
    /// Room the header takes on the ring: the five 8-byte fields padded to 48 bytes, so the
    /// samples after it start on a 16-byte boundary, as they did after the 32-byte header that
    /// had no `endPosition`.
    static var byteCount: Int { @_noAllocation @_noLocks get { 48 } }

    /// A block played as it is: `frames` output frames are file frames [position, position + frames).
    @_noAllocation @_noLocks
    init(generation: Int64, position: Int64, frames: Int64, flags: Int64 = 0) {
        self.init(generation: generation, position: position, endPosition: position + frames, frames: frames, flags: flags)
    }

    @_noAllocation @_noLocks
    init(generation: Int64, position: Int64, endPosition: Int64, frames: Int64, flags: Int64 = 0) {
        self.generation = generation
        self.position = position
        self.frames = frames
        self.flags = flags
        self.endPosition = endPosition
    }

    var isEnd: Bool { @_noAllocation @_noLocks get { flags & Self.endOfPlayback != 0 } }

    /// The file frame that output frame `offset` of the block plays (`offset` 0...frames; at
    /// `frames`, `endPosition`): position + (endPosition - position) × offset / frames, rounded
    /// down, in integers.
    @_noAllocation @_noLocks
    func position(atOffset offset: Int) -> Int64 {
        guard frames > 0 else { return endPosition }
        return position + (endPosition - position) * Int64(offset) / frames
    }
}

/// A player ring's geometry.
enum PlaybackRing {
    /// Frames in a full block.
    static var blockFrames: Int { @_noAllocation @_noLocks get { 4_096 } }

    /// Bytes one block takes on the ring for `channels` channels.
    @_noAllocation @_noLocks
    static func blockByteCount(channels: Int) -> Int {
        PlaybackBlockHeader.byteCount + blockFrames * channels * MemoryLayout<Float>.stride
    }

    /// Blocks on a ring holding at least `seconds` at `sampleRate` (at least 4).
    static func blockCount(seconds: Double, sampleRate: Int) -> Int {
        max(4, Int((seconds * Double(sampleRate) / Double(blockFrames)).rounded(.up)))
    }
}

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

/// What the reader does at the end of the file (`Player.numberOfLoops`).
enum LoopDecision: Equatable {
    /// Back to the file's first frame: the next block's first frame follows the last one.
    case rewind
    /// No loop left: the end block.
    case end

    /// - Parameters:
    ///   - numberOfLoops: 0 plays once, n repeats n more times, any negative number forever.
    ///   - loopsDone: repeats already begun.
    ///   - fileFrames: an empty file never loops (it would loop without end and without sound).
    static func atEndOfFile(numberOfLoops: Int, loopsDone: Int, fileFrames: Int64) -> LoopDecision {
        guard fileFrames > 0 else { return .end }
        return numberOfLoops < 0 || loopsDone < numberOfLoops ? .rewind : .end
    }
}

/// When a player asked to start on a JACK frame starts, decided in each cycle from the cycle's
/// first frame (`jack_last_frame_time`).
enum PlaybackStart: Equatable {
    /// The start frame is after this cycle.
    case later
    /// It falls in this cycle, this many frames after its first frame: those frames are silent.
    case inCycle(offset: Int)
    /// It had passed this many frames before the cycle's first frame: playing starts on that
    /// first frame (reported as a late start).
    case passed(by: Int)

    /// - Parameter firstCycle: whether this is the first cycle asked. A later cycle was preceded
    ///   by one that said `.later`, so a start before it can only be a frame JACK skipped (an
    ///   xrun): it starts on this cycle's first frame, not reported late.
    @_noAllocation @_noLocks
    static func decide(startFrame: UInt32, cycleFrame: UInt32, frames: Int, firstCycle: Bool) -> PlaybackStart {
        let distance = Int(Int32(bitPattern: startFrame &- cycleFrame))
        if distance >= frames { return .later }
        if distance >= 0 { return .inCycle(offset: distance) }
        return firstCycle ? .passed(by: -distance) : .inCycle(offset: 0)
    }
}
