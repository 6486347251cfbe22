import JackCapture

/// What one page's own messages were refused for, until its sender tells it: a few kept, the
/// rest dropped (a page flooding garbage gets no flood back).
final class WebRemoteReplies: Sendable {
    private let lines = Locked<[String]>([])
    static let kept = 4

    func add(_ line: String) {
        lines.withLock { if $0.count < Self.kept { $0.append(line) } }
    }

    func take() -> [String] {
        lines.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }
}
