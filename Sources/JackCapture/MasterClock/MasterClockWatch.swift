/// Follows a take's frames on the master's clock (`MasterTimecode`), cycle by cycle as they are
/// placed: the offset D from this server's frame time to the master's, from the timecode each
/// cycle carries, against the offset the take started with.
///
/// A constant D is the link's offset, and every frame of the take sits at its start frame plus D
/// plus its position on the master's clock. A change of D is a jump of the master's frames
/// against the file's (an xrun on the master, a link dropout: the master's frames the file does
/// not hold), exact to the frame; the frames after it sit at the new D. A cycle whose timecode
/// does not decode is on no known master frame.
struct MasterClockWatch {
    /// What one placed cycle's timecode says.
    enum Observation: Equatable {
        /// At the offset the take has had.
        case steady
        /// The master's frames moved on by this many more frames than the file's (fewer when
        /// negative): the offset from here on.
        case jumped(Int64)
        /// The timecode did not decode: the cycle's place on the master's clock is unknown.
        case unreadable
    }

    /// The offset the take has now (master frame time less this server's), once known.
    private(set) var offset: UInt32?

    /// Starts at `offset` (the one the take's start was resolved with), or at the first offset
    /// read when nil.
    @_noAllocation @_noLocks
    init(offset: UInt32? = nil) {
        self.offset = offset
    }

    /// A placed cycle that began on this server's frame `start` and whose timecode named
    /// `masterFrame` for its first frame (nil: it did not decode).
    @_noAllocation @_noLocks
    mutating func observe(start: UInt32, masterFrame: UInt32?) -> Observation {
        guard let masterFrame else { return .unreadable }
        let now = masterFrame &- start
        guard let offset else {
            self.offset = now
            return .steady
        }
        guard now != offset else { return .steady }
        self.offset = now
        return .jumped(Int64(FrameTime.distance(from: offset, to: now)))
    }
}
