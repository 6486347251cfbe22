import CJack

/// A server running NetJACK2's net driver (`jackd -d net`): a slave whose clock and capture ports
/// are the master's, carried over the network. Measured on jackd2 1.9.21 (docs/netjack.md):
///
/// - The slave's cycle runs as the master's packet for a cycle arrives, in the same cycle: the
///   slave's frame time is the master's minus a whole number of periods, fixed while the link
///   stays up; a slave's capture channels add no whole period against the master's clock.
/// - `-l` (network latency, cycles) delays the return way (slave to master) only; the driver
///   declares `l × period / 2` frames of capture latency on its ports, which is not what arrives.
/// - The master sends a capture port's audio only once the slave has said it is connected (the
///   protocol's active-port list, sent back with the return sync): after a connection the port
///   carries silence for a round trip, l + 1 cycles after the one it takes effect in
///   (`settleCycles`).
/// - JACK transport does not cross the link.
///
/// Recognised by the driver's aliases on its ports (`net_pcm:from_master_:out1`), which no other
/// jackd2 driver gives.
public struct NetJackSlave: Equatable, Sendable {
    /// The driver's network latency (`-l`), in cycles.
    public var networkLatencyCycles: Int
    /// Frames a period.
    public var period: Int
    /// The capture latency the driver declares on its ports (`l × period / 2`).
    public var declaredCaptureLatency: Int

    public init(networkLatencyCycles: Int, period: Int, declaredCaptureLatency: Int) {
        self.networkLatencyCycles = networkLatencyCycles
        self.period = period
        self.declaredCaptureLatency = declaredCaptureLatency
    }

    /// The alias prefix the net driver gives its ports (JackNetDriver's "net_pcm").
    static let aliasPrefix = "net_pcm:"

    /// Cycles from the one a capture port's first connection takes effect in to the first that
    /// carries the master's audio, and one to spare. The driver fills the port from the next
    /// cycle on and reports it connected in that cycle's return sync; the master reads that sync
    /// `-l` cycles later and sends the port's audio in its next cycle: l + 2 cycles, measured
    /// (3 silent cycles after the stale one at `-l 2`).
    public var settleCycles: Int { networkLatencyCycles + 3 }

    /// The server `client` is on, when it is a NetJACK2 slave: one of its physical ports carries
    /// the net driver's alias.
    package static func detect(on client: JackClient) -> NetJackSlave? {
        let capture = client.physicalCapturePorts()
        let playback = client.audioPorts(flags: JackPortFlags(rawValue: JackPortIsInput.rawValue | JackPortIsPhysical.rawValue))
        for name in [capture.first, playback.first].compactMap({ $0 }) {
            guard let port = try? client.port(named: name),
                  client.aliases(of: port).contains(where: { $0.hasPrefix(aliasPrefix) }) else { continue }
            let period = client.bufferSize
            // The driver declares l × period / 2 on capture ports, and as much (more when not in
            // sync mode) on playback ports: the capture port's figure gives l.
            let declared = capture.first.flatMap { try? client.port(named: $0) }.map { client.captureLatency(of: $0).maximum } ?? 0
            let cycles = period > 0 ? (2 * declared + period / 2) / period : 0
            return NetJackSlave(networkLatencyCycles: cycles, period: period, declaredCaptureLatency: declared)
        }
        return nil
    }
}

extension NetJackSlave: CustomStringConvertible {
    /// One line for a console: `NetJACK2 slave (network latency 2 cycles = 2,048 frames)`.
    public var description: String {
        "NetJACK2 slave: the master's audio in the master's cycle (its frame time less a whole number of periods); "
            + "network latency \(networkLatencyCycles) cycle\(networkLatencyCycles == 1 ? "" : "s") on the way back"
    }
}
