import CLinux
import Synchronization

/// A `Mutex` that ThreadSanitizer sees. On Linux, a thread that finds a `Mutex` taken blocks in the
/// kernel (FUTEX_LOCK_PI) and the owner hands the lock over there (FUTEX_UNLOCK_PI), inside the
/// Synchronization library, which is not built with TSan: TSan sees no acquire and release, and
/// reports the state the lock guards as raced whenever a thread had to wait for it. So every hold
/// is annotated as an acquire and a release of this object (free without TSan).
package final class Locked<State>: Sendable {
    private let mutex: Mutex<State>

    package init(_ state: consuming sending State) {
        mutex = Mutex(state)
    }

    /// Runs `body` with the state, holding the lock.
    package func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        let address = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (state: inout sending State) throws(Failure) -> sending Result in
            jcap_tsan_acquire(address)
            defer { jcap_tsan_release(address) }
            return try body(&state)
        }
    }
}
