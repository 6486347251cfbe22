/// Which JACK ports a take records: 1-based physical capture channels, or port names and globs.
package enum SourceSelection: Equatable, Sendable {
    /// The server's physical capture ports, by position (`1-8,10`).
    case channels([Int])
    /// Exact names or globs (`synth:out_*`) (`*`, `?`, `[...]`).
    case ports([String])

    /// jcap records channels 1 and 2 when told nothing else.
    package static let `default` = SourceSelection.channels([1, 2])

    /// The source port for each channel of the take, in order.
    ///
    /// - Parameters:
    ///   - physicalCapturePorts: the server's physical capture ports, in the server's order.
    ///   - outputPorts: every output port of the server.
    package func resolve(physicalCapturePorts: [String], outputPorts: [String]) throws(CaptureError) -> [String] {
        switch self {
        case .channels(let channels):
            let ordered = physicalCapturePorts.sorted(by: NaturalOrder.areInIncreasingOrder)
            return try channels.map { (channel) throws(CaptureError) in
                guard channel >= 1, channel <= ordered.count else {
                    throw .noSuchChannel(channel, available: ordered.count)
                }
                return ordered[channel - 1]
            }
        case .ports(let patterns):
            var chosen: [String] = []
            var seen = Set<String>()
            for pattern in patterns {
                let matches = PortPattern.matches(pattern, in: outputPorts)
                guard !matches.isEmpty else { throw .noPortMatches(pattern) }
                for name in matches where seen.insert(name).inserted { chosen.append(name) }
            }
            return chosen
        }
    }

    /// Parses a channel list: `1,2`, `1-8,10`. Channels are 1-based; each may appear once.
    package static func parseChannelList(_ text: String) throws(CaptureError) -> [Int] {
        var channels: [Int] = []
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        for item in items {
            let trimmed = String(item).trimmingWhitespace()
            let bounds = trimmed.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(bounds.count),
                  bounds.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
                throw .badChannelList(text, reason: "'\(trimmed)' is not a channel number or a range like 1-8")
            }
            let first = Int(bounds[0])!, last = Int(bounds[bounds.count - 1])!
            guard first >= 1 else { throw .badChannelList(text, reason: "channels count from 1") }
            guard first <= last else { throw .badChannelList(text, reason: "range '\(trimmed)' runs backwards") }
            for channel in first...last {
                guard !channels.contains(channel) else {
                    throw .badChannelList(text, reason: "channel \(channel) is listed twice")
                }
                channels.append(channel)
            }
        }
        return channels
    }
}
