import CJack

/// The smallest and largest latency JACK reports for a port, in frames (jack_latency_range_t).
package struct JackLatencyRange: Equatable, Hashable, Sendable {
    package var minimum: Int
    package var maximum: Int

    package init(minimum: Int, maximum: Int) {
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// Questions about any port on the server, by its `jack_port_t *` (from `port(named:)` or
/// registration). Each is one libjack call.
extension JackClient {
    /// The port with this full name, `client:port` or one of its aliases (jack_port_by_name).
    ///
    /// The pointer stays valid while the port is registered; a port of another client can go away
    /// at any time, after which the calls below describe a port with no name.
    package func port(named name: String) throws(JackError) -> OpaquePointer {
        guard let port = whileOpen(nil, { jack_port_by_name($0, name) }) else { throw .noSuchPort(name) }
        return port
    }

    /// The port's JACK flags (jack_port_flags): input or output, physical, terminal.
    package func flags(of port: OpaquePointer) -> JackPortFlags {
        JackPortFlags(rawValue: UInt32(bitPattern: jack_port_flags(port)))
    }

    /// Whether the port is a hardware (or dummy driver) port (JackPortIsPhysical in jack_port_flags).
    package func isPhysical(_ port: OpaquePointer) -> Bool {
        flags(of: port).rawValue & JackPortIsPhysical.rawValue != 0
    }

    /// The port's aliases, at most two (jack_port_get_aliases). ALSA ports carry the device's own
    /// names here (`alsa_pcm:hw:1,0:capture_1`), which is often how people know them.
    ///
    /// libjack copies each alias into a caller's buffer of jack_port_name_size() bytes; the buffers
    /// are zeroed first and read up to their first NUL, so an alias libjack truncated is still read
    /// safely.
    package func aliases(of port: OpaquePointer) -> [String] {
        let size = Int(jack_port_name_size()) + 1
        let first = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        let second = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer {
            first.deallocate()
            second.deallocate()
        }
        first.initialize(repeating: 0, count: size)
        second.initialize(repeating: 0, count: size)
        let buffers: [UnsafeMutablePointer<CChar>?] = [first, second]
        let count = buffers.withUnsafeBufferPointer { jack_port_get_aliases(port, $0.baseAddress) }
        guard count > 0 else { return [] }
        // jack2 fills each buffer whose alias is set, whatever the count says about which.
        return [first, second].compactMap { (buffer) -> String? in
            let text = String(decoding: UnsafeRawBufferPointer(start: buffer, count: strnlen(buffer, size - 1)),
                              as: UTF8.self)
            return text.isEmpty ? nil : text
        }
    }

    /// How long ago, in frames, the signal now in the port's buffer arrived at the system's inputs
    /// (jack_port_get_latency_range with JackCaptureLatency): for a physical capture port the
    /// driver's input latency, for a client's output the latency of what feeds it.
    package func captureLatency(of port: OpaquePointer) -> JackLatencyRange {
        var range = jack_latency_range_t()
        jack_port_get_latency_range(port, JackCaptureLatency, &range)
        return JackLatencyRange(minimum: Int(range.min), maximum: Int(range.max))
    }

    /// Declares a port's capture latency (jack_port_set_latency_range with JackCaptureLatency):
    /// how long ago, in frames, the sound in its buffer reached the system's inputs. Meant for the
    /// latency callback, or before others read it.
    package static func setCaptureLatency(_ range: JackLatencyRange, of port: OpaquePointer) {
        var latency = jack_latency_range_t(min: jack_nframes_t(clamping: range.minimum), max: jack_nframes_t(clamping: range.maximum))
        jack_port_set_latency_range(port, JackCaptureLatency, &latency)
    }

    /// How long from now, in frames, the signal put in the port's buffer takes to leave the
    /// system's outputs (jack_port_get_latency_range with JackPlaybackLatency): for a physical
    /// playback port the driver's output latency, for a client's input the latency of what it
    /// feeds.
    package func playbackLatency(of port: OpaquePointer) -> JackLatencyRange {
        var range = jack_latency_range_t()
        jack_port_get_latency_range(port, JackPlaybackLatency, &range)
        return JackLatencyRange(minimum: Int(range.min), maximum: Int(range.max))
    }

    /// Declares a port's playback latency (jack_port_set_latency_range with JackPlaybackLatency):
    /// how long, in frames, the sound in its buffer takes to reach the system's outputs. Meant
    /// for the latency callback, or before others read it.
    package static func setPlaybackLatency(_ range: JackLatencyRange, of port: OpaquePointer) {
        var latency = jack_latency_range_t(min: jack_nframes_t(clamping: range.minimum), max: jack_nframes_t(clamping: range.maximum))
        jack_port_set_latency_range(port, JackPlaybackLatency, &latency)
    }

    /// Full names of every port connected to this one, whichever client owns it
    /// (jack_port_get_all_connections; the list is freed with jack_free).
    package func connections(of port: OpaquePointer) -> [String] {
        whileOpen([]) { JackClient.names(in: jack_port_get_all_connections($0, port)) }
    }
}
