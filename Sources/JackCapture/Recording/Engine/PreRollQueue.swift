/// A cycle the timeline has placed (its true first frame is known) but the planner has not yet
/// planned: while a take waits for its trigger (a level, the transport) with a pre-roll, the last
/// pre-roll's worth of cycles stay staged on the ring, unpublished, so that a start decided now can
/// begin up to a pre-roll earlier.
struct PlacedCycle: Equatable {
    /// Where the timeline put the cycle: its true first frame on JACK's clock, and how sure it is.
    var placement: CyclePlacement
    /// The cycle's true first frame in the take's time (less the alignment).
    var start: UInt32
    var cycle: PendingCycle

    /// The cycle's true first frame on JACK's clock.
    var arrival: UInt32 { @_noAllocation @_noLocks get { placement.start } }

    @_noAllocation @_noLocks
    init(placement: CyclePlacement, start: UInt32, cycle: PendingCycle) {
        self.placement = placement
        self.start = start
        self.cycle = cycle
    }
}

/// The placed cycles held for a pre-roll, oldest first, in memory allocated once (a ring of
/// `capacity` entries), so the process callback holds and releases them without allocating.
struct PreRollQueue {
    private let entries: UnsafeMutablePointer<PlacedCycle>
    let capacity: Int
    private var first = 0
    private(set) var count = 0
    /// Frames and staged ring bytes of the cycles held.
    private(set) var frames = 0
    private(set) var stagedBytes = 0

    /// Room for `capacity` cycles (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries = .allocate(capacity: self.capacity)
        entries.initialize(repeating: PlacedCycle(placement: CyclePlacement(start: 0), start: 0, cycle: PendingCycle(reading: 0, frames: 0)),
                           count: self.capacity)
    }

    func deallocate() { entries.deallocate() }

    /// Cycles a pre-roll of `frames` frames needs room for at periods of 16 frames or more (the
    /// shortest JACK allows), plus the cycle being decided.
    static func capacity(forPreRollFrames frames: Int) -> Int { frames > 0 ? frames / 16 + 2 : 1 }

    var isFull: Bool { @_noAllocation @_noLocks get { count == capacity } }

    @_noAllocation @_noLocks
    subscript(index: Int) -> PlacedCycle { entries[(first + index) % capacity] }

    @_noAllocation @_noLocks
    mutating func append(_ placed: PlacedCycle) {
        guard count < capacity else { return }
        entries[(first + count) % capacity] = placed
        count += 1
        frames += placed.cycle.frames
        stagedBytes += placed.cycle.stagedBytes
    }

    @_noAllocation @_noLocks
    mutating func removeOldest() -> PlacedCycle {
        let oldest = entries[first]
        first = (first + 1) % capacity
        count -= 1
        frames -= oldest.cycle.frames
        stagedBytes -= oldest.cycle.stagedBytes
        return oldest
    }

    @_noAllocation @_noLocks
    mutating func removeAll() {
        first = 0
        count = 0
        frames = 0
        stagedBytes = 0
    }

    /// Whether the oldest cycle can go: the others still hold `preRoll` frames.
    @_noAllocation @_noLocks
    func holdsMoreThan(_ preRoll: Int) -> Bool {
        count > 0 && (isFull || frames - self[0].cycle.frames >= preRoll)
    }
}
