import CJack
import Foundation

/// A connection to a JACK server: a thin wrapper over libjack's client calls, one method per call.
///
/// Usable from any thread: every call holds the client's lock while it uses the handle, and once
/// the client is closed it does nothing (and answers empty, zero or with an error), so no call
/// can reach libjack with a closed client; `close` waits for a call in progress. The process
/// callback uses the raw `handle`: it cannot run after `deactivate`, which comes before `close`.
package final class JackClient: @unchecked Sendable {
    // @unchecked: `handle` is a C pointer; every use of it here holds the `open` lock.
    /// The `jack_client_t *`, for the process callback's state.
    package let handle: OpaquePointer
    /// False once closed.
    private let open = Locked(true)
    /// True once jack_client_close has returned (`hasLetGo`).
    private let closeReturned = Locked(false)
    /// The rate and period last read while open: what the client answers once closed (a take's
    /// report still says the rate it was recorded at).
    private let lastSampleRate: Locked<Int>
    private let lastBufferSize: Locked<Int>
    /// The name the server gave the client (fixed for its life).
    package let name: String

    /// Opens a client (jack_client_open). Never starts a server (JackNoStartServer): a recording
    /// tool that silently starts its own server records silence from the wrong device.
    ///
    /// - Parameters:
    ///   - name: the name asked for; JACK makes it unique (`jcap-01`) if another client has it.
    ///   - server: a server name (jackd -n), or nil for the default (or `$JACK_DEFAULT_SERVER`).
    package init(name: String, server: String? = nil) throws(JackError) {
        if name == (server ?? JackClient.defaultServerName) { throw .clientNamedLikeServer(name) }
        JackClient.silenceLibraryMessages()
        var status = jack_status_t(rawValue: 0)
        let options = jack_options_t(rawValue: JackNoStartServer.rawValue)
        guard let handle = jcap_client_open(name, options, &status, server) else {
            if status.rawValue & JackServerFailed.rawValue != 0 {
                throw .noServer(server: server ?? JackClient.defaultServerName)
            }
            throw .clientOpenFailed(status: status.rawValue)
        }
        self.handle = handle
        self.name = String(cString: jack_get_client_name(handle))
        lastSampleRate = Locked(Int(jack_get_sample_rate(handle)))
        lastBufferSize = Locked(Int(jack_get_buffer_size(handle)))
    }

    deinit { close() }

    /// The server name clients reach when none is given.
    package static var defaultServerName: String? {
        guard let name = getenv("JACK_DEFAULT_SERVER") else { return nil }
        return String(cString: name)
    }

    /// Disconnects from the server (jack_client_close). Safe to call more than once.
    package func close() {
        open.withLock { open in
            guard open else { return }
            open = false
            jack_client_close(handle)
            closeReturned.withLock { $0 = true }
        }
    }

    /// Disconnects from a server that has shut down, waiting at most `timeout`. There
    /// jack_client_close can block for good inside libjack: `jcap timecode` hung in 1 of 60 runs
    /// of its test, its main thread waiting on a libjack lock in jack_client_close while a libjack
    /// thread waited on a condition (jack2 issue #395 reports the same hang). So the call runs on
    /// a thread of its own. True when it returned; false when it is still blocked: then nothing the client's
    /// threads may touch can be freed, and the process goes on (or exits) without it.
    package func closeAfterServerShutdown(timeout: Duration) -> Bool {
        let address: UInt? = open.withLock { open in
            guard open else { return nil }
            open = false
            return UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        }
        guard let address else { return true }
        let returned = DispatchSemaphore(value: 0)
        let closeReturned = closeReturned
        let closer = Thread {
            jack_client_close(OpaquePointer(bitPattern: address))
            closeReturned.withLock { $0 = true }
            returned.signal()
        }
        closer.name = "jcap-close"
        closer.start()
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        return returned.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }

    /// Whether `close` has been called.
    package var isClosed: Bool { open.withLock { !$0 } }

    /// Whether the server still answers this client: its own UUID asked by its name, one request
    /// and its reply, which fails once libjack has seen the server go. For a client kept open
    /// without a host (`StudioSession`'s, while its sources are missing), which has no shutdown
    /// callback to say so.
    package var serverAnswers: Bool {
        guard let name = whileOpen(nil, { jack_get_client_name($0).map { String(cString: $0) } }) else { return false }
        return uuid(ofClientNamed: name) != nil
    }

    /// The UUID of the client called `name` on this client's server (jack_get_uuid_for_client_name,
    /// a request to the server), or nil when there is none or the server does not answer.
    package func uuid(ofClientNamed name: String) -> String? {
        whileOpen(nil) { client in
            guard let uuid = jack_get_uuid_for_client_name(client, name) else { return nil }
            defer { jack_free(uuid) }
            return String(cString: uuid)
        }
    }

    /// Whether libjack has finished closing the client (jack_client_close returned), which after
    /// a server shutdown can take seconds or never happen (`closeAfterServerShutdown`). Until
    /// then no other client may be opened in this process: libjack, opening a client after a
    /// server shut down, closes and frees every client of that server still open, under a close
    /// still running (jack2's JackLibGlobals::Init; measured: a program that closed the old
    /// client after opening a new one was killed by signal 11).
    package var hasLetGo: Bool { closeReturned.withLock { $0 } }

    /// Runs `body` with the handle while the client is open (holding the lock, so the client
    /// cannot close meanwhile); `closed` once it is closed.
    func whileOpen<T, E: Error>(_ closed: T, _ body: (OpaquePointer) throws(E) -> T) throws(E) -> T {
        var result = closed
        try open.withLock { (open: inout Bool) throws(E) in
            if open { result = try body(handle) }
        }
        return result
    }

    /// Frames per second (jack_get_sample_rate); once closed, the last rate read.
    package var sampleRate: Int {
        let rate = whileOpen(nil) { Int(jack_get_sample_rate($0)) }
        return lastSampleRate.withLock { last in
            if let rate { last = rate }
            return last
        }
    }

    /// Frames per period (jack_get_buffer_size); once closed, the last period read.
    package var bufferSize: Int {
        let frames = whileOpen(nil) { Int(jack_get_buffer_size($0)) }
        return lastBufferSize.withLock { last in
            if let frames { last = frames }
            return last
        }
    }

    /// The server's estimate of the current frame time (jack_frame_time). Callable from any thread;
    /// exact frame times come only from jack_last_frame_time inside the process callback.
    package var estimatedFrameTime: UInt32 { whileOpen(0) { jack_frame_time($0) } }

    /// JACK's clock in microseconds (jack_get_time).
    package static var currentTimeMicroseconds: UInt64 { jack_get_time() }

    /// The frame time at a moment of JACK's clock (jack_time_to_frames).
    package func frameTime(atMicroseconds time: UInt64) -> UInt32 {
        whileOpen(0) { jack_time_to_frames($0, time) }
    }

    /// The moment of JACK's clock, in microseconds, at which frame time `frame` falls
    /// (jack_frames_to_time): exact for frames of the current cycle, extrapolated at the server's
    /// measured rate for others.
    package func microseconds(atFrame frame: UInt32) -> UInt64 {
        whileOpen(0) { jack_frames_to_time($0, frame) }
    }

    /// The thread the server runs the process callback on (jack_client_thread_id).
    package var processThread: pthread_t { whileOpen(0) { jack_client_thread_id($0) } }

    /// Registers an audio input port (jack_port_register), returning its `jack_port_t *`.
    package func registerAudioInput(named shortName: String) throws(JackError) -> OpaquePointer {
        guard let port = whileOpen(nil, { jack_port_register($0, shortName, JACK_DEFAULT_AUDIO_TYPE,
                                                           UInt(JackPortIsInput.rawValue), 0) }) else {
            throw .portRegistrationFailed(name: shortName)
        }
        return port
    }

    /// Registers an audio output port (jack_port_register), returning its `jack_port_t *`.
    package func registerAudioOutput(named shortName: String) throws(JackError) -> OpaquePointer {
        guard let port = whileOpen(nil, { jack_port_register($0, shortName, JACK_DEFAULT_AUDIO_TYPE,
                                                           UInt(JackPortIsOutput.rawValue), 0) }) else {
            throw .portRegistrationFailed(name: shortName)
        }
        return port
    }

    /// A port's full name, `client:port` (jack_port_name).
    package func fullName(of port: OpaquePointer) -> String {
        whileOpen("") { _ in String(cString: jack_port_name(port)) }
    }

    /// How many connections a port of this client has (jack_port_connected).
    package func connectionCount(of port: OpaquePointer) -> Int {
        whileOpen(0) { _ in Int(jack_port_connected(port)) }
    }

    /// Names of audio ports with all of `flags` (jack_get_ports), in the server's order.
    package func audioPorts(flags: JackPortFlags) -> [String] {
        whileOpen([]) { JackClient.names(in: jack_get_ports($0, nil, JACK_DEFAULT_AUDIO_TYPE, UInt(flags.rawValue))) }
    }

    /// The names in a NULL-terminated list libjack allocated (jack_get_ports,
    /// jack_port_get_all_connections), which is freed here with jack_free.
    static func names(in list: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        defer { jack_free(list) }
        var names: [String] = []
        var index = 0
        while let name = list[index] {
            names.append(String(cString: name))
            index += 1
        }
        return names
    }

    /// Audio ports that produce signal: what jcap can record from.
    package func audioOutputPorts() -> [String] { audioPorts(flags: JackPortIsOutput) }

    /// The hardware (or dummy) capture ports, `system:capture_1` first.
    package func physicalCapturePorts() -> [String] {
        audioPorts(flags: JackPortFlags(rawValue: JackPortIsOutput.rawValue | JackPortIsPhysical.rawValue))
    }

    /// Connects `source` to `destination` (jack_connect). An existing connection is not an error.
    ///
    /// jack2 refuses to connect a port of a client that has registered it but is not active yet
    /// ("Cannot connect ports owned by inactive clients"), which a client started a moment
    /// before this one usually is (measured: a player's port listed, the recorder's connection
    /// refused, on a busy machine). While both ports are there, a refusal is tried again for up
    /// to `patience` seconds.
    package func connect(_ source: String, to destination: String, patience: Double = 2) throws(JackError) {
        let deadline = JackClient.currentTimeMicroseconds + UInt64(max(0, patience) * 1_000_000)
        while true {
            let result = whileOpen(-1) { jack_connect($0, source, destination) }
            if result == 0 || result == EEXIST { return }
            let bothThere = whileOpen(false) { jack_port_by_name($0, source) != nil && jack_port_by_name($0, destination) != nil }
            guard bothThere, JackClient.currentTimeMicroseconds < deadline else {
                throw .connectionFailed(source: source, destination: destination)
            }
            usleep(20_000)
        }
    }

    /// Waits until the connection from `source` to `port` is in the graph the server's cycles run
    /// (a connection made now takes effect at the start of a later cycle: jack_port_connected_to
    /// waits out a pending graph change, once). False when it is not there within `timeout`
    /// seconds (the source went away, the server stopped).
    package func waitUntilConnected(_ port: OpaquePointer, to source: String, timeout: Double) -> Bool {
        let deadline = JackClient.currentTimeMicroseconds + UInt64(timeout * 1_000_000)
        while whileOpen(false, { _ in jack_port_connected_to(port, source) == 1 }) == false {
            guard JackClient.currentTimeMicroseconds < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    /// Breaks a connection (jack_disconnect).
    package func disconnect(_ source: String, from destination: String) throws(JackError) {
        guard whileOpen(-1, { jack_disconnect($0, source, destination) }) == 0 else {
            throw .connectionFailed(source: source, destination: destination)
        }
    }

    /// Installs the process callback (jack_set_process_callback); before `activate()` only.
    package func setProcessCallback(_ callback: JackProcessCallback, argument: UnsafeMutableRawPointer) {
        whileOpen(()) { _ = jack_set_process_callback($0, callback, argument) }
    }

    /// Installs the xrun callback (jack_set_xrun_callback); before `activate()` only.
    package func setXrunCallback(_ callback: JackXRunCallback, argument: UnsafeMutableRawPointer) {
        whileOpen(()) { _ = jack_set_xrun_callback($0, callback, argument) }
    }

    /// Installs the callback the server runs when it recomputes latencies (jack_set_latency_callback):
    /// where a client declares its ports' latencies.
    package func setLatencyCallback(_ callback: JackLatencyCallback, argument: UnsafeMutableRawPointer) {
        whileOpen(()) { _ = jack_set_latency_callback($0, callback, argument) }
    }

    /// Asks the server to recompute every port's latency now (jack_recompute_total_latencies).
    package func recomputeTotalLatencies() {
        whileOpen(()) { _ = jack_recompute_total_latencies($0) }
    }

    /// Installs the callback run when the server shuts the client down (jack_on_info_shutdown).
    package func setShutdownCallback(_ callback: JackInfoShutdownCallback, argument: UnsafeMutableRawPointer) {
        whileOpen(()) { jack_on_info_shutdown($0, callback, argument) }
    }

    /// Installs the callback told of every connection made or broken on the server
    /// (jack_set_port_connect_callback); before `activate()` only.
    package func setPortConnectCallback(_ callback: JackPortConnectCallback, argument: UnsafeMutableRawPointer) {
        whileOpen(()) { _ = jack_set_port_connect_callback($0, callback, argument) }
    }

    /// Installs the callback run when the period changes (jack_set_buffer_size_callback).
    package func setBufferSizeCallback(_ callback: JackBufferSizeCallback, argument: UnsafeMutableRawPointer) {
        whileOpen(()) { _ = jack_set_buffer_size_callback($0, callback, argument) }
    }

    /// Installs the callback run when the sample rate changes (jack_set_sample_rate_callback).
    package func setSampleRateCallback(_ callback: JackSampleRateCallback, argument: UnsafeMutableRawPointer) {
        whileOpen(()) { _ = jack_set_sample_rate_callback($0, callback, argument) }
    }

    /// Starts the process callback (jack_activate).
    package func activate() throws(JackError) {
        guard whileOpen(-1, { jack_activate($0) }) == 0 else { throw .activationFailed }
    }

    /// Stops the process callback (jack_deactivate). Nothing once the client is closed (the
    /// handle is gone then).
    package func deactivate() {
        whileOpen(()) { jack_deactivate($0) }
    }

    /// libjack prints its own diagnostics to stderr (jack_set_error_function,
    /// jack_set_info_function); jcap reports each failure itself, in one line.
    private static func silenceLibraryMessages() {
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
    }
}
