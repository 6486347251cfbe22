import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM become a flag the main loop polls: the take then stops at the current frame
/// and writes everything up to it. (Standard input is never read, so its end stops nothing.)
final class StopSignals: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "jcap.signals")
    private var received: Int32 = 0
    private let lock = NSLockLike()

    init(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        for number in signals {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.record(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func record(_ number: Int32) {
        lock.withLock { if received == 0 { received = number } }
    }

    /// The first stop signal received, if any.
    var signal: Int32? { lock.withLock { received == 0 ? nil : received } }
}

/// A pthread mutex: the main loop and the signal queue share one integer.
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
