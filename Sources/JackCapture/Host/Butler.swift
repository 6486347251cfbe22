import Foundation

/// The one worker thread of a JACK client's non-real-time side (Ardour's butler): the disk
/// writer, the playback reader and the capture event pump each run their rounds on one.
///
/// A command from another thread (a seek, a rate change, an arm, stop, close) wakes it at once
/// (`wake()`, a semaphore). The process callback cannot signal (no syscalls on the real-time
/// thread), so between commands the butler wakes on a timed wait (`idleWait`, sized from the
/// period by its owner) to notice ring space or events. `stop()` ends it and joins it: after
/// `stop()` returns, no round runs and none will.
package final class Butler: Sendable {
    /// What a round tells the butler: go round again at once (it did work and may have more),
    /// wait for a command or the timed wait, or end (the work is done: the thread exits).
    package enum Round: Sendable {
        case again
        case idle
        case done
    }

    private struct Control {
        var started = false
        var stopping = false
        var thread: pthread_t?
        /// Run by the thread as it exits (after its last round).
        var atExit: [@Sendable () -> Void] = []
    }

    package let name: String
    private let wakeup = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let control = Locked(Control())
    private let idleNanoseconds: Locked<Int>

    /// `idleWait`: the longest a round waits when nothing wakes it.
    package init(name: String, idleWait: Duration) {
        self.name = name
        idleNanoseconds = Locked(Butler.nanoseconds(idleWait))
    }

    /// The timed wait for a worker that drains a ring the callback fills (or fills one it
    /// drains) every period: a quarter of the period, between 1 and 10 ms, so the ring is looked
    /// at several times a cycle without spinning.
    package static func idleWait(periodFrames: Int, sampleRate: Int) -> Duration {
        guard periodFrames > 0, sampleRate > 0 else { return .milliseconds(10) }
        let quarter = Double(periodFrames) / Double(sampleRate) / 4
        let microseconds = min(max(quarter * 1e6, 1_000), 10_000)
        return .microseconds(Int64(microseconds.rounded()))
    }

    /// Changes the timed wait (the period changed).
    package func setIdleWait(_ wait: Duration) {
        idleNanoseconds.withLock { $0 = Butler.nanoseconds(wait) }
    }

    /// Starts the thread: `round` runs over and over until `stop()`. With `finalRound`, it runs
    /// once more after the stop was asked for (to take in what the last cycles left). Once only.
    package func start(finalRound: Bool = false, _ round: @escaping @Sendable () -> Round) {
        let first = control.withLock { control -> Bool in
            guard !control.started else { return false }
            control.started = true
            return true
        }
        guard first else { return }
        let thread = Thread { [self] in
            control.withLock { $0.thread = pthread_self() }
            run(round, finalRound: finalRound)
            exited.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs the next round at once.
    package func wake() { wakeup.signal() }

    /// Whether this is the butler's own thread.
    package var isCurrentThread: Bool {
        control.withLock { control in control.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Whether `stop()` was asked for.
    package var isStopping: Bool { control.withLock { $0.stopping } }

    /// Ends the thread and waits for it to exit (a round in progress finishes first). From the
    /// butler's own thread (a round that closes its owner) it only asks: the thread exits when
    /// that round returns. Safe to call more than once, and before `start`.
    package func stop() {
        let started = control.withLock { control -> Bool in
            control.stopping = true
            return control.started
        }
        guard started else { return }
        wakeup.signal()
        guard !isCurrentThread else { return }
        exited.wait()
        // Passed on: every other stop() waits for the same exit and returns too.
        exited.signal()
    }

    /// Wakes the butler and waits for its work to end by itself (a round returned `.done`),
    /// without asking it to stop: a round that must finish its work (the disk writer's take) is
    /// joined this way. Not from the butler's own thread.
    package func join() {
        guard control.withLock({ $0.started }), !isCurrentThread else { return }
        wakeup.signal()
        exited.wait()
        exited.signal()
    }

    /// From inside a round: waits until a command wakes the butler or the timed wait ends (a
    /// round that keeps its own loop, as the disk writer's does, rests here between passes).
    package func rest() {
        let wait = idleNanoseconds.withLock { $0 }
        _ = wakeup.wait(timeout: .now() + .nanoseconds(wait))
    }

    /// Runs `action` on the butler's thread once its last round has returned: what a round that
    /// closes its owner must not free under itself (the owner's process state).
    package func atExit(_ action: @escaping @Sendable () -> Void) {
        control.withLock { $0.atExit.append(action) }
    }

    private func run(_ round: @Sendable () -> Round, finalRound: Bool) {
        rounds: while !isStopping {
            switch round() {
            case .again: continue
            case .idle: rest()
            case .done: break rounds
            }
        }
        if finalRound && isStopping { _ = round() }
        for action in control.withLock({ $0.atExit }) { action() }
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
