import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM become a flag the main loop polls: the take then stops at the current frame
/// and writes everything up to it. (Standard input is never read, so its end stops nothing.)
final class StopSignals: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "jcap.signals")
    private var received: Int32 = 0
    private let lock = NSLock()

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
