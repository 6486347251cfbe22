import Foundation
import Synchronization

/// A surface for surfaces that live on other threads (a web server's): they `post` commands and
/// read the core's latest state and recent events; the run loop's `poll`, on the core's thread,
/// applies the commands and publishes the state. Nothing here waits on the other threads longer
/// than a copy under a lock, and nothing grows without bound: the queue of commands is bounded
/// (a full one refuses), the events are a ring that forgets the oldest, and the state is only
/// ever the latest.
public final class ControlMailbox: ControlSurface, Sendable {
    /// The core's state as last published, and how many times it has been published.
    public struct Snapshot: Sendable {
        /// 0 until the first state is published.
        public let revision: UInt64
        public let state: ControlState?
    }

    /// An event as the core told it, numbered from 1 in the order told.
    public struct NumberedEvent: Sendable {
        public let sequence: UInt64
        public let event: ControlEvent

        package init(sequence: UInt64, event: ControlEvent) {
            self.sequence = sequence
            self.event = event
        }
    }

    /// The commands waiting; more are refused.
    public let commandCapacity: Int
    /// The events kept for readers that come late; older ones are forgotten.
    public let eventCapacity: Int
    /// The state is published at least this often (seconds) while nothing happens, and at once
    /// after a command or an event.
    public let publishInterval: TimeInterval

    private struct Inbox {
        var commands: [ControlCommand] = []
        var refused = 0
    }

    private struct Outbox {
        var revision: UInt64 = 0
        var state: ControlState?
        var events: [NumberedEvent] = []
        var lastSequence: UInt64 = 0
        var lastPublished = Date.distantPast
        var publishSoon = true
    }

    // `Locked`: a Synchronization `Mutex` that ThreadSanitizer sees.
    private let inbox = Locked(Inbox())
    private let outbox = Locked(Outbox())

    /// A browser remote's meters move 25 times a second, smooth to the eye and little to send: the
    /// run loop polls every 10 ms, so a state due after 1/30 s is published on the fourth poll.
    public init(commandCapacity: Int = 64, eventCapacity: Int = 128, publishInterval: TimeInterval = 1.0 / 30) {
        self.commandCapacity = max(1, commandCapacity)
        self.eventCapacity = max(1, eventCapacity)
        self.publishInterval = publishInterval
    }

    // MARK: Any thread

    /// Queues `command` for the core; false when the queue is full (the command is dropped).
    @discardableResult
    public func post(_ command: ControlCommand) -> Bool {
        inbox.withLock { inbox in
            guard inbox.commands.count < commandCapacity else {
                inbox.refused += 1
                return false
            }
            inbox.commands.append(command)
            return true
        }
    }

    /// How many commands `post` refused because the queue was full.
    public var refusedCommands: Int { inbox.withLock { $0.refused } }

    /// The latest state published.
    public func latest() -> Snapshot {
        outbox.withLock { Snapshot(revision: $0.revision, state: $0.state) }
    }

    /// The events after number `sequence` still kept, in order; `missed` says some after it were
    /// forgotten already (the reader came too late for them).
    public func events(after sequence: UInt64) -> (events: [NumberedEvent], missed: Bool) {
        outbox.withLock { outbox in
            guard outbox.lastSequence > sequence else { return ([], false) }
            let kept = outbox.events.filter { $0.sequence > sequence }
            let missed = (kept.first?.sequence ?? outbox.lastSequence + 1) > sequence + 1
            return (kept, missed)
        }
    }

    /// The number of the last event told (0: none yet).
    public var lastEventSequence: UInt64 { outbox.withLock { $0.lastSequence } }

    // MARK: The core's thread

    package func poll(_ core: ControlCore) {
        let applied = apply { core.apply($0) }
        if applied > 0 || isDue() { publish(core.state) }
    }

    package func observe(_ events: [ControlEvent]) {
        guard !events.isEmpty else { return }
        outbox.withLock { outbox in
            for event in events {
                outbox.lastSequence += 1
                outbox.events.append(NumberedEvent(sequence: outbox.lastSequence, event: event))
            }
            if outbox.events.count > eventCapacity { outbox.events.removeFirst(outbox.events.count - eventCapacity) }
            outbox.publishSoon = true
        }
    }

    /// Takes the waiting commands and hands each to `carryOut` (outside the lock, so posting
    /// never waits for the core), in the order posted; how many there were.
    package func apply(_ carryOut: (ControlCommand) -> ControlRefusal?) -> Int {
        let commands = inbox.withLock { inbox -> [ControlCommand] in
            let taken = inbox.commands
            inbox.commands.removeAll(keepingCapacity: true)
            return taken
        }
        for command in commands { _ = carryOut(command) }
        return commands.count
    }

    /// Whether the state is to be published now: an event came, or `publishInterval` has passed.
    package func isDue(now: Date = Date()) -> Bool {
        outbox.withLock { $0.publishSoon || now.timeIntervalSince($0.lastPublished) >= publishInterval }
    }

    /// Makes `state` the latest, with the next revision.
    package func publish(_ state: ControlState, now: Date = Date()) {
        outbox.withLock { outbox in
            outbox.state = state
            outbox.revision += 1
            outbox.lastPublished = now
            outbox.publishSoon = false
        }
    }
}
