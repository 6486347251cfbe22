import CJack

/// A JACK port a take can record from, described the way a person picks one: what AVAudioSession
/// calls an available input. JACK's outputs are a recorder's inputs: `system:capture_1` (a
/// sound card's input) or `synth:out_1` (another program's output).
package struct InputPort: Equatable, Hashable, Sendable {
    /// The full name, `client:port`: what `SourceSelection.ports` takes.
    package var name: String
    /// The name a patchbay shows for it (JACK_METADATA_PRETTY_NAME), if one was set.
    package var prettyName: String?
    /// Other names of the port (an ALSA device's own port names), at most two.
    package var aliases: [String]
    /// How old, in frames, the signal in the port's buffer is (JackCaptureLatency).
    package var captureLatency: JackLatencyRange
    /// Full names of the ports it feeds now.
    package var connections: [String]
    /// A sound card's (or the dummy driver's) input, rather than another program's output.
    package var isPhysical: Bool

    package init(name: String, prettyName: String? = nil, aliases: [String] = [],
                captureLatency: JackLatencyRange = JackLatencyRange(minimum: 0, maximum: 0),
                connections: [String] = [], isPhysical: Bool = false) {
        self.name = name
        self.prettyName = prettyName
        self.aliases = aliases
        self.captureLatency = captureLatency
        self.connections = connections
        self.isPhysical = isPhysical
    }

    /// Every audio output port on the server, physical ports first (the sound card's inputs are
    /// what a recording most often wants), each group in natural order (`out_2` before `out_10`),
    /// the order `SourceSelection.channels` numbers physical ports in.
    ///
    /// A port that goes away while it is being described is left out.
    package static func availableInputs(on client: JackClient) -> [InputPort] {
        let ports = client.audioOutputPorts().compactMap { (name) -> InputPort? in
            guard let port = try? client.port(named: name) else { return nil }
            return InputPort(name: name,
                             prettyName: client.prettyName(ofPort: port),
                             aliases: client.aliases(of: port),
                             captureLatency: client.captureLatency(of: port),
                             connections: client.connections(of: port),
                             isPhysical: client.isPhysical(port))
        }
        return ports.sorted(by: areInDisplayOrder)
    }

    /// Physical first, then by name in natural order.
    static func areInDisplayOrder(_ lhs: InputPort, _ rhs: InputPort) -> Bool {
        if lhs.isPhysical != rhs.isPhysical { return lhs.isPhysical }
        return NaturalOrder.areInIncreasingOrder(lhs.name, rhs.name)
    }
}
