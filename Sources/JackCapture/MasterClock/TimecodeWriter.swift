import CJack

/// A JACK client whose one output port, `out`, carries the server's own frame time as
/// `MasterTimecode` (`jcap timecode`): on a NetJACK2 master, patched into a slave's input, it
/// tells a recorder on the slave (`--master-clock`) which of the master's frames each of its own
/// frames is.
///
/// Each cycle the process callback (`timecodeWriterProcessCallback`) writes the timecode of the
/// frames from jack_last_frame_time on: the port's frame N carries master frame time N exactly.
/// The client, the callback and its pinned state belong to a `JackHost`, which deactivates and
/// closes the client before it frees the state: the callback never reads freed memory.
package final class TimecodeWriter: @unchecked Sendable {
    // @unchecked: the process state is raw memory the host owns; everything here is a constant.
    private let host: JackHost
    /// The port's full name, `jcap-timecode:out`.
    package let portName: String

    /// The port's short name.
    package static let portShortName = "out"

    /// Opens the client (JACK makes its name unique), registers `out` and starts writing.
    package init(clientName: String = "jcap-timecode", server: String? = nil) throws(JackError) {
        let host = try JackHost(name: clientName, server: server)
        let port: OpaquePointer
        do {
            port = try host.client.registerAudioOutput(named: Self.portShortName)
        } catch {
            host.close()
            throw error
        }
        let state = TimecodeWriterProcessState.Pinned(client: host.client.handle, port: port)
        portName = host.client.fullName(of: port)
        do {
            try host.activate(JackCallbacks(process: timecodeWriterProcessCallback, argument: state.raw),
                              freeProcessState: { state.free() })
        } catch {
            // The host frees the state as it closes.
            host.close()
            throw error
        }
        self.host = host
    }

    deinit { close() }

    /// The client's name as the server gave it.
    package var clientName: String { host.client.name }

    /// Connects the port to the input ports `patterns` name (a full name, or a glob for every
    /// input it matches), all of them found before any is connected. Returns them, in order.
    @discardableResult
    package func connect(to patterns: [String]) throws(CaptureError) -> [String] {
        let destinations = try host.destinations(for: .ports(patterns))
        for destination in destinations {
            do { try host.client.connect(portName, to: destination) } catch { throw .jack(error) }
        }
        return destinations
    }

    /// True once the server has shut down or thrown the client out: no timecode goes out any more.
    package var serverGone: Bool { host.serverGone }

    /// The thread the server runs the process callback on.
    package var processThread: pthread_t { host.client.processThread }

    /// Deactivates and closes the client, then frees the callback's state (`JackHost.close`).
    /// Safe to call more than once.
    package func close() { host.close() }
}
