import Foundation

/// What the core keeps of each track's meter from one read to the next: a clip latched until
/// `clearClips()` (from the moment the session opens, not only in a take), and how long each
/// track has been silent, so a dead track (`DeadTrack`) is told from a quiet one.
final class TrackWatch {
    private var latched: [Bool] = []
    private var clipCounts: [Int64] = []
    private var silentSince: [Date?] = []
    private var clearRequested = false
    private var meteredFrames: Int64 = -1
    /// The tracks dead at the last look, for telling changes.
    private(set) var dead: [DeadTrack?] = []

    /// Every latch cleared at the next look (what has clipped since stays latched).
    func clearClips() { clearRequested = true }

    /// Sets each meter's `clipped` and `dead`: `connected` says whether each track's input has a
    /// connection, `recentPeaks` its loudest sample in the frames metered since the last look
    /// (dBFS), `meteredFrames` how many frames have been metered in all (no new frames: the
    /// peaks are old news, and a clip in them is not latched again after a clear). Returns the
    /// tracks whose deadness changed, with their state now.
    func watch(_ meters: inout [ControlState.TrackMeter], connected: [Bool], recentPeaks: [Float],
               meteredFrames frames: Int64, now: Date = Date()) -> [(index: Int, dead: DeadTrack?)] {
        let fresh = frames != meteredFrames
        meteredFrames = frames
        let count = meters.count
        if latched.count != count {
            latched = Array(repeating: false, count: count)
            clipCounts = Array(repeating: 0, count: count)
            silentSince = Array(repeating: nil, count: count)
            dead = Array(repeating: nil, count: count)
        }
        if clearRequested {
            clearRequested = false
            latched = Array(repeating: false, count: count)
        }
        let carriesSignal = recentPeaks.map { $0 >= DeadTrack.level }
        // Counted once: asking each track whether any other carries signal went through all the
        // others for each, a million steps a pass for 1024 silent tracks.
        let carrying = carriesSignal.reduce(0) { $0 + ($1 ? 1 : 0) }
        var changes: [(Int, DeadTrack?)] = []
        for index in 0..<count {
            let reading = meters[index].reading
            // A count that rose (or fell: a new take) or a peak at full scale latches.
            if reading.clipCount != clipCounts[index] {
                if reading.clipCount > clipCounts[index] { latched[index] = true }
                clipCounts[index] = reading.clipCount
            }
            // The peak meter's own value falls slowly from a clip: only samples count.
            if fresh && index < recentPeaks.count && recentPeaks[index] >= 0 { latched[index] = true }
            meters[index].clipped = latched[index]

            let silent = index < recentPeaks.count && !carriesSignal[index]
            if !silent { silentSince[index] = nil } else if silentSince[index] == nil { silentSince[index] = now }
            let othersCarry = carrying - (index < carriesSignal.count && carriesSignal[index] ? 1 : 0) > 0
            var state: DeadTrack?
            if index < connected.count && !connected[index] {
                state = .unpatched
            } else if let since = silentSince[index], now.timeIntervalSince(since) >= DeadTrack.seconds, othersCarry {
                state = .silent
            }
            meters[index].dead = state
            if state != dead[index] {
                dead[index] = state
                changes.append((index, state))
            }
        }
        return changes
    }
}
