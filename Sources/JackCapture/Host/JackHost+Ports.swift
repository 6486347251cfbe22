import CJack

/// Port resolution in both directions, in one place: the sources a client records from and the
/// destinations a client plays to.
extension JackHost {
    /// The sources to record from: channel numbers against the server's physical capture ports,
    /// names and globs against its output ports, in natural order.
    package func sources(for selection: SourceSelection) throws(CaptureError) -> [String] {
        try JackHost.sources(for: selection, on: client)
    }

    package static func sources(for selection: SourceSelection, on client: JackClient) throws(CaptureError) -> [String] {
        try selection.resolve(physicalCapturePorts: client.physicalCapturePorts(), outputPorts: client.audioOutputPorts())
    }

    /// The destinations to play to, one per output port in order (fewer when fewer are named or
    /// exist): the physical playback ports (all, or the channels asked for, 1-based), the input
    /// ports matching each pattern, or none.
    package func destinations(for outputs: PlayerOutputs) throws(CaptureError) -> [String] {
        switch outputs {
        case .none:
            return []
        case .physical(let channels):
            let physical = client.audioPorts(flags: JackPortFlags(rawValue: JackPortIsInput.rawValue | JackPortIsPhysical.rawValue))
                .sorted(by: NaturalOrder.areInIncreasingOrder)
            guard let channels else { return physical }
            var chosen: [String] = []
            for channel in channels {
                guard channel >= 1, channel <= physical.count else {
                    throw .noSuchPlaybackChannel(channel, available: physical.count)
                }
                chosen.append(physical[channel - 1])
            }
            return chosen
        case .ports(let patterns):
            let inputs = client.audioPorts(flags: JackPortIsInput)
            var chosen: [String] = []
            for pattern in patterns {
                let matches = PortPattern.matches(pattern, in: inputs)
                guard !matches.isEmpty else { throw .noInputPortMatches(pattern) }
                chosen += matches.filter { !chosen.contains($0) }
            }
            return chosen
        }
    }
}
