import Atomics
import CJack
import JackCapture

/// A JACK client that only counts the xruns its server reports (jack_set_xrun_callback), for a
/// test to tell a disturbed take from a recorder's fault. It runs as a process of its own
/// (`jcap-testsignal xruns`): one process's JACK clients all share the first server's shared
/// memory, so a test that opens clients on two servers (a NetJACK2 master and slave) in its own
/// process gets the first server's state on both.
public final class XrunWatcher: @unchecked Sendable {
    // @unchecked: `counters` is raw memory JACK's notification thread writes (only atomics).
    private let client: JackClient
    private let counters: UnsafeMutablePointer<Counters>

    private struct Counters {
        let xruns: UnsafeAtomic<Int>
        let serverGone: UnsafeAtomic<Bool>
    }

    package init(client: JackClient) throws(JackError) {
        self.client = client
        counters = .allocate(capacity: 1)
        counters.initialize(to: Counters(xruns: .create(0), serverGone: .create(false)))
        client.setXrunCallback({ argument in
            _ = argument?.assumingMemoryBound(to: Counters.self).pointee.xruns.loadThenWrappingIncrement(ordering: .relaxed)
            return 0
        }, argument: UnsafeMutableRawPointer(counters))
        client.setShutdownCallback({ _, _, argument in
            argument?.assumingMemoryBound(to: Counters.self).pointee.serverGone.store(true, ordering: .releasing)
        }, argument: UnsafeMutableRawPointer(counters))
        try client.activate()
    }

    /// Xruns the server reported since the client was activated.
    public var xruns: Int { counters.pointee.xruns.load(ordering: .relaxed) }
    public var serverGone: Bool { counters.pointee.serverGone.load(ordering: .acquiring) }

    deinit {
        client.deactivate()
        client.close()
        counters.pointee.xruns.destroy()
        counters.pointee.serverGone.destroy()
        counters.deinitialize(count: 1)
        counters.deallocate()
    }
}
