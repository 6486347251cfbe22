import Foundation
import JackCapture

/// What every page is sent, made once per change for all of them: the state's JSON per
/// revision of the mailbox, the take list's JSON per change of the take log. Read from the
/// server's threads; the core's thread never waits here.
final class WebRemoteFeed: Sendable {
    let mailbox: ControlMailbox
    let takeLog: TakeLog
    let notices: WebRemoteNotices

    private struct Cache {
        var state: (revision: UInt64, text: String)?
        var scannedSequence: UInt64 = 0
        var takeLogRevision: UInt64 = 1
        var takes: (revision: UInt64, text: String)?
        var logStamp: LogStamp?
    }

    private let cache = Locked(Cache())

    init(mailbox: ControlMailbox, takeLog: TakeLog, notices: WebRemoteNotices) {
        self.mailbox = mailbox
        self.takeLog = takeLog
        self.notices = notices
    }

    /// The latest state as JSON, with its revision (nil before the first is published).
    func state() -> (revision: UInt64, text: String)? {
        let snapshot = mailbox.latest()
        guard let state = snapshot.state else { return nil }
        return cache.withLock { cache in
            if let cached = cache.state, cached.revision == snapshot.revision { return cached }
            let message = WebRemoteMessages.state(state, revision: snapshot.revision, refused: notices.refusedCount)
            let made = (snapshot.revision, Self.json(message))
            cache.state = made
            return made
        }
    }

    /// The take log file's size and modification time: a change the events do not tell (a take's
    /// first line written after its start was told, `jcap takes --mark` from another terminal).
    struct LogStamp: Equatable {
        var size: Int64
        var modified: timespec

        static func == (left: LogStamp, right: LogStamp) -> Bool {
            left.size == right.size && left.modified.tv_sec == right.modified.tv_sec && left.modified.tv_nsec == right.modified.tv_nsec
        }

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            size = Int64(info.st_size)
            modified = info.st_mtim
        }
    }

    /// The take list as JSON, with a revision that changes when the log does. A log that cannot be
    /// read just now (being written) keeps the last list; it is read again on the next call.
    func takes() -> (revision: UInt64, text: String)? {
        cache.withLock { cache in
            let (events, missed) = mailbox.events(after: cache.scannedSequence)
            if missed || events.contains(where: { WebRemoteMessages.changesTakeLog($0.event) }) { cache.takeLogRevision += 1 }
            let stamp = LogStamp(path: takeLog.path)
            if stamp != cache.logStamp {
                cache.logStamp = stamp
                cache.takeLogRevision += 1
            }
            if let last = events.last { cache.scannedSequence = last.sequence }
            if let cached = cache.takes, cached.revision == cache.takeLogRevision { return cached }
            guard let entries = try? takeLog.entries() else { return cache.takes }
            let made = (cache.takeLogRevision, Self.json(WebRemoteMessages.takes(entries)))
            cache.takes = made
            return made
        }
    }

    /// The events after `sequence` a page tells, as JSON (nil: none), and the last number read.
    func events(after sequence: UInt64) -> (last: UInt64, text: String?) {
        let (events, _) = mailbox.events(after: sequence)
        guard let last = events.last?.sequence else { return (sequence, nil) }
        let told = events.compactMap(WebRemoteMessages.event)
        return (last, told.isEmpty ? nil : Self.json(WebRemoteMessages.Events(events: told)))
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
