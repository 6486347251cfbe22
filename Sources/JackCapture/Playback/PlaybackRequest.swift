/// What the player's owner last asked the process callback, in one 64-bit word: a sequence
/// number (so the same request twice is two requests), a kind and, to start on a frame, the
/// frame. The callback acts on a word it has not seen before.
struct PlaybackRequest: Equatable {
    enum Kind: Int64 {
        /// Stop sending audio; the position stays where it is.
        case pause = 0
        /// Start in the next cycle, on its first frame.
        case playNow = 1
        /// Start on `frame` (JACK's frame time).
        case playAtFrame = 2
        /// Start on the frame the moment in `PlayerProcessState.clockStart` falls on, decided in
        /// that moment's cycle (`ClockStart`).
        case playAtClock = 3
    }

    var sequence: Int64
    var kind: Kind
    var frame: UInt32

    @_noAllocation @_noLocks
    init(sequence: Int64, kind: Kind, frame: UInt32 = 0) {
        self.sequence = sequence & 0xFF_FFFF
        self.kind = kind
        self.frame = frame
    }

    @_noAllocation @_noLocks
    init(packed: Int64) {
        sequence = (packed >> 40) & 0xFF_FFFF
        kind = Kind(rawValue: (packed >> 32) & 0xF) ?? .pause
        frame = UInt32(truncatingIfNeeded: packed)
    }

    var packed: Int64 {
        @_noAllocation @_noLocks get { (sequence << 40) | (kind.rawValue << 32) | Int64(frame) }
    }
}
