import Foundation

/// Hears from a player's delegate calls that playing finished, for the thread that polls.
final class PlaybackFinishWaiter: PlayerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var finished: Bool?

    /// Nil while playing; true when it played to the end, false when the server went away or a
    /// file could not be read further.
    var outcome: Bool? { lock.withLock { finished } }

    func playerDidFinishPlaying(_ player: Player, successfully: Bool) {
        lock.withLock { finished = successfully }
    }
}
