import Synchronization

/// What the server refused (a malformed or oversized message, a request without the token, a
/// wrong origin), for the console: counted, and a few lines kept until the run loop takes them,
/// so a flood of garbage is one counter, not a flood of lines or of memory.
final class WebRemoteNotices: Sendable {
    private struct Store {
        var refused = 0
        var lines: [String] = []
        var dropped = 0
    }

    private let store = Mutex(Store())
    static let linesKept = 8

    func refuse(_ line: String) {
        store.withLock { store in
            store.refused += 1
            if store.lines.count < Self.linesKept { store.lines.append(line) } else { store.dropped += 1 }
        }
    }

    /// How many requests and messages were refused since the start.
    var refusedCount: Int { store.withLock { $0.refused } }

    /// The lines kept since the last call, and a last one for those not kept.
    func takeLines() -> [String] {
        store.withLock { store in
            var lines = store.lines
            if store.dropped > 0 { lines.append("\(store.dropped) more refused") }
            store.lines.removeAll()
            store.dropped = 0
            return lines
        }
    }
}
