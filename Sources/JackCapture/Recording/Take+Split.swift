import Foundation

/// A split take's wall-clock boundaries (`CaptureConfiguration.split`), as the take's event pump asks the process
/// callback for them one at a time, and the segments written so far.
///
/// The pump asks for the first boundary after the take's start as soon as the take is armed, and
/// for each next one once the process callback has placed the one before (so the callback never
/// holds more than one): the callback decides the boundary's frame in the cycle it falls in, from
/// that cycle's times (`ClockSplit`), the planner places it in the take, and the block that
/// carries it tells the disk writer where the next file begins. Every boundary is a moment of the
/// wall clock, converted to JACK's clock again at every wake of the pump (every 10 ms) until it
/// is placed, as a wall-clock start is (`WallClockToJack`): no drift between the sample clock and
/// the wall clock accumulates from one file to the next.
final class TakeSplitSchedule: Sendable {
    let interval: SplitInterval
    private let state = Locked(State())

    private struct State {
        /// Boundary n (from 1) at index n - 1, microseconds since the Unix epoch.
        var boundaries: [Int64] = []
        var finished: [TakeSegment] = []
        var delivered = 0
    }

    init(interval: SplitInterval) {
        self.interval = interval
    }

    /// The wall-clock moment of boundary `number` (1 for the take's first), once asked for.
    func boundaryMicroseconds(_ number: Int) -> Int64? {
        state.withLock { number >= 1 && number <= $0.boundaries.count ? $0.boundaries[number - 1] : nil }
    }

    /// Asks the callback for the next boundary when it has placed the last one, or converts the
    /// one it is waiting for again. `firstAfter` is the moment the first boundary must follow.
    func advance(engine: CaptureEngine, take: UInt32, firstAfter: () -> Int64) {
        let placed = engine.placedSplitBoundary(take: take)
        let (count, last) = state.withLock { ($0.boundaries.count, $0.boundaries.last) }
        var number = count
        var moment: Int64
        if let last, placed < count {
            moment = last
        } else {
            moment = last.map { interval.nextBoundary(following: $0, now: WallClockTime.nowMicrosecondsSinceEpoch()) }
                ?? interval.nextBoundary(after: firstAfter())
            number += 1
            state.withLock { $0.boundaries.append(moment) }
        }
        engine.requestSplit(take: take, boundary: Int64(number),
                            atJackNanoseconds: WallClockToJack.jackNanoseconds(atWallClockMicroseconds: moment))
    }

    func segmentFinished(_ segment: TakeSegment) {
        state.withLock { $0.finished.append(segment) }
    }

    /// The segments finished since the last call (one consumer).
    func takeFinishedSegments() -> [TakeSegment] {
        state.withLock { state in
            let new = Array(state.finished[state.delivered...])
            state.delivered = state.finished.count
            return new
        }
    }
}

extension Take {
    /// The interval a split take's files change at, nil when it is not split.
    public var splitInterval: SplitInterval? { split?.interval }

    /// The segments of a split take whose files were closed since the last call, in order (one
    /// consumer: jcap's console). Empty for a take that is not split.
    package func takeFinishedSegments() -> [TakeSegment] { split?.takeFinishedSegments() ?? [] }

    /// On the event pump, while the take is armed: keeps the callback's next boundary asked for.
    func advanceSplit() {
        guard let split else { return }
        split.advance(engine: engine, take: number) {
            // The first boundary follows the start. A wall-clock start is exact; otherwise the
            // estimate is held a second early: a boundary before the take's first frame cuts
            // nothing, one missed would leave a file a whole interval long.
            if let start = scheduledWallClockStart { return start }
            if let frame = scheduledStart { return Take.wallClockMicroseconds(ofFrame: frame, on: jack) - 1_000_000 }
            return WallClockTime.nowMicrosecondsSinceEpoch() - 1_000_000
        }
    }

    /// The wall-clock moment (microseconds since the Unix epoch) of a JACK frame: JACK's clock for
    /// the frame (jack_frames_to_time), moved by the offset between the wall clock and JACK's
    /// clock now.
    package static func wallClockMicroseconds(ofFrame frame: UInt32, on jack: JackClient) -> Int64 {
        Int64(jack.microseconds(atFrame: frame)) + WallClockToJack.wallMinusJackNanoseconds() / 1_000
    }

    /// The wall-clock moment a take told to start at `start` will start, as well as it is known
    /// before it starts (what a split take's first file is named for): a wall-clock start's own
    /// moment; a frame's time by JACK's clock; now, or now plus a delay.
    package static func estimatedStartMicroseconds(_ start: StartTime?, on jack: JackClient,
                                                  now: Int64 = WallClockTime.nowMicrosecondsSinceEpoch()) -> Int64 {
        switch start {
        case nil:
            return now
        case .afterReady(let delay)?:
            let frames = (try? delay.frames(atSampleRate: jack.sampleRate)) ?? 0
            return now + frames * 1_000_000 / Int64(max(1, jack.sampleRate))
        case .frame(let frame)?:
            return wallClockMicroseconds(ofFrame: frame, on: jack)
        case let clockStart?:
            return clockStart.wallClockMicroseconds(now: now) ?? now
        }
    }
}
