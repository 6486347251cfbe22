import Foundation
import JackCapture

/// What the server refused (a malformed or oversized message, a request without the token, a
/// wrong origin), for the console: every refusal counted, at most `linesPerSecond` of them told
/// line by line and the rest as one "N more refused" line at most once a second, so a flood of
/// garbage is a counter, not a flood of lines or of memory.
final class WebRemoteNotices: Sendable {
    private struct Store {
        var refused = 0
        var lines: [String] = []
        var windowStart = Date.distantPast
        var toldInWindow = 0
        var dropped = 0
        var lastSummary = Date.distantPast
    }

    private let store = Locked(Store())
    static let linesPerSecond = 8

    func refuse(_ line: String, now: Date = Date()) {
        store.withLock { store in
            store.refused += 1
            if now.timeIntervalSince(store.windowStart) >= 1 {
                store.windowStart = now
                store.toldInWindow = 0
            }
            if store.toldInWindow < Self.linesPerSecond {
                store.toldInWindow += 1
                store.lines.append(line)
            } else {
                store.dropped += 1
            }
        }
    }

    /// How many requests and messages were refused since the start.
    var refusedCount: Int { store.withLock { $0.refused } }

    /// The lines to tell since the last call.
    func takeLines(now: Date = Date()) -> [String] {
        store.withLock { store in
            var lines = store.lines
            store.lines.removeAll()
            if store.dropped > 0 && now.timeIntervalSince(store.lastSummary) >= 1 {
                lines.append("\(store.dropped) more refused")
                store.dropped = 0
                store.lastSummary = now
            }
            return lines
        }
    }
}
