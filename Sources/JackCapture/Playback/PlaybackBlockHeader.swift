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
