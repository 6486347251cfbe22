import Atomics
import CJack

/// What the server told a `JackHost`'s client, counted on JACK's threads for the host's owner to
/// read on its own: at one address for the host's life (the C callbacks reach it through a plain
/// pointer). Every field is fixed before activation or is an atomic.
struct HostNotifications {
    /// The user's callbacks, called after the host has counted.
    let forward: JackCallbacks
    /// Xruns the server reported.
    let xruns = UnsafeAtomic<Int>.create(0)
    /// The server shut down or threw the client out.
    let serverGone = UnsafeAtomic<Bool>.create(false)
    /// The server's sample rate as last notified, and how often it changed from the one the
    /// client opened at.
    let sampleRate: UnsafeAtomic<Int>
    let sampleRateChanges = UnsafeAtomic<Int>.create(0)
    /// The period as last notified, and how often it changed.
    let bufferSize: UnsafeAtomic<Int>
    let bufferSizeChanges = UnsafeAtomic<Int>.create(0)
    /// Connections made or broken anywhere on the server: a watcher re-reads its ports' connections
    /// when this moves.
    let connectionChanges = UnsafeAtomic<Int>.create(0)

    init(forward: JackCallbacks, sampleRate: Int, bufferSize: Int) {
        self.forward = forward
        self.sampleRate = .create(sampleRate)
        self.bufferSize = .create(bufferSize)
    }

    func destroy() {
        xruns.destroy()
        serverGone.destroy()
        sampleRate.destroy()
        sampleRateChanges.destroy()
        bufferSize.destroy()
        bufferSizeChanges.destroy()
        connectionChanges.destroy()
    }
}

// The host's notification callbacks: each counts in `HostNotifications`, then calls the user's.
// They allocate nothing and take no lock, but the compiler cannot check a call through a function
// pointer: the user's callbacks are checked where they are defined.

/// jack_set_xrun_callback (JACK 2 may call it on the process thread).
func hostXrunCallback(_ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let notifications = argument.assumingMemoryBound(to: HostNotifications.self)
    _ = notifications.pointee.xruns.loadThenWrappingIncrement(ordering: .relaxed)
    guard let forward = notifications.pointee.forward.xrun else { return 0 }
    return forward(notifications.pointee.forward.argument)
}

/// jack_on_info_shutdown.
func hostShutdownCallback(_ code: jack_status_t, _ reason: UnsafePointer<CChar>?, _ argument: UnsafeMutableRawPointer?) {
    guard let argument else { return }
    let notifications = argument.assumingMemoryBound(to: HostNotifications.self)
    notifications.pointee.serverGone.store(true, ordering: .releasing)
    notifications.pointee.forward.shutdown?(code, reason, notifications.pointee.forward.argument)
}

/// jack_set_port_connect_callback, on the notification thread.
func hostPortConnectCallback(_ a: jack_port_id_t, _ b: jack_port_id_t, _ connect: Int32, _ argument: UnsafeMutableRawPointer?) {
    guard let argument else { return }
    let notifications = argument.assumingMemoryBound(to: HostNotifications.self)
    _ = notifications.pointee.connectionChanges.loadThenWrappingIncrement(ordering: .releasing)
    notifications.pointee.forward.portConnect?(a, b, connect, notifications.pointee.forward.argument)
}

/// jack_set_buffer_size_callback. JACK also calls it on activation with the period the client
/// has: not a change.
func hostBufferSizeCallback(_ frames: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let notifications = argument.assumingMemoryBound(to: HostNotifications.self)
    if notifications.pointee.bufferSize.exchange(Int(frames), ordering: .relaxed) != Int(frames) {
        _ = notifications.pointee.bufferSizeChanges.loadThenWrappingIncrement(ordering: .releasing)
    }
    guard let forward = notifications.pointee.forward.bufferSize else { return 0 }
    return forward(frames, notifications.pointee.forward.argument)
}

/// jack_set_sample_rate_callback. JACK calls it once when installed, with the rate the client has:
/// not a change.
func hostSampleRateCallback(_ rate: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let notifications = argument.assumingMemoryBound(to: HostNotifications.self)
    if notifications.pointee.sampleRate.exchange(Int(rate), ordering: .relaxed) != Int(rate) {
        _ = notifications.pointee.sampleRateChanges.loadThenWrappingIncrement(ordering: .releasing)
    }
    guard let forward = notifications.pointee.forward.sampleRate else { return 0 }
    return forward(rate, notifications.pointee.forward.argument)
}
