import CJack
import Foundation

/// Owns one JACK client's whole life, in one fixed order (as Ardour's session owns its engine and
/// butler):
///
/// 1. open the client (or adopt one opened to check the server first);
/// 2. the user registers its ports and allocates its pinned process state;
/// 3. `activate`: the callbacks installed (the host's notifications, which count and forward, and
///    the user's process callback), then jack_activate;
/// 4. `run`: the workers (`Butler`s) started;
/// 5. `close`: every worker stopped and joined, then jack_deactivate, then jack_client_close, then
///    the process state freed: nothing off the real-time thread can use the client once it is
///    closing, and nothing on it can run once the state is freed.
///
/// A host closes once; everything after that does nothing.
package final class JackHost: @unchecked Sendable {
    // @unchecked: `notifications` is raw memory shared with JACK's threads (only atomics cross).
    package let client: JackClient
    /// Counted by the host's notification callbacks; freed in `deinit` (after the client closed).
    /// Set once, by `activate`, before any worker starts (the workers read it).
    private var notifications: UnsafeMutablePointer<HostNotifications>?
    /// The sample rate and period the client opened with.
    package let openedSampleRate: Int
    package let openedBufferSize: Int

    private enum Stage { case open, active, closing, closed }

    private struct Life {
        var stage = Stage.open
        var butlers: [Butler] = []
        var freeProcessState: (@Sendable () -> Void)?
        /// The host's callbacks are installed (they point at `notifications`).
        var callbacksInstalled = false
    }

    private let life = Locked(Life())

    /// Opens a client (`JackClient.init`).
    package convenience init(name: String, server: String?) throws(JackError) {
        self.init(adopting: try JackClient(name: name, server: server))
    }

    /// Takes over a client opened already: the host closes it.
    package init(adopting client: JackClient) {
        self.client = client
        openedSampleRate = client.sampleRate
        openedBufferSize = client.bufferSize
    }

    /// A host that installed its callbacks closes here (they use the notifications freed here);
    /// one that did not leaves the client to whoever holds it (it closes when let go).
    deinit {
        if life.withLock({ $0.stage == .active || $0.callbacksInstalled }) { close() }
        if let notifications {
            notifications.pointee.destroy()
            notifications.deinitialize(count: 1)
            notifications.deallocate()
        }
    }

    package var sampleRate: Int { client.sampleRate }
    package var bufferSize: Int { client.bufferSize }
    package var isClosed: Bool { life.withLock { $0.stage == .closing || $0.stage == .closed } }

    /// Installs the callbacks and activates the client. `freeProcessState` frees what
    /// `callbacks.argument` points at; the host calls it once, last, when it closes (also when
    /// activation fails, at that close). Without it, the state's owner frees it, after `close`.
    package func activate(_ callbacks: JackCallbacks,
                          freeProcessState: (@Sendable () -> Void)? = nil) throws(JackError) {
        let stage = life.withLock { life -> Stage in
            if life.stage == .open { life.freeProcessState = freeProcessState }
            return life.stage
        }
        guard stage == .open else {
            if stage != .active { freeProcessState?() }
            throw .activationFailed
        }
        let notifications = UnsafeMutablePointer<HostNotifications>.allocate(capacity: 1)
        notifications.initialize(to: HostNotifications(forward: callbacks, sampleRate: openedSampleRate,
                                                       bufferSize: openedBufferSize))
        self.notifications = notifications
        let argument = UnsafeMutableRawPointer(notifications)
        life.withLock { $0.callbacksInstalled = true }
        client.setProcessCallback(callbacks.process, argument: callbacks.argument)
        client.setXrunCallback(hostXrunCallback, argument: argument)
        client.setShutdownCallback(hostShutdownCallback, argument: argument)
        client.setPortConnectCallback(hostPortConnectCallback, argument: argument)
        client.setBufferSizeCallback(hostBufferSizeCallback, argument: argument)
        client.setSampleRateCallback(hostSampleRateCallback, argument: argument)
        try client.activate()
        life.withLock { $0.stage = .active }
    }

    /// Starts `round` on `butler`, which the host stops and joins before the client closes. On a
    /// host that is closing or closed nothing starts (false).
    @discardableResult
    package func run(_ butler: Butler, finalRound: Bool = false, _ round: @escaping @Sendable () -> Butler.Round) -> Bool {
        let accepted = life.withLock { life -> Bool in
            guard life.stage == .open || life.stage == .active else { return false }
            life.butlers.append(butler)
            return true
        }
        guard accepted else { return false }
        butler.start(finalRound: finalRound, round)
        return true
    }

    /// Stops and joins every worker, then deactivates and closes the client, then frees the
    /// process state. Safe to call more than once and from a worker's own round (that worker then
    /// exits when the round returns; nothing else touches the client meanwhile).
    package func close() {
        let taken = life.withLock { life -> ([Butler], (@Sendable () -> Void)?, Bool)? in
            guard life.stage == .open || life.stage == .active else { return nil }
            let wasActive = life.stage == .active
            life.stage = .closing
            defer { life.butlers = []; life.freeProcessState = nil }
            return (life.butlers, life.freeProcessState, wasActive)
        }
        guard let (butlers, freeProcessState, wasActive) = taken else { return }
        for butler in butlers { butler.stop() }
        // After the server shut down there is nothing to deactivate, and closing may block in
        // libjack (`JackClient.closeAfterServerShutdown`): a close left blocked keeps the state.
        let closed: Bool
        if serverGone {
            closed = client.closeAfterServerShutdown(timeout: .seconds(2))
        } else {
            if wasActive { client.deactivate() }
            client.close()
            closed = true
        }
        if let freeProcessState, closed {
            // Closed from a worker's own round (a delegate that closes): that round is still
            // running and may use the state, so the worker frees it as it exits.
            if let own = butlers.first(where: { $0.isCurrentThread }) {
                own.atExit(freeProcessState)
            } else {
                freeProcessState()
            }
        }
        life.withLock { $0.stage = .closed }
    }

    // MARK: Notifications, for the owner's worker to report

    /// Xruns the server reported since activation.
    package var xruns: Int { notifications?.pointee.xruns.load(ordering: .relaxed) ?? 0 }
    /// Whether the server shut down or threw the client out.
    package var serverGone: Bool { notifications?.pointee.serverGone.load(ordering: .acquiring) ?? false }
    /// The sample rate as last notified and how many times it changed.
    package var notifiedSampleRate: (rate: Int, changes: Int) {
        guard let notifications else { return (openedSampleRate, 0) }
        return (notifications.pointee.sampleRate.load(ordering: .relaxed),
                notifications.pointee.sampleRateChanges.load(ordering: .acquiring))
    }
    /// The period as last notified and how many times it changed.
    package var notifiedBufferSize: (frames: Int, changes: Int) {
        guard let notifications else { return (openedBufferSize, 0) }
        return (notifications.pointee.bufferSize.load(ordering: .relaxed),
                notifications.pointee.bufferSizeChanges.load(ordering: .acquiring))
    }
    /// Counts connections made or broken on the server since activation.
    package var connectionChanges: Int { notifications?.pointee.connectionChanges.load(ordering: .acquiring) ?? 0 }

    /// Runs the host's sample-rate notification exactly as JACK does (no JACK 2 backend on a
    /// test machine changes its rate while running).
    func simulateSampleRateNotification(_ rate: Int) {
        guard let notifications else { return }
        _ = hostSampleRateCallback(jack_nframes_t(rate), UnsafeMutableRawPointer(notifications))
    }

    /// Runs the host's buffer-size notification exactly as JACK does.
    func simulateBufferSizeNotification(_ frames: Int) {
        guard let notifications else { return }
        _ = hostBufferSizeCallback(jack_nframes_t(frames), UnsafeMutableRawPointer(notifications))
    }
}
