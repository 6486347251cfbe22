import Dispatch
import Foundation

/// Signals become flags the main loop polls: SIGINT and SIGTERM stop the take at the current frame
/// (everything before it is written); each SIGUSR1 toggles pause, for scripts.
final class ControlSignals: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "jcap.signals")
    private var received: Int32 = 0
    private var pauseToggles = 0
    private let lock = NSLock()

    init(stop: [Int32] = [SIGINT, SIGTERM], togglePause: Int32 = SIGUSR1) {
        for number in stop + [togglePause] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                lock.withLock {
                    if number == togglePause { pauseToggles += 1 } else if received == 0 { received = number }
                }
            }
            source.resume()
            // Kept for the life of the process, never disposed: the signals stay ignored once
            // this object is gone (no disposition is restored), so the source has nothing to
            // give back, and a disposed source's handler is freed by libdispatch on its queue's
            // thread, after synchronization ThreadSanitizer cannot see (tools/sanitize reported
            // that free as a race with this thread's setup). The handler holds `self` weakly.
            _ = Unmanaged.passRetained(source as AnyObject)
            sources.append(source)
        }
    }

    /// The first stop signal received, if any.
    var stopSignal: Int32? { lock.withLock { received == 0 ? nil : received } }

    /// SIGUSR1s received since the last call.
    func takePauseToggles() -> Int {
        lock.withLock {
            defer { pauseToggles = 0 }
            return pauseToggles
        }
    }
}
